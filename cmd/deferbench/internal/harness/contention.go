package harness

import (
	"runtime"
	"strconv"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
)

// NoopName is the name of Contention's control row: producers that run a register-only loop.
const NoopName = suite.NoopName

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
	Scenario: suite.Contention,
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
			return func(b bench.B) error { return bench.ContentionNoop(b, p) }
		}
		return func(b bench.B) error { return bench.Contention(b, s.Factory, p) }
	},
}
