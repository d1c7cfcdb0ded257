package harness

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/deferbench/deferbench/conformance/bench"
)

// Benchtime is -benchtime parsed: a time per benchmark (D), or a fixed iteration count (N),
// as go test -benchtime takes it ("100ms", "1000x").
type Benchtime struct {
	D time.Duration
	N int
}

// ParseBenchtime parses s as go test -benchtime does: a positive duration, or a positive
// whole number followed by x. The error names s.
func ParseBenchtime(s string) (Benchtime, error) {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.Atoi(n)
		if err != nil || v <= 0 {
			return Benchtime{}, fmt.Errorf("benchtime %q: want a positive iteration count like 1000x", s)
		}
		return Benchtime{N: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Benchtime{}, fmt.Errorf("benchtime %q: want a positive duration like 100ms", s)
	}
	return Benchtime{D: d}, nil
}

// String is b as -benchtime writes it.
func (b Benchtime) String() string {
	if b.N > 0 {
		return strconv.Itoa(b.N) + "x"
	}
	return b.D.String()
}

// maxIters is the most iterations one call of a body is asked for, testing's cap.
const maxIters = 1e9

// driver is the runner's bench.B: it calls a body with growing iteration counts up to a
// Benchtime, as testing.Benchmark does from -test.benchtime, but from the Benchtime it is
// given, so no process-global flag is read or written. Its clock and counters are
// testing.B's: time.Now around the parts between ResetTimer or StartTimer and StopTimer,
// allocations and bytes from runtime.MemStats (Mallocs, TotalAlloc) over the same parts, and
// the metrics the body reports, which ResetTimer clears. A driver is used by one goroutine,
// one body at a time.
type driver struct {
	body func(bench.B) error
	n    int

	timerOn                 bool
	start                   time.Time
	duration                time.Duration
	startAllocs, startBytes uint64
	netAllocs, netBytes     uint64
	extra                   map[string]float64
	ms                      runtime.MemStats // read into here, so reading allocates nothing

	// The runner's watch (watched): the running call's start and bound, the shortest
	// bound, and the previous call's iterations and wall time, which predict the next.
	watch    callWatch
	floor    time.Duration
	lastN    int
	lastWall time.Duration
}

var _ bench.B = (*driver)(nil)

// N returns the number of iterations of the current call.
func (d *driver) N() int { return d.n }

// StartTimer starts timing, as testing.B.StartTimer.
func (d *driver) StartTimer() {
	if !d.timerOn {
		runtime.ReadMemStats(&d.ms)
		d.startAllocs = d.ms.Mallocs
		d.startBytes = d.ms.TotalAlloc
		d.start = time.Now()
		d.timerOn = true
	}
}

// StopTimer stops timing, as testing.B.StopTimer.
func (d *driver) StopTimer() {
	if d.timerOn {
		d.duration += time.Since(d.start)
		runtime.ReadMemStats(&d.ms)
		d.netAllocs += d.ms.Mallocs - d.startAllocs
		d.netBytes += d.ms.TotalAlloc - d.startBytes
		d.timerOn = false
	}
}

// ResetTimer zeroes the time, the allocation counters and the reported metrics, as
// testing.B.ResetTimer; it does not start or stop the timer.
func (d *driver) ResetTimer() {
	if d.extra == nil {
		d.extra = make(map[string]float64, 16) // before the counters are read
	} else {
		clear(d.extra)
	}
	if d.timerOn {
		runtime.ReadMemStats(&d.ms)
		d.startAllocs = d.ms.Mallocs
		d.startBytes = d.ms.TotalAlloc
		d.start = time.Now()
	}
	d.duration = 0
	d.netAllocs = 0
	d.netBytes = 0
}

// ReportAllocs does nothing: the driver always records allocations.
func (d *driver) ReportAllocs() {}

// ReportMetric records n in unit for the current call, replacing ns/op, B/op or allocs/op
// when unit is one of them. Like testing.B.ReportMetric it panics on an empty unit or one
// with white space, which would break the bench.txt line.
func (d *driver) ReportMetric(n float64, unit string) {
	if unit == "" {
		panic("metric unit must not be empty")
	}
	if strings.IndexFunc(unit, unicode.IsSpace) >= 0 {
		panic("metric unit must not contain whitespace")
	}
	d.extra[unit] = n
}

// Elapsed returns the time measured so far in the current call.
func (d *driver) Elapsed() time.Duration {
	t := d.duration
	if d.timerOn {
		t += time.Since(d.start)
	}
	return t
}

// runN calls the body once with n iterations, after a full collection (as testing does, so
// each call starts from a comparable heap), with the timer reset and started.
func (d *driver) runN(n int) error {
	d.watch.begin(n, d.lastN, d.lastWall, d.floor)
	t0 := time.Now()
	runtime.GC()
	d.n = n
	d.ResetTimer()
	d.StartTimer()
	err := d.body(d)
	d.StopTimer()
	d.lastN, d.lastWall = n, time.Since(t0)
	return err
}

// run calls the body as testing.Benchmark would at -benchtime bt: once with 1 iteration,
// then, for a count (N), once more with N iterations when N > 1; for a duration (D; zero
// means testing's default of 1s), again with iteration counts predicted as testing predicts
// them until one call's timed duration reaches D. What the last call measured is left in d.
// It stops at the first error.
func (d *driver) run(bt Benchtime) error {
	if err := d.runN(1); err != nil {
		return err
	}
	if bt.N > 0 {
		if bt.N > 1 {
			return d.runN(bt.N)
		}
		return nil
	}
	goal := bt.D
	if goal <= 0 {
		goal = time.Second
	}
	for n := int64(1); d.duration < goal && n < maxIters; {
		last := n
		n = int64(predictN(goal.Nanoseconds(), int64(d.n), d.duration.Nanoseconds(), last))
		if err := d.runN(int(n)); err != nil {
			return err
		}
	}
	return nil
}

// predictN is testing's prediction of the iteration count that reaches goalns after a call of
// prevIters iterations took prevns: 1.2 times the linear estimate, at most 100 times and at
// least one more than the last count, and at most maxIters.
func predictN(goalns, prevIters, prevns, last int64) int {
	if prevns == 0 {
		prevns = 1
	}
	n := goalns * prevIters / prevns // multiply first: for fast bodies prevIters ≈ prevns
	n += n / 5
	n = min(n, 100*last)
	n = max(n, last+1)
	n = min(n, maxIters)
	return int(n)
}
