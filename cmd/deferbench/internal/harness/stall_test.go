package harness

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferbench/deferbench/conformance/bench"
	"golang.org/x/perf/benchfmt"
)

// TestRunLeavesStalledBenchmarksBehind: of four cases, one blocks forever once it is asked
// for more than one iteration and one spins until the runner has given up on it (so that it
// does not starve the later cases of this test's one processor); with a 500ms bound both are
// left behind as stalled (named in the error and in a progress event), their second
// repetitions are skipped, and the two others finish both repetitions.
func TestRunLeavesStalledBenchmarksBehind(t *testing.T) {
	var release = make(chan struct{})
	var quit atomic.Bool
	defer close(release)
	quick := func(b bench.B) error {
		for range b.N() {
		}
		return nil
	}
	cases := []Case{
		{Name: "T/strategy=a", Procs: 1, Run: quick},
		{Name: "T/strategy=block", Procs: 1, Run: func(b bench.B) error {
			if b.N() > 1 {
				<-release
			}
			return nil
		}},
		{Name: "T/strategy=spin", Procs: 1, Run: func(b bench.B) error {
			for !quit.Load() {
			}
			return nil
		}},
		{Name: "T/strategy=b", Procs: 1, Run: quick},
	}
	var got []string
	var stalledEvents []string
	opt := Options{Cases: cases, Count: 2, Benchtime: Benchtime{N: 100}, StallAfter: 500 * time.Millisecond,
		Progress: func(e Event) {
			if e.Stall != nil {
				stalledEvents = append(stalledEvents, e.Name)
				if e.Name == "T/strategy=spin" {
					quit.Store(true)
				}
			}
		}}
	t0 := time.Now()
	err := Run(context.Background(), opt, func(r *benchfmt.Result) error {
		got = append(got, string(r.Name))
		return nil
	})
	var se *StallError
	if !errors.As(err, &se) || !errors.Is(err, ErrStalled) {
		t.Fatalf("Run: %v; want a *StallError", err)
	}
	if len(se.Stalls) != 2 || se.Stalls[0].Name != "T/strategy=block" || se.Stalls[1].Name != "T/strategy=spin" {
		t.Fatalf("stalls %+v; want block then spin", se.Stalls)
	}
	for _, s := range se.Stalls {
		if s.Bound < 500*time.Millisecond || s.After <= s.Bound {
			t.Errorf("%s: after %v, bound %v; want a bound of at least the 500ms floor, run past", s.Name, s.After, s.Bound)
		}
	}
	if want := "T/strategy=a T/strategy=b T/strategy=a T/strategy=b"; strings.Join(got, " ") != want {
		t.Errorf("results %q; want %q", got, want)
	}
	if strings.Join(stalledEvents, " ") != "T/strategy=block T/strategy=spin" {
		t.Errorf("stall events %q", stalledEvents)
	}
	if !strings.Contains(err.Error(), "T/strategy=block made no progress for") {
		t.Errorf("error %q does not name the stalled benchmark", err)
	}
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("Run took %v for two 500ms stalls", d)
	}
}

// TestStallBoundFollowsThePrediction: a call predicted (from the previous call's wall time
// per iteration) to take longer than the floor gets 10 times its prediction.
func TestStallBoundFollowsThePrediction(t *testing.T) {
	var w callWatch
	w.begin(1000, 10, 50*time.Millisecond, time.Second) // predicts 5s
	if got := time.Duration(w.bound.Load()); got != 50*time.Second {
		t.Errorf("bound %v; want 50s (10 × 5s)", got)
	}
	w.begin(10, 10, time.Millisecond, time.Second) // predicts 1ms
	if got := time.Duration(w.bound.Load()); got != time.Second {
		t.Errorf("bound %v; want the 1s floor", got)
	}
	w.begin(1, 0, 0, time.Second) // first call: no prediction
	if got := time.Duration(w.bound.Load()); got != time.Second {
		t.Errorf("bound %v; want the 1s floor", got)
	}
}

// TestInterruptLeavesARunningBenchmarkBehind: a run interrupted while a benchmark blocks
// returns within about a second with the context's error.
func TestInterruptLeavesARunningBenchmarkBehind(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	cases := []Case{{Name: "T/strategy=block", Procs: 1, Run: func(b bench.B) error {
		select {
		case started <- struct{}{}:
		default:
		}
		<-release
		return nil
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	t0 := time.Now()
	err := Run(ctx, Options{Cases: cases, Count: 1, Benchtime: Benchtime{N: 1}}, func(*benchfmt.Result) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v; want context.Canceled", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("Run returned %v after the interrupt; want about %v", d, interruptGrace)
	}
}

// TestInterruptStopsWhateverTheBenchtime: an interrupt stops a run whose benchmark honours
// b.N at -benchtime 1000h about interruptGrace later, not when its ramp or its thousand hours
// end: the benchmark, still spinning through its iterations, is left behind.
func TestInterruptStopsWhateverTheBenchtime(t *testing.T) {
	var stop atomic.Bool
	defer stop.Store(true)
	started := make(chan struct{}, 1)
	cases := []Case{{Name: "T/strategy=long", Procs: 1, Run: func(b bench.B) error {
		select {
		case started <- struct{}{}:
		default:
		}
		x := 0
		for i := 0; i < b.N() && !stop.Load(); i++ {
			x += i
			time.Sleep(time.Millisecond) // a slow op: the ramp predicts hours of them
		}
		_ = x
		return nil
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; time.Sleep(100 * time.Millisecond); cancel() }()
	t0 := time.Now()
	err := Run(ctx, Options{Cases: cases, Count: 1, Benchtime: Benchtime{D: 1000 * time.Hour}}, func(*benchfmt.Result) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v; want context.Canceled", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("Run returned %v after the interrupt at -benchtime 1000h; want about %v", d, interruptGrace)
	}
}

// TestTimedFloorSaturates: a floor past the largest Duration is the largest Duration, never
// a negative one (float64(math.MaxInt64) converts back to math.MinInt64).
func TestTimedFloorSaturates(t *testing.T) {
	cases := make([]Case, 690)
	opt := Options{Cases: cases, Count: 10, Benchtime: Benchtime{D: 1000 * time.Hour}}
	if got := opt.TimedFloor(); got != time.Duration(1<<63-1) {
		t.Errorf("TimedFloor = %v; want the largest Duration", got)
	}
	opt.Benchtime = Benchtime{D: time.Second}
	if got := opt.TimedFloor(); got != 6900*time.Second {
		t.Errorf("TimedFloor = %v; want 6900s", got)
	}
	// An iteration count counts at MinOpTime per op: 1e9x is 1 s a benchmark at least, and
	// the largest count saturates (it ran unbounded before, past the 2-hour guard).
	opt.Benchtime = Benchtime{N: 1e9}
	if got := opt.TimedFloor(); got != 6900*time.Second {
		t.Errorf("TimedFloor of 1e9x = %v; want 6900s", got)
	}
	opt.Benchtime = Benchtime{N: math.MaxInt}
	if got := opt.TimedFloor(); got < 2*time.Hour || strconv.IntSize == 64 && got != time.Duration(math.MaxInt64) {
		t.Errorf("TimedFloor of the largest count = %v; want over 2h, the largest Duration where int has 64 bits", got)
	}
}
