// Package input reads what a command is given to read: a bench.txt, a results directory or,
// for compare, a pipe, through package results. What is wrong with an input (missing, not
// results, unreadable, a terminal) becomes one line naming it and saying what to give
// instead, a usage.Error.
package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
	"golang.org/x/perf/benchfmt"
)

// BenchPath is the bench.txt a compare argument stands for.
func BenchPath(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return filepath.Join(p, "bench.txt")
	}
	return p
}

// Same reports whether two compare arguments are the same file.
func Same(a, b string) bool {
	fa, err1 := os.Stat(BenchPath(a))
	fb, err2 := os.Stat(BenchPath(b))
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// ReadRun reads the results of a bench.txt or a results directory, turning a missing or
// wrong file into a one-line usage error (exit status 2) that says what to give.
func ReadRun(cmd, path string) ([]*benchfmt.Result, error) {
	rs, err := results.ReadResults(path)
	if err != nil {
		return nil, Error(cmd, path, err)
	}
	return rs, nil
}

// ReadRunCut is ReadRun that passes over a last line cut off inside it (a run killed while it
// wrote the line), saying so on stderr: what report and plot rebuild from a killed run.
func ReadRunCut(cmd, path string, stderr io.Writer) ([]*benchfmt.Result, error) {
	rs, err := results.ReadResultsCut(path, func(line int) {
		fmt.Fprintf(stderr, "deferbench: %s: note: %s:%d: skipped, the file ends inside it (a run killed or a copy cut short while it was written)\n", cmd, BenchPath(path), line)
	})
	if err != nil {
		return nil, Error(cmd, path, err)
	}
	return rs, nil
}

// WaitNotice is how long ReadInput reads nothing from a pipe before it says it is waiting.
var WaitNotice = 2 * time.Second

// ReadInput is ReadRun for an input of compare, which may also be a pipe: "-" (standard
// input) or a named pipe such as the /dev/fd/N of a shell's <(go test -bench .). A pipe that
// has given nothing after WaitNotice is noted on stderr, once; the read goes on (a benchmark
// run may take minutes before its first line), until its writer closes it or an interrupt.
//
// It also returns how many lines it skipped (lines that begin like a benchmark line but are not
// well-formed, each noted on stderr).
func ReadInput(ctx context.Context, stdin *os.File, stderr io.Writer, cmd, path string) ([]*benchfmt.Result, int, error) {
	name := path
	if path == "-" {
		name = results.StdinName
	}
	var skipped []results.Skipped
	rs, err := results.ReadInput(ctx, path, results.InputOptions{
		Stdin:     stdin,
		Skipped:   func(s results.Skipped) { skipped = append(skipped, s) },
		WaitAfter: WaitNotice,
		Waiting: func(noWriter bool) {
			if noWriter {
				fmt.Fprintf(stderr, "deferbench: %s: waiting for a program to open the named pipe %s for writing (interrupt to stop)\n", cmd, name)
				return
			}
			fmt.Fprintf(stderr, "deferbench: %s: waiting for %s: nothing read yet after %v; reading until its writer closes it (interrupt to stop)\n", cmd, name, WaitNotice)
		},
	})
	if err != nil {
		return nil, 0, Error(cmd, path, err)
	}
	for _, n := range results.SkippedNotes(skipped, 3) {
		fmt.Fprintf(stderr, "deferbench: %s: note: %s\n", cmd, n)
	}
	return rs, len(skipped), nil
}

// Error turns what went wrong reading path into a one-line usage error (exit status 2)
// that says what to give, or an error naming cmd.
func Error(cmd, path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			if _, eerr := os.Stat(filepath.Join(path, "env.json")); eerr == nil {
				// A run writes env.json first: one killed before its first benchmark
				// finished leaves it alone.
				return usage.Errorf("%s: %s has env.json but no bench.txt: a run stopped before its first benchmark finished, nothing to read; remove it and run again", cmd, path)
			}
			return usage.Errorf("%s: %s has no bench.txt: give a bench.txt or a results directory", cmd, path)
		}
		return usage.Errorf("%s: %s: no such file: give a bench.txt or a results directory", cmd, path)
	case errors.Is(err, results.ErrNotRegular):
		var pe *fs.PathError
		switch {
		case !errors.As(err, &pe):
			return usage.Errorf("%s: %v", cmd, err)
		case pe.Path == results.StdinName && path == "-":
			return usage.Errorf("%s: - reads standard input, which is %v (a terminal?): pipe the results in (go test -bench . | deferbench %s - NEW) or give a file", cmd, pe.Err, cmd)
		case cmd == "compare" && pe.Path == path:
			return usage.Errorf("%s: %s is %v: give a bench.txt, a results directory, a pipe such as <(go test -bench .), or - for standard input", cmd, pe.Path, pe.Err)
		}
		return usage.Errorf("%s: %s is %v: save the results to a file (go test -bench . > bench.txt) and give its path, or give a results directory", cmd, pe.Path, pe.Err)
	case errors.Is(err, results.ErrNoBenchmarks):
		return usage.Errorf("%s: %v: give a bench.txt with results, or a results directory", cmd, err)
	case errors.Is(err, results.ErrNotResults) && strings.Contains(err.Error(), "longer than"), errors.Is(err, results.ErrMalformed):
		return usage.Errorf("%s: %v", cmd, err)
	case errors.Is(err, results.ErrNotResults):
		if path == "-" {
			path = results.StdinName
		}
		return usage.Errorf("%s: %s is not a Go benchmark results file: give a bench.txt that deferbench run or go test -bench wrote, or a results directory", cmd, path)
	case errors.Is(err, results.ErrBadValue), errors.Is(err, results.ErrTooLarge):
		return usage.Errorf("%s: %v", cmd, err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) { // unreadable: permissions, a symlink loop, a folder named bench.txt
		return usage.Errorf("%s: %s: cannot read it (%v): give a readable bench.txt or a results directory", cmd, pe.Path, pe.Err)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// Label names a run in a table header: its directory for a results directory's bench.txt.
func Label(path string) string {
	if path == results.StdinName || strings.HasPrefix(path, "/dev/fd/") || strings.HasPrefix(path, "/proc/self/fd/") {
		return path // a pipe: "stdin", or the shell's name for <(…), not "63"
	}
	path = strings.TrimRight(path, "/")
	if filepath.Base(path) == "bench.txt" {
		path = filepath.Dir(path)
	}
	if b := filepath.Base(path); b == "." || b == ".." || b == "/" {
		if abs, err := filepath.Abs(path); err == nil && filepath.Base(abs) != "/" {
			return filepath.Base(abs) // "compare . ../old": the folder's name, not "."
		}
	}
	return filepath.Base(path)
}
