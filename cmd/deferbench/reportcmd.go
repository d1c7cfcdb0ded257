package main

import (
	"flag"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
)

var reportCommand = &command{
	name:    "report",
	args:    "DIR",
	summary: "rebuild summary.json, report.md, details.md and plots/ in results directory DIR from its bench.txt (a killed run, say)",
	detail: `DIR may be the bench.txt itself. The results directory is held with the run's lock file
while its files are rewritten; a lock file whose process no longer exists (a killed run) is
reclaimed with a note. A bench.txt still marked "run in progress" by a run that was killed
is marked "N results finished (run killed)" in bench.txt, env.json and the new files.
A bench.txt that holds two machines' results, or results repeated value for value (a file
joined with itself), is refused: each sample would count twice in one median.`,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		return func(args []string) error {
			if len(args) != 1 {
				return usagef("report: want one results directory, got %d arguments", len(args))
			}
			return rundir.Rebuild(args[0], e.stderr)
		}
	},
}
