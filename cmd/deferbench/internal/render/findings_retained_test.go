package render

import (
	"strings"
	"testing"
)

// TestFindingsRetainedWithinTolerance: Spike's retained-x of strategies that hold the same heap
// after a spike, apart by a few hundred bytes of a collection's timing (1.2500 against 1.2503
// of the steady heap, every sample alike), are one group, not ranked one after another on
// ratios of 1.0001; a strategy a hundredth or more apart is not in it.
func TestFindingsRetainedWithinTolerance(t *testing.T) {
	const n = 10
	same := func(v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v + float64(i%2)*1e-6
		}
		return out
	}
	m := metricRun{name: "Spike/strategy=%s/spike=1048576/frames=40-2", unit: "retained-x",
		order: []string{"handrolled", "versioned", "hybrid", "cmdbuffer"},
		vals: map[string][]float64{
			"handrolled": same(1.17),
			"versioned":  same(1.2500),
			"hybrid":     same(1.2501),
			"cmdbuffer":  same(1.2503),
		}}
	checkGroupsHonest(t, parse(t, m.text()))
	sec := section(reportOf(t, m.text()), "### Spike spike=1048576 frames=40: retained-x")
	if !strings.Contains(sec, "**handrolled**, then versioned ≈ hybrid ≈ cmdbuffer.") {
		t.Errorf("1.2500, 1.2501 and 1.2503: want one group after handrolled:\n%s", sec)
	}
}
