package harness

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/deferral"
)

var stageApplyScenario = Scenario{
	Scenario: suite.StageApply,
	Variants: func(VariantConfig) []Variant {
		var vs []Variant
		for _, mix := range bench.StageApplyMixes {
			vs = append(vs, Variant{Params: []Param{{"mix", mix}}, Arg: mix})
		}
		return vs
	},
	// The body is bench.StageApply, the one go test runs through
	// conformance.BenchmarkStageApply; the harness adds versioned's publish split.
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		mix := v.Arg.(string)
		return func(b bench.B) error { return bench.StageApply(b, s.Factory, mix, &publishHook{}) }
	},
}

// publishHook is a publishMeter as a bench.Meter: versioned's publish split (apply-, swap-,
// resync-ns/publish, replica-B/entity) over a body's timed part; nothing for the others.
type publishHook struct{ m publishMeter }

// Start begins measuring st.
func (h *publishHook) Start(st deferral.Strategy) { h.m.start(st) }

// Report stops measuring and reports the metrics.
func (h *publishHook) Report(b bench.B) { h.m.report(b) }
