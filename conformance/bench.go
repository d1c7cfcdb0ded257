package conformance

import (
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/ecs"
)

// Benchmark runs the Stage, StageApply, Contention, Spike and Structural benchmarks of
// deferbench on the strategies f makes, as sub-benchmarks named like a deferbench run's results
// (Stage/strategy=NAME/cmd=typed, …). To line a strategy up with a deferbench run, give each
// scenario its top-level benchmark of the run's name instead:
//
//	func BenchmarkStage(b *testing.B)      { conformance.BenchmarkStage(b, mine.Factory) }
//	func BenchmarkStageApply(b *testing.B) { conformance.BenchmarkStageApply(b, mine.Factory) }
//	func BenchmarkContention(b *testing.B) { conformance.BenchmarkContention(b, mine.Factory) }
//
// and compare with benchstat -table "" -col /strategy results/DIR/bench.txt mine.txt. The
// bodies are package [github.com/deferbench/deferbench/conformance/bench]'s, the ones
// deferbench run times, so the names, units and method are the run's. A nil f measures the
// run's baseline rows (strategy=baseline; Spike has none). A strategy that wants its
// producers' hand-over point marked implements Handover(*deferral.Recorder), as handrolled
// does.
func Benchmark(b *testing.B, f Factory) {
	b.Run("Stage", func(b *testing.B) { BenchmarkStage(b, f) })
	b.Run("StageApply", func(b *testing.B) { BenchmarkStageApply(b, f) })
	b.Run("Contention", func(b *testing.B) { BenchmarkContention(b, f) })
	if f != nil {
		b.Run("Spike", func(b *testing.B) { BenchmarkSpike(b, f) })
		b.Run("Structural", func(b *testing.B) { BenchmarkStructural(b, f) })
	}
}

// strategyName returns the strategy= name of the rows f measures: the name of the strategies
// f makes, or bench.Baseline for a nil f.
func strategyName(b *testing.B, f Factory) string {
	b.Helper()
	if f == nil {
		return bench.Baseline
	}
	s := f(ecs.NewWorld())
	name := s.Name()
	if err := s.Close(); err != nil {
		b.Fatalf("close of an unused strategy: %v", err)
	}
	return name
}

// run runs body as the sub-benchmark name, failing it with body's error.
func run(b *testing.B, name string, body func(b bench.B) error) {
	b.Run(name, func(b *testing.B) {
		if err := body(bench.Testing(b)); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkStage runs bench.Stage for each of bench.StageCmds as the sub-benchmarks
// strategy=NAME/cmd=CMD: one producer staging typed commands or closures through one
// recorder, ns/op per staged command, allocs and heap-B/cmd.
func BenchmarkStage(b *testing.B, f Factory) {
	name := strategyName(b, f)
	for _, cmd := range bench.StageCmds {
		run(b, "strategy="+name+"/cmd="+cmd, func(b bench.B) error { return bench.Stage(b, f, cmd) })
	}
}

// BenchmarkStageApply runs bench.StageApply for each of bench.StageApplyMixes as the
// sub-benchmarks strategy=NAME/mix=MIX: staging plus commit every 256 commands, ns/op per
// command (per component operation in mix=addremove2x100).
func BenchmarkStageApply(b *testing.B, f Factory) {
	name := strategyName(b, f)
	for _, mix := range bench.StageApplyMixes {
		run(b, "strategy="+name+"/mix="+mix, func(b bench.B) error { return bench.StageApply(b, f, mix) })
	}
}

// BenchmarkContention runs bench.Contention for each of bench.ContentionProducers as the
// sub-benchmarks strategy=NAME/producers=P: P producers staging concurrently, ns/op per
// command, cmds/s and efficiency. It runs at the current GOMAXPROCS; sweep it with go test
// -cpu, as deferbench run sweeps GOMAXPROCS (1…NumCPU and 2×NumCPU).
func BenchmarkContention(b *testing.B, f Factory) {
	name := strategyName(b, f)
	for _, p := range bench.ContentionProducers {
		run(b, "strategy="+name+"/producers="+strconv.Itoa(p), func(b bench.B) error { return bench.Contention(b, f, p) })
	}
}

// BenchmarkSpike runs bench.Spike with a spike of bench.SpikeSize commands as the
// sub-benchmark strategy=NAME/spike=N/frames=40, and bench.SpikeClosures as
// strategy=NAME/spike=N/frames=40/tier=closure: ns/op per ordinary frame, and the heap held
// after a spike (retained-B, steady-B, retained-x). f must not be nil.
func BenchmarkSpike(b *testing.B, f Factory) {
	if f == nil {
		b.Fatal("conformance: BenchmarkSpike: factory is nil (the baseline has no shrink policy to measure)")
	}
	name := strategyName(b, f)
	run(b, "strategy="+name+"/spike="+strconv.Itoa(bench.SpikeSize)+"/frames="+strconv.Itoa(bench.SpikeFrames),
		func(b bench.B) error { return bench.Spike(b, f, bench.SpikeSize) })
	run(b, "strategy="+name+"/spike="+strconv.Itoa(bench.SpikeSize)+"/frames="+strconv.Itoa(bench.SpikeFrames)+"/tier=closure",
		func(b bench.B) error { return bench.SpikeClosures(b, f, bench.SpikeSize) })
}

// BenchmarkStructural runs bench.Structural for each of bench.StructuralWorkloads as the
// sub-benchmarks strategy=NAME/workload=WL, on the default storage (ecs.Slots), as a
// deferbench run names its slots rows: ns/op per spawn or per entity's status change, cmds/op.
// f must not be nil (the workloads measure a strategy's commit).
func BenchmarkStructural(b *testing.B, f Factory) {
	if f == nil {
		b.Fatal("conformance: BenchmarkStructural: factory is nil (the workloads measure a strategy's commit)")
	}
	name := strategyName(b, f)
	for _, wl := range bench.StructuralWorkloads {
		run(b, "strategy="+name+"/workload="+wl, func(b bench.B) error { return bench.Structural(b, f, wl, ecs.Slots) })
	}
}
