package harness

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/ecs"
)

// stageBatch is the number of target entities of Stage, Contention, Spike and Readers
// (bench.NewTargets), and how many commands Stage stages before it drops them.
const stageBatch = bench.Targets

// stageTargets returns a world with stageBatch entities having a Position, and those entities.
func stageTargets() (*ecs.World, []ecs.Entity, error) { return bench.NewTargets() }

// sink keeps the results of the harness's own bodies (Readers, Peer) alive so the compiler
// cannot drop the work.
var sink struct{ n int }

var stageScenario = Scenario{
	Scenario: suite.Stage,
	Variants: func(VariantConfig) []Variant {
		var vs []Variant
		for _, cmd := range bench.StageCmds {
			vs = append(vs, Variant{Params: []Param{{"cmd", cmd}}, Arg: cmd})
		}
		return vs
	},
	// The body is bench.Stage, the one go test runs through conformance.BenchmarkStage.
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		cmd := v.Arg.(string)
		return func(b bench.B) error { return bench.Stage(b, s.Factory, cmd) }
	},
}
