// Package bench holds the measured bodies of deferbench's benchmarks: the one definition of
// each scenario's method, names, units and metrics, which both `go test -bench` (through
// conformance.BenchmarkStage and its siblings) and `deferbench run` (whose runner calls the
// same functions) execute. A strategy benchmarked with it therefore lines up, row by row and
// unit by unit, with a deferbench run (benchstat -col /strategy).
//
// Each body is a function of a B (a *testing.B through Testing, or deferbench's runner), a
// deferral.Factory and the variant (the value of the last key of the benchmark's name); it
// times b.N() operations of that variant and returns
// an error when the strategy fails the workload (a commit error, say), which the caller turns
// into b.Fatal or a failed run. A nil Factory measures the baseline (strategy=baseline), the
// lower bound any strategy is read against: Stage and Contention append the compact record a
// recorder writes into its stream for the same Set (AppendSetFloor), or the closure, to a
// preallocated slice; StageApply appends deferral.Command records and applies them with
// deferral.Core. The names a caller gives
// the bodies are Scenario/strategy=NAME/KEY=VARIANT, with NAME the strategy's Name():
//
//	Stage/strategy=NAME/cmd=typed|closure|closure-large          Stage(b, f, cmd)
//	StageApply/strategy=NAME/mix=homogeneous|…|addremove2x100     StageApply(b, f, mix)
//	StageApply/strategy=NAME/mix=…/storage=archetypes             StageApplyOn(b, f, mix, ecs.Archetypes)
//	Contention/strategy=NAME/producers=1|2|4|8|16                 Contention(b, f, producers)
//	Spike/strategy=NAME/spike=N/frames=40                         Spike(b, f, n)
//	Spike/strategy=NAME/spike=N/frames=40/storage=archetypes      SpikeOn(b, f, n, ecs.Archetypes)
//	Structural/strategy=NAME/workload=spawn|effects               Structural(b, f, wl, ecs.Slots)
//	Structural/strategy=NAME/workload=…/storage=archetypes        Structural(b, f, wl, ecs.Archetypes)
//
// and Contention/strategy=noop/producers=P (ContentionNoop), the control row. The bodies build
// their worlds on ecs.Slots, the ecs.NewWorld default, and those rows carry no storage key;
// StageApplyOn, SpikeOn, SpikeClosuresOn, Structural (and NewTargetsOn) take the storage, and on
// ecs.Archetypes StageApplyOn and Structural also report moves/op (MovesUnit), the row moves of
// the timed commits per op.
//
// A strategy whose producers hand their work over when they are done (handrolled) implements
// Handover(*deferral.Recorder); the bodies call it where a producer finishes. A strategy with
// costs of its own to report (versioned's publish split) is measured with a Meter.
//
// The bodies are not safe to run concurrently with each other: they read the process's heap
// statistics (heap-B/cmd, retained-B) and some set no GOMAXPROCS of their own but read it.
package bench
