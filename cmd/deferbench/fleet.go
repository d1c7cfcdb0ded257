package main

import (
	"flag"
	"fmt"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/fleet"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
)

// fleetDetail is the part of deferbench help fleet between the summary and the flags.
const fleetDetail = `Each DIR is a results directory of deferbench run (bench.txt and env.json), one
per board, e.g. the folders scripts/pi/run.sh fetched into results/. The table has
one column per DIR and a row per figure: the machine (host, model, goarch, cores,
whether the run was emulated, complete, throttled or under-voltage, temperature
before and after), then per strategy the median of
  Stage cmd=typed          ns/op to stage one typed command
  Frame entities=100000    time per frame at 100,000 entities
  Contention efficiency    at producers = cores
at GOMAXPROCS = cores where the run has it (else the run's largest), ± the 95%
confidence interval as % of the median; "—" where the run has no such benchmark
(-quick runs Frame only at its smallest size).`

var fleetCommand = &command{
	name:       "fleet",
	flagsAfter: true,
	args:       "[-out FILE] DIR...",
	summary:    "one markdown table of several boards' headline figures, a column per results directory",
	detail:     fleetDetail,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		out := fs.String("out", "", "write the table to `FILE` (atomically: a new file, or one an earlier fleet -out wrote) instead of standard output")
		return func(args []string) error {
			args, err := parseInterspersed(e.cmd, fs, args)
			if err != nil {
				return err
			}
			if args == nil { // -h after a directory
				writeCommandHelp(e.stdout, e.cmd)
				return nil
			}
			if len(args) == 0 {
				return usagef("fleet: want one or more results directories")
			}
			if fs.Lookup("out").Value.String() == "" && isSet(fs, "out") {
				return usagef("fleet: -out is empty: give a file name, or omit -out for standard output")
			}
			boards, err := fleet.ReadBoards(args, rundir.CheckResults)
			if err != nil {
				return err
			}
			if *out == "" {
				fleet.Write(e.stdout, boards)
				return nil
			}
			if err := fleet.WriteFile(*out, boards); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "deferbench: fleet table of %s in %s\n", results.Plural(len(boards), "run"), *out)
			return nil
		}
	},
}

// isSet reports whether flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
