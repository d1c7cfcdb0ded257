package harness

import (
	"strconv"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/ecs"
)

var spikeScenario = Scenario{
	Scenario: suite.Spike,
	Variants: func(cfg VariantConfig) []Variant {
		n := bench.SpikeSize
		if cfg.Quick {
			n = 1 << 16
		}
		params := []Param{{"spike", strconv.Itoa(n)}, {"frames", strconv.Itoa(bench.SpikeFrames)}}
		vs := []Variant{
			{Params: params, Arg: spikeArg{n: n}},
			{Params: append(params[:2:2], Param{"tier", "closure"}), Arg: spikeArg{n: n, closures: true}},
		}
		// Both tiers on both storages: on slots as go test's conformance.BenchmarkSpike names
		// them, on archetypes with storage=archetypes (the targets' columns are a table's).
		return onStorages(vs, func(v Variant, st ecs.Storage) any { a := v.Arg.(spikeArg); a.storage = st; return a })
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // the baseline's slice has no shrink policy to measure
		}
		a := v.Arg.(spikeArg)
		if a.closures {
			return func(b bench.B) error { return bench.SpikeClosuresOn(b, s.Factory, a.n, a.storage) }
		}
		return func(b bench.B) error { return bench.SpikeOn(b, s.Factory, a.n, a.storage) } // as conformance.BenchmarkSpike on slots
	},
}

// spikeArg is a Spike variant: the spike's size, in commands, whether they are closures, and
// the world's storage.
type spikeArg struct {
	n        int
	closures bool
	storage  ecs.Storage
}

// SpikeFloor is bench.SpikeFloor: the heap below which Spike counts a strategy as holding no
// buffer.
const SpikeFloor = bench.SpikeFloor

// RetainedX is bench.RetainedX, Spike's retained-x.
func RetainedX(retained, steady float64) float64 { return bench.RetainedX(retained, steady) }
