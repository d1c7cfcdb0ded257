package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
)

// countChildCommand is the hidden mode in which deferbench runs one benchmark at a fixed
// iteration count and exits, for a parent that counts the whole process (under cachegrind,
// at two iteration counts). It is not listed in the usage: users run deferbench run.
const countChildCommand = "count-child"

// countChild runs the hidden count-child mode when args (os.Args[1:]) select it, returning
// the exit status and true; otherwise it returns false and does nothing.
//
//	deferbench count-child -n ITERS NAME
//
// NAME is a full benchmark name without the Benchmark prefix. The child prints nothing on
// success; a bad name, a case that is not counted (harness.Countable) or a failing benchmark
// is one line on stderr and exit status 1 (2 for bad arguments).
func countChild(args []string, stderr io.Writer) (int, bool) {
	if len(args) == 0 || args[0] != countChildCommand {
		return 0, false
	}
	fs := flag.NewFlagSet(countChildCommand, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n := fs.Int("n", 0, "iterations")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 || *n < 1 {
		fmt.Fprintf(stderr, "deferbench %s: usage: deferbench %s -n ITERS NAME (ITERS ≥ 1)\n", countChildCommand, countChildCommand)
		return 2, true
	}
	if err := runCountChild(fs.Arg(0), *n); err != nil {
		fmt.Fprintf(stderr, "deferbench %s: %v\n", countChildCommand, err)
		return 1, true
	}
	return 0, true
}

func runCountChild(name string, n int) error {
	// Heap profiling samples allocations at random intervals and unwinds the stack at each
	// sample: work that differs from run to run. Counts leave it out.
	runtime.MemProfileRate = 0
	c, err := harness.FindCase(name)
	if err != nil {
		return err
	}
	if err := harness.Countable(c); err != nil {
		return err
	}
	_, err = harness.RunFixed(c, n)
	return err
}
