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
