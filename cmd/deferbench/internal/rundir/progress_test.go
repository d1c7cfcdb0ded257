package rundir

import (
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"golang.org/x/perf/benchfmt"
)

// TestProgressOutsideTerminal: outside a terminal a run of 2,230 results, one every 80 ms
// (3 minutes), prints a line for the first, each 5% and the last (a 10 s gap
// never passes between two 5% steps at this pace): 21 lines, not 2,230, each with an ETA
// but the last; a slow run (a result every 30 s, 40 results) prints a line for each,
// 10 s having passed.
func TestProgressOutsideTerminal(t *testing.T) {
	for _, c := range []struct {
		total int
		every time.Duration
		lines int
	}{
		{2230, 80 * time.Millisecond, 21},
		{40, 30 * time.Second, 40},
	} {
		var b strings.Builder
		p := newProgress(&b, c.total)
		clock := time.Unix(0, 0)
		p.now = func() time.Time { return clock }
		p.start, p.last = clock, clock
		res := &benchfmt.Result{Name: benchfmt.Name("Stage/strategy=cmdbuffer/cmd=typed-2"), Iters: 1,
			Values: []benchfmt.Value{{Value: 18.2e-9, Unit: "sec/op", OrigValue: 18.2, OrigUnit: "ns/op"}}}
		for i := 1; i <= c.total; i++ {
			clock = clock.Add(c.every)
			p.event(harness.Event{Done: i, Total: c.total, Name: "Stage/strategy=cmdbuffer/cmd=typed", Result: res})
		}
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if len(lines) != c.lines {
			t.Errorf("%d results every %v: %d lines, want %d:\n%s", c.total, c.every, len(lines), c.lines, b.String())
			continue
		}
		if !strings.HasPrefix(lines[0], "deferbench: [1/") || !strings.Contains(lines[0], " left") {
			t.Errorf("first line %q: want [1/N] with an estimate of the time left", lines[0])
		}
		if last := lines[len(lines)-1]; !strings.Contains(last, "100%") || strings.Contains(last, "left") {
			t.Errorf("last line %q: want 100%% and no estimate", last)
		}
	}
}
