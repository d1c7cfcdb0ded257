package harness

import (
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/conformance/bench"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/ecs"
	"golang.org/x/perf/benchfmt"
)

// Param is one key=value element of a sub-benchmark name.
type Param struct{ Key, Value string }

// Variant is one sub-benchmark of a scenario, before the strategy is chosen: its name
// parameters and the scenario's own argument.
type Variant struct {
	Params []Param
	Arg    any
	// Procs, when not 0, is the GOMAXPROCS this variant runs at (a scenario that sweeps
	// GOMAXPROCS itself); 0 runs it at every value of the run's -procs list.
	Procs int
	// Storage is the ecs.Storage name ("slots" or "archetypes") of the world the variant
	// builds, or "" when it does not depend on one; Options.Storages selects by it.
	Storage string
}

// StorageParam is the name parameter of the rows measured on archetype storage:
// storage=archetypes. Rows on slots storage, the ecs.NewWorld default, carry no storage
// parameter, so they keep the names go test's conformance.Benchmark* give them (a user's
// benchmark lines up with a run) and the names of runs made before archetype storage existed.
const StorageParam = "storage"

// onStorages returns each variant of vs once per storage: as given on ecs.Slots, and with
// storage=archetypes appended to its parameters on ecs.Archetypes; arg makes each one's Arg.
func onStorages(vs []Variant, arg func(v Variant, s ecs.Storage) any) []Variant {
	var out []Variant
	for _, s := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		for _, v := range vs {
			v.Storage = s.String()
			if s != ecs.Slots {
				v.Params = append(slices.Clip(v.Params), Param{StorageParam, s.String()})
			}
			v.Arg = arg(v, s)
			out = append(out, v)
		}
	}
	return out
}

// VariantConfig is what a scenario's variants depend on.
type VariantConfig struct {
	Quick bool  // smallest sizes only
	Procs []int // the GOMAXPROCS values the user asked for; nil means the scenario's default
}

// BenchFunc is one benchmark body. It returns an error when the strategy fails the workload (a
// commit error, say); the runner then stops and reports it. ns/op is per Unit.
type BenchFunc func(b bench.B) error

// Scenario is a family of sub-benchmarks, each run for every selected strategy: its
// declaration (name, description, headlines, charts: suite.Scenario) and how to run it.
type Scenario struct {
	suite.Scenario
	// Variants lists the sub-benchmarks.
	Variants func(cfg VariantConfig) []Variant
	// Bench returns the body of variant v for strategy s, or nil when s cannot run this
	// scenario (the baseline in a scenario that needs a deferral.Strategy, for instance).
	Bench func(s StrategyInfo, v Variant) BenchFunc
	// ReferencesOnly marks a scenario that runs no strategy, only the reference rows of the
	// strategy table that name it in ControlOf (Peer: the worlds themselves).
	ReferencesOnly bool
	// Derive, when set, adds metrics to a result computed from results measured earlier in
	// the same repetition; earlier(name) returns one by full name (with the -N suffix).
	Derive func(r *benchfmt.Result, earlier func(name string) *benchfmt.Result)
}

// Case is one sub-benchmark for one strategy: what the runner times.
type Case struct {
	// Name is the benchmark name without the Benchmark prefix and the -GOMAXPROCS suffix:
	// <Scenario>/strategy=<s>/<key>=<value>...
	Name     string
	Scenario string
	Strategy string
	Procs    int // GOMAXPROCS
	Run      BenchFunc
	Storage  string // its Variant's Storage
	Derive   func(r *benchfmt.Result, earlier func(name string) *benchfmt.Result)
}

// FullName returns the benchmark name without the Benchmark prefix: Name plus the
// -GOMAXPROCS suffix, which is absent at GOMAXPROCS=1 as in go test.
func (c Case) FullName() string {
	if c.Procs == 1 {
		return c.Name
	}
	return c.Name + "-" + strconv.Itoa(c.Procs)
}

// Plan lists the cases of the given scenarios and strategies in the order one repetition runs
// them: scenario by scenario, variant by variant, GOMAXPROCS value by value, and within that
// every strategy in table order, so that machine drift hits all strategies alike. procs is
// the -procs list (nil: the current GOMAXPROCS, and each scenario's own sweep).
func Plan(scenarios []Scenario, strategies []StrategyInfo, quick bool, procs []int) []Case {
	cfg := VariantConfig{Quick: quick, Procs: procs}
	if len(procs) == 0 {
		procs = []int{runtime.GOMAXPROCS(0)}
	}
	var cases []Case
	for _, sc := range scenarios {
		for _, v := range sc.Variants(cfg) {
			ps := procs
			if v.Procs != 0 {
				ps = []int{v.Procs}
			}
			for _, p := range ps {
				for _, st := range strategies {
					if st.ControlOf != "" && st.ControlOf != sc.Name {
						continue
					}
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
					cases = append(cases, Case{Name: name.String(), Scenario: sc.Name, Strategy: st.Name, Procs: p, Run: f, Storage: v.Storage, Derive: sc.Derive})
				}
			}
		}
	}
	return cases
}

// OnStorages returns the cases of cs whose world storage is one of storages, and those that do
// not depend on one; nil storages keeps every case.
func OnStorages(cs []Case, storages []ecs.Storage) []Case {
	if storages == nil {
		return cs
	}
	var out []Case
	for _, c := range cs {
		if c.Storage == "" || slices.ContainsFunc(storages, func(s ecs.Storage) bool { return s.String() == c.Storage }) {
			out = append(out, c)
		}
	}
	return out
}
