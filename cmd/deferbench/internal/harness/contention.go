package harness

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/conformance/bench"
)

// NoopName is the name of Contention's control row: producers that run a register-only loop.
const NoopName = bench.Noop

// handover hands r over if st orders producers by hand-over (handrolled), as the bodies do.
var handover = bench.Handover

// contentionProcs is the GOMAXPROCS sweep: 1…NumCPU and 2×NumCPU, or the user's list.
func contentionProcs(cfg VariantConfig) []int {
	if len(cfg.Procs) > 0 {
		return cfg.Procs
	}
	n := runtime.NumCPU()
	var ps []int
	for p := 1; p <= n; p++ {
		if cfg.Quick && p != 1 && p != n {
			continue
		}
		ps = append(ps, p)
	}
	return append(ps, 2*n)
}

var contentionScenario = Scenario{
	Name: "Contention",
	Description: "P producers stage typed commands concurrently into one target, each through its own recorder, " +
		"swept over P and GOMAXPROCS, in rounds of up to 65536 commands per producer (about 1 ms of single-producer staging, at least 1024); ns/op per command, cmds/s, " +
		"efficiency = throughput(P) / (min(P, GOMAXPROCS) × throughput(1)), throughput(1) measured in single-producer reference rounds " +
		"interleaved with the timed ones; strategy=noop is the control (no memory touched)",
	Variants: func(cfg VariantConfig) []Variant {
		producers := bench.ContentionProducers
		if cfg.Quick {
			producers = producers[:3]
		}
		var vs []Variant
		for _, procs := range contentionProcs(cfg) {
			for _, p := range producers {
				vs = append(vs, Variant{Params: []Param{{"producers", strconv.Itoa(p)}}, Arg: p, Procs: procs})
			}
		}
		return vs
	},
	// The bodies are bench.Contention (the one go test runs through
	// conformance.BenchmarkContention) and bench.ContentionNoop; each reports its efficiency.
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		p := v.Arg.(int)
		if s.ControlOf != "" {
			return func(b *testing.B) error { return bench.ContentionNoop(b, p) }
		}
		return func(b *testing.B) error { return bench.Contention(b, s.Factory, p) }
	},
	Headlines: []Headline{
		// A programmer with many producers needs the most commands staged per second when
		// all of them run at once: efficiency is relative to each strategy's own
		// single-producer speed, so a strategy slow alone can score well on it while staging
		// a tenth of the others' commands. The need is answered by throughput; efficiency is
		// ranked beside it, for scaling.
		{Unit: "cmds/s", Higher: true, Where: []Param{{"producers", "NumCPU"}}, AtNumCPU: true,
			Need: "many parallel producers (cmds/s of all producers together, producers = {producers} at GOMAXPROCS = {GOMAXPROCS})"},
		{Unit: "efficiency", Higher: true, Where: []Param{{"producers", "NumCPU"}}, AtNumCPU: true},
	},
	Charts: []Chart{
		{Name: "Contention-efficiency", Title: "efficiency", YLabel: "efficiency", Units: []string{"efficiency"}, Against: "producers", PerProcs: true},
		{Name: "Contention-throughput", Title: "cmds/s", YLabel: "cmds/s", Units: []string{"cmds/s"}, Against: "producers", PerProcs: true},
	},
}
