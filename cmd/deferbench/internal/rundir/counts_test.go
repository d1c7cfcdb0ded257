package rundir

import (
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
)

// TestCountPlan: the count tier counts a plan's single-goroutine cases at GOMAXPROCS=1 (Stage
// timed at GOMAXPROCS=2 is counted under its GOMAXPROCS=1 name and not listed as left out),
// and lists Contention, whose work depends on scheduling, with the reason.
func TestCountPlan(t *testing.T) {
	sc, err := harness.SelectScenarios([]string{"Stage", "Contention"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := harness.SelectStrategies([]string{"baseline", "cmdbuffer"})
	if err != nil {
		t.Fatal(err)
	}
	opt := harness.Options{Scenarios: sc, Strategies: st, Quick: true, Count: 1, Procs: []int{2}}.Planned()
	cases, left := CountPlan(opt)
	if len(cases) == 0 {
		t.Fatal("nothing counted")
	}
	for _, c := range cases {
		if c.Scenario != "Stage" || c.Procs != 1 || harness.Countable(c) != nil {
			t.Errorf("counted %s at GOMAXPROCS=%d", c.FullName(), c.Procs)
		}
	}
	if len(left) == 0 {
		t.Fatal("Contention not listed as left out")
	}
	for _, u := range left {
		if !strings.HasPrefix(u.Name, "Contention/") || !strings.Contains(u.Reason, "scheduling") {
			t.Errorf("left out %s: %q; want only Contention, with the reason", u.Name, u.Reason)
		}
	}
	if got := (Measure{Instructions: true, CacheSim: true}).String(); got != "time,instructions,cachesim" {
		t.Errorf("Measure.String = %q", got)
	}
}

// TestCountPlanLeavesLargeWorlds: a full plan's Frame counts its worlds up to 10,000 entities
// and lists the larger ones as left out for cost, with the reason.
func TestCountPlanLeavesLargeWorlds(t *testing.T) {
	sc, err := harness.SelectScenarios([]string{"Frame"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := harness.SelectStrategies([]string{"cmdbuffer"})
	if err != nil {
		t.Fatal(err)
	}
	cases, left := CountPlan(harness.Options{Scenarios: sc, Strategies: st, Count: 1, Procs: []int{1}}.Planned())
	var counted []string
	for _, c := range cases {
		counted = append(counted, c.Name)
	}
	// Frame runs on both storages (archetypes at 10,000 and 100,000 entities only).
	want := []string{"entities=1000", "entities=10000", "entities=10000/storage=archetypes"}
	if len(counted) != len(want) {
		t.Errorf("counted %v; want the worlds of 1000 and 10000 entities on both storages", counted)
	}
	for i := range min(len(counted), len(want)) {
		if !strings.HasSuffix(counted[i], "/"+want[i]) {
			t.Errorf("counted %v; want the worlds of 1000 and 10000 entities on both storages", counted)
			break
		}
	}
	if len(left) != 3 {
		t.Fatalf("left out %v; want the worlds of 100000 and 1000000 entities", left)
	}
	for _, u := range left {
		if !strings.Contains(u.Name, "entities=100000") { // 100000 and 1000000
			t.Errorf("left out %s; want only the worlds above 10000 entities", u.Name)
		}
	}
	for _, u := range left {
		if !strings.Contains(u.Reason, "cost") {
			t.Errorf("left out %s: %q; want the reason to name the cost", u.Name, u.Reason)
		}
	}
}
