// Package lineup is what a user writes to benchmark a strategy of their own beside a
// deferbench run: one top-level benchmark per scenario, named as the run names it, each a call
// of the conformance benchmark. TestLineUp (cmd/deferbench/lineup_test.go) runs it with go test
// -bench. "mine" is cmdbuffer under another name, standing for a user's strategy; the
// baseline rows (nil) and cmdbuffer are the run's own, measured through the same bodies.
package lineup_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

// mine is cmdbuffer under the name "mine".
type mine struct{ deferral.Strategy }

func (mine) Name() string { return "mine" }

func factory(w *ecs.World) deferral.Strategy { return mine{cmdbuffer.Factory(w)} }

// strategies are the rows: the baseline, a built-in strategy and a user's.
var strategies = []conformance.Factory{nil, cmdbuffer.Factory, factory}

func BenchmarkStage(b *testing.B) {
	for _, f := range strategies {
		conformance.BenchmarkStage(b, f)
	}
}

func BenchmarkStageApply(b *testing.B) {
	for _, f := range strategies {
		conformance.BenchmarkStageApply(b, f)
	}
}

func BenchmarkContention(b *testing.B) {
	for _, f := range strategies {
		conformance.BenchmarkContention(b, f)
	}
}
