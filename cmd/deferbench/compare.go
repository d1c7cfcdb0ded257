package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"golang.org/x/perf/benchfmt"
)

var compareCommand = &command{
	name:    "compare",
	args:    "[flags] OLD NEW",
	summary: "compare two runs (bench.txt files or results directories) metric by metric: medians, 95% CIs, change and Mann-Whitney p",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		alpha := fs.Float64("alpha", 0.05, "significance level of the Mann-Whitney U test")
		ignoreProcs := fs.Bool("ignore-procs", false, "match benchmarks without their -GOMAXPROCS suffix (machines with different core counts); "+
			"one that a run has at several GOMAXPROCS keeps them apart")
		return func(args []string) error {
			args, err := parseInterspersed(fs, args)
			if err != nil {
				return err
			}
			if args == nil {
				writeCommandHelp(e.stdout, lookup("compare"))
				return nil
			}
			if len(args) != 2 {
				return usagef("compare: want two arguments OLD NEW, got %d", len(args))
			}
			if !(*alpha > 0 && *alpha < 1) {
				return usagef("compare: -alpha %v: want a value in (0, 1)", *alpha)
			}
			old, err := readRun("compare", args[0])
			if err != nil {
				return err
			}
			new, err := readRun("compare", args[1])
			if err != nil {
				return err
			}
			oldLabel, newLabel := label(args[0]), label(args[1])
			if oldLabel == newLabel {
				oldLabel, newLabel = "old:"+oldLabel, "new:"+newLabel
			}
			for _, in := range []struct {
				path string
				rs   []*benchfmt.Result
			}{{args[0], old}, {args[1], new}} {
				if p := harness.Partial(in.rs); p != "" {
					fmt.Fprintf(e.stderr, "deferbench: compare: note: %s: %s\n", in.path, harness.PartialText(p))
				}
			}
			if *ignoreProcs {
				if kept := harness.IgnoreProcs(old, new); len(kept) > 0 {
					fmt.Fprintf(e.stderr, "deferbench: compare: note: -ignore-procs: %s run at several GOMAXPROCS, kept apart (matched at equal GOMAXPROCS only)\n",
						plural(len(kept), "benchmark"))
				}
			}
			onlyOld, onlyNew := harness.Unmatched(old, new)
			writeOnly(e.stderr, args[0], onlyOld)
			writeOnly(e.stderr, args[1], onlyNew)
			cs := harness.Compare(old, new, *alpha)
			if len(cs) == 0 {
				hint := ""
				if !*ignoreProcs {
					hint = " (runs from machines with different core counts? try -ignore-procs)"
				}
				return usagef("compare: %s and %s have no benchmark and unit in common%s", args[0], args[1], hint)
			}
			return harness.WriteComparison(e.stdout, cs, oldLabel, newLabel)
		}
	},
}

// parseInterspersed parses flags that follow positional arguments too ("compare A B
// -ignore-procs"), after the command line's first parse stopped at A; "--" ends the flags.
// It returns the positional arguments, or nil after -h.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	pos := []string{}
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return append(pos, args[1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil
			}
			return nil, flagError(lookup(fs.Name()), fs, err)
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		args = rest
	}
	return pos, nil
}

// readRun reads the results of a bench.txt or a results directory, turning a missing or
// wrong file into a one-line usage error (exit status 2) that says what to give.
func readRun(cmd, path string) ([]*benchfmt.Result, error) {
	rs, err := harness.ReadResults(path)
	switch {
	case err == nil:
		return rs, nil
	case errors.Is(err, fs.ErrNotExist):
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, usagef("%s: %s has no bench.txt: give a bench.txt or a results directory", cmd, path)
		}
		return nil, usagef("%s: %s: no such file: give a bench.txt or a results directory", cmd, path)
	case errors.Is(err, harness.ErrNotResults):
		return nil, usagef("%s: %s is not a Go benchmark results file", cmd, path)
	}
	return nil, fmt.Errorf("%s: %w", cmd, err)
}

// writeOnly notes, in one line, the benchmarks only path has (first three named).
func writeOnly(w io.Writer, path string, names []string) {
	if len(names) == 0 {
		return
	}
	shown := names[:min(len(names), 3)]
	more := ""
	if len(names) > len(shown) {
		more = fmt.Sprintf(", … (%d more)", len(names)-len(shown))
	}
	fmt.Fprintf(w, "deferbench: compare: note: %s only in %s, not compared: %s%s\n",
		plural(len(names), "benchmark"), path, strings.Join(shown, ", "), more)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// label names a run in a table header: its directory for a results directory's bench.txt.
func label(path string) string {
	path = strings.TrimRight(path, "/")
	if filepath.Base(path) == "bench.txt" {
		path = filepath.Dir(path)
	}
	return filepath.Base(path)
}
