package harness

import (
	"fmt"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/hybrid/hybridframe"
	"github.com/deferbench/deferbench/workload"
)

// StrategyInfo is one row of the strategy table the harness measures: its declaration
// (suite.Strategy) and how to build it. Every scenario runs every strategy in Strategies, so
// adding a strategy to the comparison is one line in that table and one in suite's.
type StrategyInfo struct {
	suite.Strategy
	// Factory makes the strategy over a world. It is nil for the baseline, which is not a
	// deferral.Strategy: scenarios that need a strategy skip it.
	Factory deferral.Factory
	// FrameStepper, when set, drives the Frame scenario the design's own way instead of
	// workload.Sim.StepParallel: it returns a function that runs one frame of dt with
	// producers producers deciding with decide. hybrid runs the frame as its task graph.
	FrameStepper func(st deferral.Strategy, producers int, decide workload.ParallelDecisions) (step func(dt float64) error, err error)
}

// Baseline reports whether s is not a strategy (Factory is nil): the in-run lower bound, or a
// control row (ControlOf set), which its one scenario handles first.
func (s StrategyInfo) Baseline() bool { return s.Factory == nil }

// BaselineName is the name of the in-run lower bound.
const BaselineName = suite.BaselineName

// hybridFrame runs the particle frame as hybrid's static task graph: movement, lifetime,
// cleanup, the decide nodes in parallel, the derived flush node, a render read.
func hybridFrame(st deferral.Strategy, producers int, decide workload.ParallelDecisions) (func(float64) error, error) {
	h, ok := st.(*hybrid.ECS)
	if !ok {
		return nil, fmt.Errorf("hybrid frame: strategy is %T, want *hybrid.ECS", st)
	}
	pf, err := hybridframe.New(h, producers, workload.NewView, decide)
	if err != nil {
		return nil, err
	}
	return pf.Step, nil
}
