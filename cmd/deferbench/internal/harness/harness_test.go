package harness

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/ecs"
	"golang.org/x/perf/benchfmt"
)

func TestPlanInterleavesStrategies(t *testing.T) {
	sc, err := SelectScenarios([]string{"Stage"})
	if err != nil {
		t.Fatal(err)
	}
	var inStage []StrategyInfo // all but the controls of other scenarios
	for _, st := range Strategies {
		if st.ControlOf == "" || st.ControlOf == "Stage" {
			inStage = append(inStage, st)
		}
	}
	cases := Plan(sc, Strategies, false, []int{2})
	if len(cases) != 3*len(inStage) {
		t.Fatalf("Plan(Stage) has %d cases, want %d", len(cases), 3*len(inStage))
	}
	for i, c := range cases {
		want := inStage[i%len(inStage)].Name
		if c.Strategy != want {
			t.Errorf("case %d (%s) is strategy %s, want %s: strategies must alternate within a variant", i, c.Name, c.Strategy, want)
		}
		if !strings.HasPrefix(c.Name, "Stage/strategy="+c.Strategy+"/cmd=") {
			t.Errorf("case %d name %q, want Stage/strategy=%s/cmd=…", i, c.Name, c.Strategy)
		}
	}
}

func TestEveryStrategyInEveryScenario(t *testing.T) {
	for _, sc := range Scenarios {
		if sc.ReferencesOnly {
			continue
		}
		for _, st := range Strategies {
			if st.Baseline() {
				continue
			}
			for _, v := range sc.Variants(VariantConfig{Quick: true}) {
				if sc.Bench(st, v) == nil {
					t.Errorf("scenario %s skips strategy %s", sc.Name, st.Name)
				}
			}
		}
	}
}

func TestSelectUnknown(t *testing.T) {
	_, err := SelectStrategies([]string{"cmdbuffer", "nope"})
	if err == nil || !strings.Contains(err.Error(), `unknown strategy "nope" (valid: baseline, cmdbuffer`) {
		t.Errorf("SelectStrategies(nope) = %v, want an error naming nope and the valid names", err)
	}
	_, err = SelectScenarios([]string{"Nope"})
	if err == nil || !strings.Contains(err.Error(), `unknown scenario "Nope" (valid: Stage,`) {
		t.Errorf("SelectScenarios(Nope) = %v, want an error naming Nope and the valid names", err)
	}
}

// TestRunAll times every case of the quick suite for a few iterations: each strategy runs
// every scenario without error, and every result has the three units.
func TestRunAll(t *testing.T) {
	opt := Options{Scenarios: Scenarios, Strategies: Strategies, Quick: true, Count: 1, Benchtime: Benchtime{N: 3}, Procs: []int{1, 2}}
	if testing.Short() {
		opt.Procs = []int{2}
	}
	var got []*benchfmt.Result
	var events int
	opt.Progress = func(Event) { events++ }
	err := Run(context.Background(), opt, func(r *benchfmt.Result) error { got = append(got, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != opt.Total() || events != 2*opt.Total() {
		t.Fatalf("Run emitted %d results and %d events, want %d and %d", len(got), events, opt.Total(), 2*opt.Total())
	}
	suffixed, noops := 0, 0
	defer func() {
		if noops == 0 {
			t.Errorf("no Contention/strategy=%s result: the control row is missing", NoopName)
		}
		if suffixed == 0 || (len(opt.Procs) > 1 && suffixed == len(got)) {
			t.Errorf("%d of %d results have the -2 suffix; want some (and, with GOMAXPROCS=1 too, not all)", suffixed, len(got))
		}
	}()
	for _, r := range got {
		name := string(r.Name)
		if strings.HasSuffix(name, "-2") {
			suffixed++
		} else if regexp.MustCompile(`-[0-9]+$`).MatchString(name) {
			t.Errorf("%s: unexpected suffix (want -2, or none at GOMAXPROCS=1)", name)
		}
		if strings.Contains(name, "/strategy="+NoopName+"/") {
			noops++
			if !strings.HasPrefix(name, "Contention/") {
				t.Errorf("%s: the noop control runs only in Contention", name)
			}
		}
		if strings.HasPrefix(name, "Peer/") && !strings.HasPrefix(name, "Peer/strategy=ecs/") && !strings.HasPrefix(name, "Peer/strategy=ark/") && !strings.Contains(name, "/op=w") {
			t.Errorf("%s: Peer runs only the ecs and ark reference rows, and strategies in W1-W3", name)
		}
		if strings.HasPrefix(name, "Contention/") {
			eff, ok := r.Value("efficiency")
			if !ok {
				t.Errorf("%s lacks efficiency", name)
			} else if strings.Contains(name, "/producers=1") && eff != 1 {
				t.Errorf("%s: efficiency %v at producers=1, want 1", name, eff)
			}
			if _, ok := r.Value("cmds/s"); !ok {
				t.Errorf("%s lacks cmds/s", name)
			}
		}
		for _, u := range []string{"ns/op", "B/op", "allocs/op"} {
			if _, ok := r.Value(u); !ok {
				t.Errorf("%s lacks %s", name, u)
			}
		}
		if r.Iters != 3 && !strings.HasPrefix(name, "Determinism/") {
			t.Errorf("%s ran %d iterations, want 3 (benchtime 3x)", name, r.Iters)
		}
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	opt := Options{Scenarios: Scenarios[:1], Strategies: Strategies, Count: 2, Benchtime: Benchtime{N: 2}}
	n := 0
	err := Run(ctx, opt, func(*benchfmt.Result) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("Run after cancel: %d results, err %v; want 1 result and context.Canceled", n, err)
	}
}

// TestCapabilitiesLines: the lines a run writes declare what each strategy's own
// Capabilities method returns, read back as results.Capabilities reads them; rows that are
// not strategies declare nothing.
func TestCapabilitiesLines(t *testing.T) {
	var rs []*benchfmt.Result
	r := &benchfmt.Result{Name: benchfmt.Name("Stage/strategy=cmdbuffer/cmd=typed"), Iters: 1}
	for _, c := range Capabilities(Strategies) {
		r.Config = append(r.Config, benchfmt.Config{Key: c.Key, Value: []byte(c.Value), File: true})
	}
	rs = append(rs, r)
	got := results.Capabilities(rs)
	n := 0
	for _, s := range Strategies {
		if s.Factory == nil {
			if _, ok := got[s.Name]; ok {
				t.Errorf("%s is not a strategy but declares capabilities", s.Name)
			}
			continue
		}
		n++
		st := s.Factory(ecs.NewWorld())
		want := st.Capabilities()
		st.Close()
		if got[s.Name] != want {
			t.Errorf("%s: bench.txt declares %+v, the strategy %+v", s.Name, got[s.Name], want)
		}
	}
	if len(got) != n {
		t.Errorf("%d strategies declared, want %d", len(got), n)
	}
}

// TestTablesMatchSuite: the harness runs exactly the scenarios and strategies package suite
// declares, in its order, so the reports' declarations and the runs never drift apart.
func TestTablesMatchSuite(t *testing.T) {
	if len(Scenarios) != len(suite.Scenarios) {
		t.Fatalf("%d scenarios, suite declares %d", len(Scenarios), len(suite.Scenarios))
	}
	for i, s := range Scenarios {
		if s.Name != suite.Scenarios[i].Name || s.Description != suite.Scenarios[i].Description {
			t.Errorf("scenario %d: %s, suite declares %s", i, s.Name, suite.Scenarios[i].Name)
		}
	}
	if len(Strategies) != len(suite.Strategies) {
		t.Fatalf("%d strategies, suite declares %d", len(Strategies), len(suite.Strategies))
	}
	for i, s := range Strategies {
		if s.Strategy != suite.Strategies[i] {
			t.Errorf("strategy %d: %+v, suite declares %+v", i, s.Strategy, suite.Strategies[i])
		}
	}
}

// TestStorageRows: StageApply, Structural, Spike and Peer plan every slots row under its name without a storage
// parameter and a twin with storage=archetypes (Ark only there: it is an archetype ECS);
// OnStorages keeps the rows of the storages asked for and every row that does not depend on
// one.
func TestStorageRows(t *testing.T) {
	sc, err := SelectScenarios([]string{"Stage", "StageApply", "Structural", "Spike", "Peer"})
	if err != nil {
		t.Fatal(err)
	}
	cases := Plan(sc, Strategies, true, []int{1})
	names := map[string]bool{}
	for _, c := range cases {
		names[c.Name] = true
	}
	for _, c := range cases {
		arch := strings.HasSuffix(c.Name, "/storage=archetypes")
		switch {
		case c.Scenario == "Stage":
			if c.Storage != "" || strings.Contains(c.Name, "storage=") {
				t.Errorf("%s: storage %q, want none (Stage builds no world per storage)", c.Name, c.Storage)
			}
		case arch != (c.Storage == "archetypes") || (!arch && c.Storage != "slots"):
			t.Errorf("%s: Storage %q disagrees with its name", c.Name, c.Storage)
		case arch && c.Strategy != suite.PeerArk && !names[strings.TrimSuffix(c.Name, "/storage=archetypes")]:
			t.Errorf("%s has no slots twin", c.Name)
		case !arch && c.Strategy == suite.PeerArk:
			t.Errorf("%s: Ark runs on slots", c.Name)
		case !arch && !names[c.Name+"/storage=archetypes"]:
			t.Errorf("%s has no archetypes twin", c.Name)
		}
	}
	for _, keep := range [][]ecs.Storage{{ecs.Slots}, {ecs.Archetypes}} {
		got := OnStorages(cases, keep)
		for _, c := range got {
			if c.Storage != "" && c.Storage != keep[0].String() {
				t.Errorf("OnStorages(%v) kept %s", keep, c.Name)
			}
		}
		stage := 0
		for _, c := range got {
			if c.Scenario == "Stage" {
				stage++
			}
		}
		if stage == 0 || len(got) == len(cases) {
			t.Errorf("OnStorages(%v): %d of %d cases, %d of Stage", keep, len(got), len(cases), stage)
		}
	}
	if got := OnStorages(cases, nil); len(got) != len(cases) {
		t.Errorf("OnStorages(nil) kept %d of %d cases", len(got), len(cases))
	}
}
