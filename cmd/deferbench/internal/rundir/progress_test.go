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

// TestProgressNamesAnOverrun: a benchmark that runs far past its share of the estimate is
// named with how long it has run and its share ("Readers/… running 2m10s, planned 400ms"),
// where the lines printed only as results finish kept naming the one before it and an
// unchanged estimate of the time left; a benchmark within its share prints nothing.
func TestProgressNamesAnOverrun(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, 10)
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.start, p.last = clock, clock
	res := &benchfmt.Result{Name: benchfmt.Name("Contention/strategy=noop/producers=2-4"), Iters: 1,
		Values: []benchfmt.Value{{Value: 10, Unit: "ns/op"}}}
	for i := range 5 {
		p.event(harness.Event{Done: i, Total: 10, Name: "Contention/strategy=noop/producers=2-4"})
		clock = clock.Add(400 * time.Millisecond)
		p.event(harness.Event{Done: i + 1, Total: 10, Name: "Contention/strategy=noop/producers=2-4", Result: res})
	}
	p.event(harness.Event{Done: 5, Total: 10, Name: "Readers/strategy=versioned/readers=2-4"})
	clock = clock.Add(2 * time.Second)
	if p.overrun() {
		t.Errorf("2s into a benchmark (under the %v floor): an overrun line:\n%s", overrunFloor, b.String())
	}
	clock = clock.Add(2*time.Minute + 8*time.Second)
	if !p.overrun() {
		t.Fatalf("2m10s into a benchmark planned 400ms: no overrun line:\n%s", b.String())
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := "deferbench: [6/10] Readers/strategy=versioned/readers=2-4 running 2m10s, planned 400ms; 2m12s so far"
	if got := lines[len(lines)-1]; got != want {
		t.Errorf("overrun line %q, want %q", got, want)
	}
	if p.overrun() {
		t.Errorf("a second overrun line at once; want one per %v", progressEvery)
	}
	p.finish()
}
