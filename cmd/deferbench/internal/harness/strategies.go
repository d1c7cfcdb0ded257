package harness

import (
	"fmt"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/strategies/versioned"
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

// Strategies is the strategy table, in the order of suite.Strategies.
var Strategies = []StrategyInfo{
	{Strategy: suite.Baseline},
	{Strategy: suite.CmdBuffer, Factory: cmdbuffer.Factory},
	{Strategy: suite.LazyGuarded, Factory: lazyguarded.Factory},
	{Strategy: suite.LazyGuardedPass, Factory: lazyguarded.FactoryPass},
	{Strategy: suite.HandRolled, Factory: handrolled.Factory},
	{Strategy: suite.Hybrid, Factory: hybrid.Factory, FrameStepper: hybridFrame},
	{Strategy: suite.Versioned, Factory: versioned.Factory},
	{Strategy: suite.Noop},
	{Strategy: suite.ECS},
	{Strategy: suite.Ark},
}

// Capabilities returns the configuration lines that declare the capabilities of the
// strategies in sts, as bench.txt carries them (results.CapabilityConfig), built from an
// instance of each over an empty world; rows that are not strategies have none.
func Capabilities(sts []StrategyInfo) []results.Config {
	var cfg []results.Config
	for _, s := range sts {
		if s.Factory == nil {
			continue
		}
		st := s.Factory(ecs.NewWorld())
		cfg = append(cfg, results.CapabilityConfig(s.Name, st.Capabilities())...)
		st.Close()
	}
	return cfg
}

// StrategyNames returns the names in Strategies, in order.
func StrategyNames() []string {
	names := make([]string, len(Strategies))
	for i, s := range Strategies {
		names[i] = s.Name
	}
	return names
}

// SelectStrategies returns the strategies named in names (all of them when names is empty), in
// table order. An unknown name is an error naming it and the valid names.
func SelectStrategies(names []string) ([]StrategyInfo, error) {
	return selectByName(Strategies, names, "strategy", func(s StrategyInfo) string { return s.Name })
}

func selectByName[T any](table []T, names []string, what string, name func(T) string) ([]T, error) {
	if len(names) == 0 {
		return append([]T(nil), table...), nil
	}
	want := map[string]bool{}
	for _, n := range names {
		found := false
		for _, t := range table {
			if name(t) == n {
				found = true
				break
			}
		}
		if !found {
			valid := make([]string, len(table))
			for i, t := range table {
				valid[i] = name(t)
			}
			return nil, fmt.Errorf("unknown %s %q (valid: %s)", what, n, strings.Join(valid, ", "))
		}
		want[n] = true
	}
	var out []T
	for _, t := range table {
		if want[name(t)] {
			out = append(out, t)
		}
	}
	return out, nil
}

// hybridFrame runs the particle frame as hybrid's static task graph: movement, lifetime,
// cleanup, the decide nodes in parallel, the derived flush node, a render read.
func hybridFrame(st deferral.Strategy, producers int, decide workload.ParallelDecisions) (func(float64) error, error) {
	h, ok := st.(*hybrid.ECS)
	if !ok {
		return nil, fmt.Errorf("hybrid frame: strategy is %T, want *hybrid.ECS", st)
	}
	pf, err := workload.NewGraphFrame(h, producers, workload.NewView, decide)
	if err != nil {
		return nil, err
	}
	return pf.Step, nil
}
