package harness

import (
	"fmt"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/strategies/versioned"
)

// Scenarios is the scenario table, in run order.
var Scenarios = []Scenario{
	stageScenario,
	stageApplyScenario,
	structuralScenario,
	frameScenario,
	contentionScenario,
	readersScenario,
	determinismScenario,
	spikeScenario,
	peerScenario,
}

// ScenarioNames returns the names in Scenarios, in order.
func ScenarioNames() []string {
	names := make([]string, len(Scenarios))
	for i, s := range Scenarios {
		names[i] = s.Name
	}
	return names
}

// SelectScenarios returns the scenarios named in names (all when names is empty), in table
// order. An unknown name is an error naming it and the valid names.
func SelectScenarios(names []string) ([]Scenario, error) {
	return selectByName(Scenarios, names, "scenario", func(s Scenario) string { return s.Name })
}

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
