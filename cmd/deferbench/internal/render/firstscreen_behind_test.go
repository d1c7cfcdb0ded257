package render

import (
	"strings"
	"testing"
)

// TestFirstScreenUndecidedNamesWhatIsBehind: a need noise leaves undecided (most strategies
// in the best group, their p99 read latencies spread over two orders of magnitude) still
// names, on the first screen, the strategy every variant set behind the best — here one whose
// readers wait ten thousand times longer — rather than a bare "undecided".
func TestFirstScreenUndecidedNamesWhatIsBehind(t *testing.T) {
	perm := 0 // each strategy's samples in another order: noise, not a pattern a paired test reads
	spread := func(lo, hi float64) []float64 {
		perm += 2
		out := make([]float64, 10)
		for i := range out {
			out[i] = lo + (hi-lo)*float64((i*(perm+1))%10)/9
		}
		return out
	}
	m := metricRun{name: "Readers/strategy=%s/readers=1-2", unit: "p99-read-ns",
		order: []string{"cmdbuffer", "handrolled", "hybrid", "versioned", "lazyguarded"},
		vals: map[string][]float64{
			"cmdbuffer":   spread(40, 4000),
			"handrolled":  spread(45, 3000),
			"hybrid":      spread(50, 5000),
			"versioned":   spread(42, 3500),
			"lazyguarded": spread(780000, 820000),
		}}
	rep := reportOf(t, m.text())
	var row string
	for _, l := range strings.Split(rep, "\n") {
		if strings.HasPrefix(l, "| Readers:") {
			row = l
		}
	}
	if !strings.Contains(row, "| undecided; not lazyguarded (behind the best in every variant) |") {
		t.Errorf("want the undecided Readers pick to rule out lazyguarded, got %q in:\n%s", row, rep)
	}
}
