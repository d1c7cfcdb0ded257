package harness

import (
	"strconv"
	"testing"

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
		return []Variant{{Params: []Param{{"spike", strconv.Itoa(n)}, {"frames", strconv.Itoa(bench.SpikeFrames)}}, Arg: n}}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // the baseline's slice has no shrink policy to measure
		}
		n := v.Arg.(int)
		return func(b *testing.B) error { return bench.Spike(b, s.Factory, n) } // as conformance.BenchmarkSpike
	},
}

// SpikeFloor is bench.SpikeFloor: the heap below which Spike counts a strategy as holding no
// buffer.
const SpikeFloor = bench.SpikeFloor

// RetainedX is bench.RetainedX, Spike's retained-x.
func RetainedX(retained, steady float64) float64 { return bench.RetainedX(retained, steady) }
