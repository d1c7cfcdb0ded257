package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deferbench/deferbench/harness"
)

var plotCommand = &command{
	name:    "plot",
	args:    "DIR",
	summary: "draw the results in DIR/bench.txt as charts in DIR/plots (SVG and PNG)",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		return func(args []string) error {
			if len(args) != 1 {
				return usagef("plot: want one results directory, got %d arguments", len(args))
			}
			dir := args[0]
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return usagef("plot: %s is not a results directory", dir)
			}
			rs, err := harness.ReadResults(dir)
			if err != nil {
				return err
			}
			files, err := harness.Plot(rs, filepath.Join(dir, "plots"))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "deferbench: %d plots in %s\n", len(files), filepath.Join(dir, "plots"))
			return nil
		}
	},
}
