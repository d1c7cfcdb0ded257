package harness

import (
	"strconv"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
)

var spikeScenario = Scenario{
	Scenario: suite.Spike,
	Variants: func(cfg VariantConfig) []Variant {
		n := bench.SpikeSize
		if cfg.Quick {
			n = 1 << 16
		}
		params := []Param{{"spike", strconv.Itoa(n)}, {"frames", strconv.Itoa(bench.SpikeFrames)}}
		return []Variant{
			{Params: params, Arg: spikeArg{n: n}},
			{Params: append(params[:2:2], Param{"tier", "closure"}), Arg: spikeArg{n: n, closures: true}},
		}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // the baseline's slice has no shrink policy to measure
		}
		a := v.Arg.(spikeArg)
		if a.closures {
			return func(b bench.B) error { return bench.SpikeClosures(b, s.Factory, a.n) }
		}
		return func(b bench.B) error { return bench.Spike(b, s.Factory, a.n) } // as conformance.BenchmarkSpike
	},
}

// spikeArg is a Spike variant: the spike's size, in commands, and whether they are closures.
type spikeArg struct {
	n        int
	closures bool
}

// SpikeFloor is bench.SpikeFloor: the heap below which Spike counts a strategy as holding no
// buffer.
const SpikeFloor = bench.SpikeFloor

// RetainedX is bench.RetainedX, Spike's retained-x.
func RetainedX(retained, steady float64) float64 { return bench.RetainedX(retained, steady) }
