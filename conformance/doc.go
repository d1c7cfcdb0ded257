// Package conformance is the exported test suite every deferbench strategy passes: one call
// runs one subtest per row of the deferral contract (the rules of package
// [github.com/deferbench/deferbench/deferral]) against a strategy's Factory.
//
//	func TestConformance(t *testing.T) { conformance.Test(t, cmdbuffer.Factory) }
//
// Each subtest gets a fresh ecs.World and a fresh strategy, collects every problem it finds
// (each message starts with the operation and shows got and want) instead of stopping at the
// first, and runs under a watchdog that fails it with a message, and the goroutine stacks,
// instead of hanging CI when a commit or a recorder blocks or spins: within Timeout (20 s), less
// near go test's -timeout, so that however many rows block every row is reported (eight rows
// whose commit blocks, or spins on the CPU, each fail after 20 s and every other row passes,
// the whole run ending by itself inside -timeout 5m; the goroutines left spinning get a P each,
// and the determinism row's GOMAXPROCS values are counted above them). Subtests
// are named after the contract rows: LeniencyAddOverwrites, SetMissingFails,
// PlaceholderOtherRecorder, FailureRetryNoReplay, FrameOrder, and so on.
//
// Every row runs on both storages of ecs.World, as subtests named …/storage=slots and
// …/storage=archetypes (a row's worlds, its strategy's and the ones it compares with, all on
// that storage), and so does every program of the differential test; set StorageEnv
// (DEFERBENCH_STORAGE=slots or archetypes) to run one.
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
// BatchPerEntityNetMoves (BatchesPerEntity declared) and BatchPerEntityNotClaimed commit
// spawns, Add + Add, Remove + Remove, Add then Remove and runs cut by a failing command, a
// destroy, a closure or another entity, and compare the error and its position, a retry, the
// report, the resolutions, Hash and Changes with the suite's own one-command-at-a-time
// strategy on a twin world; declared, the archetype row moves must be the net change's (a
// spawn: none, its row placed in its final table; one by one: one per Add).
// BulkRunsAsOneByOne commits many like commands in a row — creates of one bundle shape,
// destroys, Adds and Sets of one bundle entity after entity, each run cut by a culled create, a
// dead or repeated target, a Set of a missing component or a create of a placeholder already
// created — and compares them with the same one-command-at-a-time strategy the same way, on
// both storages, and also the order in which queries visit the entities; ecs.World.BulkRows
// must stay 0 one by one and on slot storage and, on archetype storage, be the case's runs'
// rows where BulkRuns is declared (logged where it is not).
//
// # Fixed differential programs
//
// Differential runs seeded random programs against a reference model; DifferentialFixed runs
// fixed ones on every run, so that no fault's detection depends on the seed: every ordered
// pair of 13 command kinds on one recorder, on two, and with sort keys reversing them (then a
// second round on what the first left); a failing Set, invalid Add or closure at each of seven
// positions, on one and two recorders; commands (keyed where the strategy sorts by key) on a
// target destroyed in the same or an earlier commit; batch shapes (a spawn and its run, runs on
// one entity cut by a failing command, a destroy, a closure or another entity, bulk) against
// the model's one-command-at-a-time application. PositionAcrossRecorders names a failing
// command by its recorder and that recorder's FIFO index, through a retry and a second failure.
//
// # Extension points
//
// What a strategy offers beyond deferral.Strategy has a suite of its own, with the same
// one-line use, subtests per row and watchdog:
//
//	func TestConformanceHandover(t *testing.T) { conformance.TestHandover(t, handrolled.Factory) }
//	func TestConformanceVersions(t *testing.T) { conformance.TestVersions(t, versioned.Factory) }
//	func TestConformanceGraph(t *testing.T)    { conformance.TestGraph(t, hybrid.Factory, makeGraph) }
//	func TestConformanceHooks(t *testing.T)    { conformance.TestHooks(t, cmdbuffer.Factory, setHooks) }
//	func TestConformanceReaders(t *testing.T)  { conformance.TestReaders(t, lazyguarded.Factory, read) }
//	func TestConformanceGeneric(t *testing.T)  { conformance.TestGeneric(t, makeGeneric, opts) }
//
// TestHandover asserts the hand-over order, also interleaved across recorders with one
// recorder handing over twice (HandoverOrderInterleaved: segments apply in hand-over order and
// a failure in a second segment is named by its index over both), and the FIFO numbering
// across hand-overs, those closures make during a commit included (Handoverer). TestVersions
// asserts that after every kind of commit — drained, failed, failed at a closure that wrote,
// after a panic, after direct writes, after a closure a replay cannot redo — a versioned read
// sees the owner's world, and (VersionNumbers, VersionNumberReader) that version numbers never
// go back and each commit that changed the world publishes exactly one more; run it once per
// resync mode. TestReaders asserts a strategy's own read path (ReadFunc; lazyguarded's pipe) in
// the mode it declares (ReadsWaitForStaged: reads between staged commands see exactly those
// before them; else they see the committed world), a read's task and error, that a read
// submitted while a commit runs starts only after it (ReadersNeverOverlapFlush: the commit is
// held in a closure while the read tries to get in), and reads after a discard and after a
// failed commit and its retries. TestGraph asserts that a flush node runs after every appender,
// declared before or after it, in declaration order, keeps a failed flush's suffix, skips what depends on a failed node, and reports
// a cycle (a node that reads the world and appends, declared after the flush) as an error
// naming its nodes, never a panic (Graph,
// an adapter the strategy's test writes over its graph type). TestHooks asserts that sort,
// dedup and reduce hooks work within each run of typed commands, never across a closure, that
// a sort is stable on long runs and dedup and reduce hold for interleaved keys, and
// that the commands they drop count as consumed (Hooks, installed by a SetHooks the test
// writes). TestGeneric asserts a strategy's generic tier, over a target of the user's own type
// (Ints, with typed commands applied by ApplyInt and closures): FIFO order and positions per
// recorder, the declared order across recorders (GenericOrder), the failure policy for a
// typed command and a closure through a retry and a discard, concurrent recorders, reuse over
// frames, and sort keys where honoured (Generic, an adapter the strategy's test writes).
//
// # Bounded memory
//
// The SpikeReleased rows stage one spike of typed commands (with no sort key, or with one), of
// closures, or of both, then ordinary frames, and bound the live heap the strategy still holds
// after a collection (four bytes per spike command; each commit also stages during itself, so a
// shrinking buffer must keep what it holds). SpikeWorkingSetKept checks that a large frame
// coming every other window allocates no more than one coming every window (deferral.Watermark
// keeps the previous window's largest use). ChurnMemoryBounded creates and destroys 102,400
// entities through the strategy with none left alive and bounds the growth of the live heap.
// These rows run on the test's goroutine alone; under -race they skip, saying so (the
// detector has nothing to watch there and slows them ten times over), so run the suite once
// without -race as well.
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
// packages, and its own internal one-command-at-a-time strategy (the batching rows' reference).
package conformance
