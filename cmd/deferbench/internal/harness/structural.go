package harness

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/ecs"
)

var structuralScenario = Scenario{
	Scenario: suite.Structural,
	// Both workloads on both storages: on slots no row moves, on archetypes (storage=archetypes)
	// the rows report moves/op, what each strategy's commit does with an entity's adjacent
	// commands. The quick run runs the same variants: there is no smaller size to choose.
	Variants: func(VariantConfig) []Variant {
		var vs []Variant
		for _, wl := range bench.StructuralWorkloads {
			vs = append(vs, Variant{Params: []Param{{"workload", wl}}})
		}
		return onStorages(vs, func(v Variant, s ecs.Storage) any { return structuralArg{workload: v.Params[0].Value, storage: s} })
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // the workload measures a strategy's commit
		}
		a := v.Arg.(structuralArg)
		return func(b bench.B) error { return bench.Structural(b, s.Factory, a.workload, a.storage, &publishHook{}) }
	},
}

// structuralArg is a Structural variant: the workload and the world's storage.
type structuralArg struct {
	workload string
	storage  ecs.Storage
}
