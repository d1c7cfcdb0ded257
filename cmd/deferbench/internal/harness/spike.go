package harness

import (
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/conformance/bench"
)

var spikeScenario = Scenario{
	Name: "Spike",
	Description: "bounded memory: one frame staging and committing a spike of typed commands, then 40 ordinary frames of 1024; " +
		"ns/op per ordinary frame (stage 1024 Set commands through one recorder, commit); " +
		"retained-B = live heap the strategy holds after the spike and the 40 frames, steady-B = after 41 ordinary frames, " +
		"retained-x = retained-B / steady-B",
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
	// Bounded memory is the scenario's purpose, so its need is answered by retained-x, not
	// by ns/op. retained-x is measured once per run (after a full collection), so no test
	// can rank two close figures: the need is a bound, met when the heap held after the
	// spike is under twice the steady-state heap; a strategy that keeps its spike buffers
	// reads hundreds.
	Headlines: []Headline{
		{Unit: "retained-x", Need: "bounded memory after a spike (retained-x = heap held after it / steady heap, under 2)", Meets: allBelow(2)},
		{Unit: "ns/op"},
	},
}

// SpikeFloor is bench.SpikeFloor: the heap below which Spike counts a strategy as holding no
// buffer.
const SpikeFloor = bench.SpikeFloor

// RetainedX is bench.RetainedX, Spike's retained-x.
func RetainedX(retained, steady float64) float64 { return bench.RetainedX(retained, steady) }
