package rundir

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/ecs"
)

// TestStoragesIgnoredWarns: -storages over scenarios none of which depends on the world's
// storage is named as changing nothing, with the scenarios that do; with one that does, or
// without -storages, nothing is said.
func TestStoragesIgnoredWarns(t *testing.T) {
	plan := func(scenarios []string, storages []ecs.Storage) harness.Options {
		sc, err := harness.SelectScenarios(scenarios)
		if err != nil {
			t.Fatal(err)
		}
		st, err := harness.SelectStrategies([]string{"cmdbuffer"})
		if err != nil {
			t.Fatal(err)
		}
		return harness.Options{Scenarios: sc, Strategies: st, Quick: true, Count: 1, Storages: storages}.Planned()
	}
	w := storagesIgnored(plan([]string{"Stage", "Contention"}, []ecs.Storage{ecs.Archetypes}))
	for _, want := range []string{"-storages archetypes changes nothing", "(Stage, Contention)", "StageApply", "Structural"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	if w := storagesIgnored(plan([]string{"Stage", "StageApply"}, []ecs.Storage{ecs.Archetypes})); w != "" {
		t.Errorf("StageApply runs on archetypes, yet: %q", w)
	}
	if w := storagesIgnored(plan([]string{"Stage"}, nil)); w != "" {
		t.Errorf("no -storages, yet: %q", w)
	}
}

// TestLongPlanWarns: a plan whose timed floor passes an hour says how long at least, with
// the product; a default-sized plan and an iteration-count benchtime say nothing.
func TestLongPlanWarns(t *testing.T) {
	sc, err := harness.SelectScenarios([]string{"Stage"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := harness.SelectStrategies([]string{"cmdbuffer", "hybrid"})
	if err != nil {
		t.Fatal(err)
	}
	opt := harness.Options{Scenarios: sc, Strategies: st, Count: 10}.Planned()
	n := len(opt.Cases)
	opt.Benchtime = harness.Benchtime{D: 2 * time.Hour}
	w := longPlan(opt)
	if !strings.Contains(w, "at least") || !strings.Contains(w, strconv.Itoa(n)+" benchmarks × -count 10 × -benchtime 2h0m0s") {
		t.Errorf("2h benchtime: %q", w)
	}
	opt.Benchtime = harness.Benchtime{D: 50 * time.Millisecond}
	if w := longPlan(opt); w != "" {
		t.Errorf("50ms benchtime: %q", w)
	}
	opt.Benchtime = harness.Benchtime{N: 1 << 30}
	if w := longPlan(opt); w != "" {
		t.Errorf("iteration count: %q", w)
	}
}
