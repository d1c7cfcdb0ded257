package main

import (
	"flag"
	"path/filepath"
	"strings"

	"github.com/deferbench/deferbench/harness"
)

var compareCommand = &command{
	name:    "compare",
	args:    "[flags] OLD NEW",
	summary: "compare two runs (bench.txt files or results directories) metric by metric: medians, 95% CIs, change and Mann-Whitney p",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		alpha := fs.Float64("alpha", 0.05, "significance level of the Mann-Whitney U test")
		ignoreProcs := fs.Bool("ignore-procs", false, "match benchmarks without their -GOMAXPROCS suffix (machines with different core counts)")
		return func(args []string) error {
			if len(args) != 2 {
				return usagef("compare: want two arguments OLD NEW, got %d", len(args))
			}
			if !(*alpha > 0 && *alpha < 1) {
				return usagef("compare: -alpha %v: want a value in (0, 1)", *alpha)
			}
			old, err := harness.ReadResults(args[0])
			if err != nil {
				return err
			}
			new, err := harness.ReadResults(args[1])
			if err != nil {
				return err
			}
			if *ignoreProcs {
				harness.StripProcs(old)
				harness.StripProcs(new)
			}
			cs := harness.Compare(old, new, *alpha)
			if len(cs) == 0 {
				return usagef("compare: %s and %s have no benchmark and unit in common", args[0], args[1])
			}
			return harness.WriteComparison(e.stdout, cs, label(args[0]), label(args[1]))
		}
	},
}

// label names a run in a table header: its directory for a results directory's bench.txt.
func label(path string) string {
	path = strings.TrimRight(path, "/")
	if filepath.Base(path) == "bench.txt" {
		path = filepath.Dir(path)
	}
	return filepath.Base(path)
}
