// Package harness measures deferbench's strategies side by side: the scenarios and the
// strategy table (how to run and build each; what they are is declared in package suite),
// the runner, which drives the conformance/bench bodies (bench.B) itself, and profiles with a
// CPU attribution (github.com/google/pprof/profile). It emits results (golang.org/x/perf/benchfmt); package
// results writes them to bench.txt, analysis summarizes and ranks them, and render draws the
// report and plots. Nothing here reads a results file.
//
// # Tables
//
// Strategies lists what is measured; Scenarios lists how. Every scenario runs every strategy
// in the table (a scenario's Bench returns nil only for a strategy it cannot run, such as the
// baseline where a deferral.Strategy is needed), so adding a strategy to the comparison is one
// line in Strategies and one in suite.Strategies:
//
//	{Strategy: suite.Mine, Factory: mine.Factory},
//
// The baseline is not a strategy: the record a recorder writes for the same command appended
// to a preallocated slice — in Stage and Contention the compact stream record
// (bench.AppendSetFloor), the in-run lower bound; in StageApply a deferral.Command applied one
// by one with deferral.Core, a reference that a strategy's batched commit can beat — or the
// closure.
//
// # Names and units
//
// A case is named <Scenario>/strategy=<s>/<key>=<value>... plus the -GOMAXPROCS suffix (none
// at GOMAXPROCS=1), so that benchstat -col /strategy puts strategies side by side. ns/op is
// T/N in floating point; B/op and allocs/op are per op in floating point too; scenarios add
// named metrics (cmds/s, efficiency, p50-read-ns, p99-read-ns, reads/s, distinct-states,
// heap-B/cmd, gc/frame).
//
// # Method
//
// Run interleaves strategies within each repetition (every strategy of a variant back to
// back, then the next variant), so drift hits them all alike. The first repetition sizes the
// iteration count as go test does (the same ramp to -benchtime, the same clock and allocation
// counters, with no process-global flag: the Benchtime travels in Options); later repetitions
// run that many iterations. Profiles are taken by
// ProfileRun in separate, untimed runs. Benchmarks run one at a time and set GOMAXPROCS, so
// nothing else in the process should depend on it meanwhile.
package harness
