package harness

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance/bench"
	"golang.org/x/perf/benchfmt"
)

// sizingScenario is one case whose body sleeps the first slowCalls calls for sleep (a
// page-fault storm, a cold cache), and spins spin per iteration while *slowOps is set.
func sizingScenario(slowCalls int, sleep time.Duration, slowOps *atomic.Bool, spin time.Duration) []Scenario {
	var calls atomic.Int64
	var sink int
	return []Scenario{{
		Scenario: suite.Scenario{Name: "Sizing"},
		Variants: func(VariantConfig) []Variant { return []Variant{{}} },
		Bench: func(StrategyInfo, Variant) BenchFunc {
			return func(b bench.B) error {
				if calls.Add(1) <= int64(slowCalls) {
					time.Sleep(sleep)
				}
				for i := range b.N() {
					if slowOps.Load() {
						for start := time.Now(); time.Since(start) < spin; {
						}
					}
					sink += i
				}
				return nil
			}
		},
	}}
}

func runSizing(t *testing.T, sc []Scenario, count int, benchtime string, each func(int)) []*benchfmt.Result {
	t.Helper()
	bt, err := ParseBenchtime(benchtime)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Scenarios: sc, Strategies: Strategies[:1], Count: count, Benchtime: bt, Procs: []int{1}}
	var got []*benchfmt.Result
	err = Run(context.Background(), opt, func(r *benchfmt.Result) error {
		got = append(got, r)
		each(len(got))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != count {
		t.Fatalf("%d results; want %d", len(got), count)
	}
	return got
}

// TestRunSlowFirstCall: when the first call of a benchmark outlasts the benchtime on its own
// (go test then stops its ramp at b.N = 1), the later repetitions still size b.N to the
// benchtime instead of all running 1x.
func TestRunSlowFirstCall(t *testing.T) {
	var never atomic.Bool
	got := runSizing(t, sizingScenario(1, 60*time.Millisecond, &never, 0), 3, "20ms", func(int) {})
	for i, r := range got[1:] {
		if r.Iters <= 1 {
			t.Errorf("repetition %d ran %d iteration(s) after a slow first call; want b.N sized to the benchtime", i+2, r.Iters)
		}
	}
}

// TestRunResizesAfterSlowSizing: a repetition at the fixed iteration count that runs far
// shorter than the benchtime (the first repetition's ramp was slowed throughout) makes the
// next repetition size b.N again.
func TestRunResizesAfterSlowSizing(t *testing.T) {
	var slow atomic.Bool
	slow.Store(true)
	got := runSizing(t, sizingScenario(0, 0, &slow, 20*time.Microsecond), 3, "20ms", func(n int) { slow.Store(false) })
	if got[2].Iters < 10*got[1].Iters {
		t.Errorf("repetitions ran %d, %d, %d iterations: after a repetition far shorter than the benchtime, the next should size b.N again (want ≥ 10× the second's)",
			got[0].Iters, got[1].Iters, got[2].Iters)
	}
}

func TestNextIters(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		fixed, n int
		took     time.Duration
		want     int
	}{
		{0, 1000, 10 * ms, 5000},    // a ramp: 50ms at 10µs/op
		{0, 1, 80 * ms, 0},          // a ramp stopped at one call sizes nothing
		{5000, 5000, 50 * ms, 5000}, // 50ms as planned: kept
		{5000, 5000, 20 * ms, 0},    // 20ms: under half the benchtime, ramp again
		{5000, 5000, 150 * ms, 0},   // 150ms: over twice, ramp again
		{0, 10, 0, 0},               // no time measured
	} {
		if got := nextIters(c.fixed, c.n, c.took, 50*ms); got != c.want {
			t.Errorf("nextIters(%d, %d iters in %v) = %d; want %d", c.fixed, c.n, c.took, got, c.want)
		}
	}
}

// TestStallErrorKeepsSmallBounds: a stall bound under a second is printed as given, not
// rounded to "0s" (-stall-after 1ms read "no progress for 0s (bound 0s)").
func TestStallErrorKeepsSmallBounds(t *testing.T) {
	e := &StallError{Stalls: []Stall{{Name: "Stage/strategy=x-2", After: 1500 * time.Microsecond, Bound: time.Millisecond}, {Name: "Y-2", After: 31400 * time.Millisecond, Bound: 30 * time.Second}}}
	want := "stalled: Stage/strategy=x-2 made no progress for 1.5ms (bound 1ms); Y-2 made no progress for 31s (bound 30s)"
	if e.Error() != want {
		t.Errorf("%q, want %q", e.Error(), want)
	}
}
