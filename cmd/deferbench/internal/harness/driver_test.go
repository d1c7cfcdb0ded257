package harness

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/deferbench/deferbench/conformance/bench"
)

var driverSink []*int

// TestDriverCallsAsTesting: at a count the body runs once at 1 iteration and once at the
// count, as testing.Benchmark does at -benchtime Nx; at a duration the counts grow until a
// call's timed part reaches it, and the result is the last call's.
func TestDriverCallsAsTesting(t *testing.T) {
	var calls []int
	body := func(b bench.B) error {
		calls = append(calls, b.N())
		for range b.N() {
			time.Sleep(10 * time.Microsecond)
		}
		return nil
	}
	d := &driver{body: body}
	if err := d.run(Benchtime{N: 7}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []int{1, 7}) || d.n != 7 {
		t.Errorf("at 7x: calls %v, last N %d; want [1 7], 7", calls, d.n)
	}
	calls = nil
	d = &driver{body: body}
	if err := d.run(Benchtime{D: 5 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if len(calls) < 2 || calls[0] != 1 || !slices.IsSorted(calls) || d.n != calls[len(calls)-1] {
		t.Errorf("at 5ms: calls %v, last N %d; want a growing ramp from 1 ending at the last N", calls, d.n)
	}
	if d.duration < 5*time.Millisecond {
		t.Errorf("at 5ms: the last call took %v, below the benchtime", d.duration)
	}
	if f := flag.Lookup("test.benchtime"); f != nil && f.Value.String() != f.DefValue {
		t.Errorf("test.benchtime is %s, want its default %s untouched", f.Value, f.DefValue)
	}
}

// TestDriverTimesOnlyTheTimer: what a body does with its timer stopped (set-up that sleeps and
// allocates) counts neither in ns/op nor in allocs/op, and what it reports is kept.
func TestDriverTimesOnlyTheTimer(t *testing.T) {
	c := Case{Name: "X", Run: func(b bench.B) error {
		b.StopTimer()
		time.Sleep(2 * time.Millisecond)
		for range 1000 {
			driverSink = append(driverSink, new(int))
		}
		b.StartTimer()
		for range b.N() {
			driverSink = append(driverSink[:0], new(int))
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N()), "n")
		return nil
	}}
	res, err := measure(c, "X", Benchtime{N: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if ns, _ := res.Value("ns/op"); ns*1000 >= float64(2*time.Millisecond) {
		t.Errorf("ns/op %v includes the stopped timer's 2ms", ns)
	}
	if a, _ := res.Value("allocs/op"); a < 1 || a > 1.1 {
		t.Errorf("allocs/op %v; want 1 (the set-up's 1000 allocations are untimed)", a)
	}
	if n, _ := res.Value("n"); n != 1000 || res.Iters != 1000 {
		t.Errorf("reported n %v, iterations %d; want 1000", n, res.Iters)
	}
}
