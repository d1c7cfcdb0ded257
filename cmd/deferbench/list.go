package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/envinfo"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
)

var listCommand = &command{
	name:    "list",
	args:    "",
	summary: "list the scenarios and strategies with descriptions",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		return func(args []string) error {
			if err := noArgs("list", args); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "scenarios:")
			for _, s := range harness.Scenarios {
				fmt.Fprintf(tw, "  %s\t%s\n", s.Name, s.Description)
			}
			fmt.Fprintln(tw, "\nstrategies:")
			for _, s := range harness.Strategies {
				fmt.Fprintf(tw, "  %s\t%s\n", s.Name, s.Description)
			}
			return tw.Flush()
		}
	},
}

var envCommand = &command{
	name:    "env",
	args:    "",
	summary: "print the environment capture (CPU, cores, Go, kernel, governor, clocks, temperature, throttling) as JSON",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		return func(args []string) error {
			if err := noArgs("env", args); err != nil {
				return err
			}
			b, err := json.MarshalIndent(envinfo.Capture(), "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "%s\n", b)
			return err
		}
	},
}
