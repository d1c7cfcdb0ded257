package harness

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

var stageApplyScenario = Scenario{
	Scenario: suite.StageApply,
	// Every mix runs on both storages: on slots as go test's conformance.BenchmarkStageApply
	// names it, on archetypes with storage=archetypes, where the commits' structural commands
	// move rows between tables and the rows report moves/op.
	Variants: func(VariantConfig) []Variant {
		var vs []Variant
		for _, mix := range bench.StageApplyMixes {
			vs = append(vs, Variant{Params: []Param{{"mix", mix}}})
		}
		return onStorages(vs, func(v Variant, s ecs.Storage) any { return stageApplyArg{mix: v.Params[0].Value, storage: s} })
	},
	// The body is bench.StageApplyOn, the one go test runs through
	// conformance.BenchmarkStageApply (on slots); the harness adds versioned's publish split.
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		a := v.Arg.(stageApplyArg)
		return func(b bench.B) error { return bench.StageApplyOn(b, s.Factory, a.mix, a.storage, &publishHook{}) }
	},
}

// stageApplyArg is a StageApply variant: the mix and the world's storage.
type stageApplyArg struct {
	mix     string
	storage ecs.Storage
}

// publishHook is a publishMeter as a bench.Meter: versioned's publish split (apply-, swap-,
// resync-ns/publish, replica-B/entity) over a body's timed part; nothing for the others.
type publishHook struct{ m publishMeter }

// Start begins measuring st.
func (h *publishHook) Start(st deferral.Strategy) { h.m.start(st) }

// Report stops measuring and reports the metrics.
func (h *publishHook) Report(b bench.B) { h.m.report(b) }
