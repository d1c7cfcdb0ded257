package harness

import (
	"strings"
	"testing"
)

// Param is one key=value element of a sub-benchmark name.
type Param struct{ Key, Value string }

// Variant is one sub-benchmark of a scenario, before the strategy is chosen: its name
// parameters and the scenario's own argument.
type Variant struct {
	Params []Param
	Arg    any
}

// BenchFunc is one benchmark body. It returns an error when the strategy fails the workload (a
// commit error, say); the runner then stops and reports it. ns/op is per Unit.
type BenchFunc func(b *testing.B) error

// Scenario is a family of sub-benchmarks, each run for every selected strategy.
type Scenario struct {
	// Name is the benchmark name after the Benchmark prefix.
	Name string
	// Description is one line for `deferbench list` and the README.
	Description string
	// Variants lists the sub-benchmarks; quick selects the smallest sizes.
	Variants func(quick bool) []Variant
	// Bench returns the body of variant v for strategy s, or nil when s cannot run this
	// scenario (the baseline in a scenario that needs a deferral.Strategy, for instance).
	Bench func(s StrategyInfo, v Variant) BenchFunc
}

// Scenarios is the scenario table, in run order.
var Scenarios = []Scenario{
	stageScenario,
	stageApplyScenario,
	frameScenario,
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

// Case is one sub-benchmark for one strategy: what the runner times.
type Case struct {
	// Name is the benchmark name without the Benchmark prefix and the -GOMAXPROCS suffix:
	// <Scenario>/strategy=<s>/<key>=<value>...
	Name     string
	Scenario string
	Strategy string
	Run      BenchFunc
}

// Plan lists the cases of the given scenarios and strategies in the order one repetition runs
// them: scenario by scenario, variant by variant, and within a variant every strategy in table
// order, so that machine drift hits all strategies alike.
func Plan(scenarios []Scenario, strategies []StrategyInfo, quick bool) []Case {
	var cases []Case
	for _, sc := range scenarios {
		for _, v := range sc.Variants(quick) {
			for _, st := range strategies {
				f := sc.Bench(st, v)
				if f == nil {
					continue
				}
				var name strings.Builder
				name.WriteString(sc.Name)
				name.WriteString("/strategy=")
				name.WriteString(st.Name)
				for _, p := range v.Params {
					name.WriteString("/" + p.Key + "=" + p.Value)
				}
				cases = append(cases, Case{Name: name.String(), Scenario: sc.Name, Strategy: st.Name, Run: f})
			}
		}
	}
	return cases
}
