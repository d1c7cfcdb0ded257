package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultStallAfter is the shortest time a benchmark call may make no progress before the
// runner gives up on it as stalled; a call expected to take longer gets 10 times that.
const DefaultStallAfter = 30 * time.Second

// interruptGrace is how long an interrupted run waits for the running benchmark to finish
// before it leaves it behind.
const interruptGrace = time.Second

// ErrStalled is wrapped by the error of a run in which a benchmark stalled.
var ErrStalled = errors.New("stalled")

// Stall is one benchmark the runner gave up on: its call made no progress for After.
type Stall struct {
	Name  string        // full benchmark name, with the -GOMAXPROCS suffix
	After time.Duration // how long its last call had run when it was left behind
	Bound time.Duration // the bound it ran past: max(StallAfter, 10 × the call's expected time)
}

// StallError is Run's error when benchmarks stalled: each was left behind (its goroutines
// still exist, blocked or spinning, and may slow what ran after it), its later repetitions
// were skipped, and every other benchmark ran. errors.Is(err, ErrStalled) holds.
type StallError struct{ Stalls []Stall }

// Error returns "stalled: NAME made no progress for 30s (bound 30s)[; NAME ...]".
func (e *StallError) Error() string {
	parts := make([]string, len(e.Stalls))
	for i, s := range e.Stalls {
		parts[i] = fmt.Sprintf("%s made no progress for %v (bound %v)", s.Name, StallRound(s.After), StallRound(s.Bound))
	}
	return "stalled: " + strings.Join(parts, "; ")
}

// StallRound rounds a stall's duration for a message to about three figures: to the second
// from 10 s, to 10 ms from 1 s, to 10 µs from 1 ms, not below (a -stall-after 1ms bound
// printed as "0s").
func StallRound(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d
}

// Unwrap returns ErrStalled.
func (e *StallError) Unwrap() error { return ErrStalled }

// callWatch is what a driver publishes about its running call for the runner's watch: when
// it started and how long it may run without finishing (UnixNano and nanoseconds; 0: no call).
type callWatch struct {
	start atomic.Int64
	bound atomic.Int64
}

// begin records a call of n iterations starting now; the previous call, of prevN iterations,
// took prevWall in all (set-up and untimed parts too), which predicts this one.
func (w *callWatch) begin(n, prevN int, prevWall, floor time.Duration) {
	expected := time.Duration(0)
	if prevN > 0 && prevWall > 0 {
		expected = time.Duration(float64(prevWall) / float64(prevN) * float64(n))
	}
	w.bound.Store(int64(max(floor, 10*expected)))
	w.start.Store(time.Now().UnixNano())
}

// stalled reports whether the running call has run past its bound, and for how long it ran.
func (w *callWatch) stalled(now time.Time) (time.Duration, time.Duration, bool) {
	start := w.start.Load()
	if start == 0 {
		return 0, 0, false
	}
	ran, bound := now.Sub(time.Unix(0, start)), time.Duration(w.bound.Load())
	return ran, bound, ran > bound
}

// watched runs measureTimed in its own goroutine and waits for it, checking every pollEvery
// that its current call has not run past its bound. A stalled benchmark returns *Stall and is
// left running; so is one still running interruptGrace after ctx is done, which returns ctx's
// error.
func watched(ctx context.Context, c Case, name string, bt Benchtime, floor time.Duration) (*measured, *Stall, error) {
	type done struct {
		m   *measured
		err error
	}
	r := &driver{body: c.Run, floor: floor}
	ch := make(chan done, 1)
	go func() {
		m, err := r.measure(name, bt)
		ch <- done{m, err}
	}()
	poll := time.NewTicker(pollEvery(floor))
	defer poll.Stop()
	cancelled := ctx.Done()
	var grace <-chan time.Time
	for {
		select {
		case d := <-ch:
			return d.m, nil, d.err
		case <-cancelled:
			cancelled = nil
			t := time.NewTimer(interruptGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			return nil, nil, fmt.Errorf("benchmark %s left running: %w", name, context.Cause(ctx))
		case now := <-poll.C:
			if ran, bound, ok := r.watch.stalled(now); ok {
				return nil, &Stall{Name: name, After: ran, Bound: bound}, nil
			}
		}
	}
}

// pollEvery is how often the watch looks: a tenth of the floor, between 10ms and 1s.
func pollEvery(floor time.Duration) time.Duration {
	return min(max(floor/10, 10*time.Millisecond), time.Second)
}
