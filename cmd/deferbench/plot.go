package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/input"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
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
			dir := args[0]
			fi, err := os.Stat(dir)
			if err != nil {
				return usagef("plot: %s is not a results directory", dir)
			}
			if !fi.IsDir() {
				dir = filepath.Dir(dir) // a bench.txt: plot next to it
			}
			rs, err := input.ReadRun("plot", args[0])
			if err != nil {
				return err
			}
			// plots/ is the run's to write while it runs: hold the directory as report does.
			rd, err := holdResultsDir("plot", dir, e.stderr)
			if err != nil {
				return err
			}
			defer rd.Release()
			out := filepath.Join(dir, "plots")
			po := render.PlotOptions{Flags: analysis.TrustFlags(rs, results.EnvBeside(dir))}
			if env := results.EnvBeside(dir); env != nil {
				po.Cores = env.Before.Cores
			}
			files, err := render.PlotWith(rs, out, po)
			if err != nil {
				return render.PlotsError("plot", out, err)
			}
			fmt.Fprintf(e.stderr, "deferbench: %s (%s as SVG and PNG) in %s\n", results.Plural(len(files), "plot file"), results.Plural(len(files)/2, "chart"), out)
			return nil
		}
	},
}
