package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
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
//	deferbench count-child -perf hardware|software -n LOW -high HIGH NAME
//
// NAME is a full benchmark name without the Benchmark prefix. The first form runs it at ITERS
// iterations for a parent that counts the whole process, and prints nothing on success. The
// second counts it itself with perf_event_open (counts.MeasureOps over every thread of the
// process, at LOW and HIGH iterations after a warm-up at LOW) and prints the counts per op
// (counts.WritePerOp), or the reason counters are unavailable here with exit status 3. A bad
// name, a case that is not counted (harness.Countable) or a failing benchmark is one line on
// stderr and exit status 1; bad arguments, 2.
func countChild(args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) == 0 || args[0] != countChildCommand {
		return 0, false
	}
	fs := flag.NewFlagSet(countChildCommand, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n := fs.Int("n", 0, "iterations")
	high := fs.Int("high", 0, "with -perf: the higher iteration count")
	set := fs.String("perf", "", "count with perf_event_open: hardware or software events")
	err := fs.Parse(args[1:])
	if err != nil || fs.NArg() != 1 || *n < 1 || (*set != "") != (*high > *n) {
		fmt.Fprintf(stderr, "deferbench %s: usage: deferbench %s [-perf hardware|software -high HIGH] -n ITERS NAME (1 ≤ ITERS < HIGH)\n", countChildCommand, countChildCommand)
		return 2, true
	}
	// Heap profiling samples allocations at random intervals and unwinds the stack at each
	// sample: work that differs from run to run. Counts leave it out.
	runtime.MemProfileRate = 0
	c, err := countedCase(fs.Arg(0))
	if err == nil && *set == "" {
		_, err = harness.RunFixed(c, *n)
	}
	if err == nil && *set != "" {
		var events []counts.Event
		if events, err = counts.EventSet(*set); err == nil {
			var p counts.PerOp
			p, err = counts.MeasureOps(events, true, *n, *high, func(n int) error { _, err := harness.RunFixed(c, n); return err })
			if code := counts.WritePerOp(stdout, p, err); code != 1 {
				return code, true
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "deferbench %s: %v\n", countChildCommand, err)
		return 1, true
	}
	return 0, true
}

// countedCase returns the case named name when it is counted.
func countedCase(name string) (harness.Case, error) {
	c, err := harness.FindCase(name)
	if err != nil {
		return c, err
	}
	return c, harness.Countable(c)
}

// perfChildArgv returns the command line of a child that counts case c with perf_event_open,
// events from set (counts.HardwareSet or counts.SoftwareSet), for counts.CountPerf.
func perfChildArgv(c harness.Case, exe, set string) []string {
	it := harness.ItersFor(c)
	return []string{exe, countChildCommand, "-perf", set, "-n", strconv.Itoa(it.Low), "-high", strconv.Itoa(it.High), c.FullName()}
}

// countChildFor returns how the count tier runs case c in a child process: the deferbench
// executable exe in the count-child mode, at c's iteration counts (harness.ItersFor). env is
// added to the child's environment. The caller checks harness.Countable(c) first.
func countChildFor(c harness.Case, exe string, env ...string) counts.Child {
	it := harness.ItersFor(c)
	name := c.FullName()
	return counts.Child{
		Name: name, Low: it.Low, High: it.High, MaxHigh: it.MaxHigh, Env: env,
		Argv: func(n int) []string { return []string{exe, countChildCommand, "-n", strconv.Itoa(n), name} },
	}
}
