package main

import (
	"flag"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
)

var plotCommand = &command{
	name:    "plot",
	args:    "DIR",
	summary: "draw the results in DIR/bench.txt as charts in DIR/plots (SVG and PNG); DIR may be the bench.txt itself",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		return func(args []string) error {
			if len(args) != 1 {
				return usagef("plot: want one results directory, got %d arguments", len(args))
			}
			return rundir.Replot(args[0], e.stderr)
		}
	},
}
