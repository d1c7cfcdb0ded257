// Package conformance is the exported test suite every deferbench strategy passes: one call
// runs one subtest per row of the deferral contract (the rules of package
// [github.com/deferbench/deferbench/deferral]) against a strategy's Factory.
//
//	func TestConformance(t *testing.T) { conformance.Test(t, cmdbuffer.Factory) }
//
// Each subtest gets a fresh ecs.World and a fresh strategy, collects every problem it finds
// (each message starts with the operation and shows got and want) instead of stopping at the
// first, and runs under a watchdog that fails it with a message, and the goroutine stacks,
// instead of hanging CI when a commit or a recorder blocks. Subtests are named after the
// contract rows: LeniencyAddOverwrites, SetMissingFails, PlaceholderOtherRecorder,
// FailureRetryNoReplay, FrameOrder, and so on.
//
// # Capabilities
//
// A strategy declares in deferral.Capabilities what its design guarantees about the order
// across recorders. The suite asserts the declared behaviour and names the subtest after it,
// so nothing is silently skipped: OrderReproducibleBySortKey (ReproducibleOrder and SortKeys:
// apply order is sort key, then recorder number, then FIFO, whatever the goroutine timing),
// OrderReproducibleByRecorder (ReproducibleOrder only: recorder number, then FIFO; keys are
// ignored), OrderFIFOOnly (neither: FIFO within each recorder and a valid interleaving of
// them). The determinism subtest likewise runs as DeterminismReproducible (DistinctStates must
// be 1) or DeterminismNotClaimed (it must run cleanly; the count is logged). A strategy
// declaring ReadsPreviousVersion implements deferral.VersionReader, and ReadsPreviousVersion
// checks that readers running during staging and commits see whole published versions, in
// order; ReadsNotVersioned checks that a strategy not declaring it offers no such read.
//
// # Replay
//
// Subtests that draw random numbers (schedules, counts, jitter) log their seed. Set the
// environment variable DEFERBENCH_CONFORMANCE_SEED to that number to replay a failure.
//
// # Determinism helper
//
// DistinctStates runs the parallel particle frame of package workload with an order-sensitive
// decision rule across runs, GOMAXPROCS values and seeded scheduling jitter, and counts the
// distinct final world hashes; the harness reports it as distinct-states (1 = reproducible).
//
// The package imports only the standard library and deferbench's ecs, deferral and workload
// packages.
package conformance
