package harness

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

// Options configures Run and ProfileRun: parsed once from the command line and passed down.
type Options struct {
	Scenarios  []Scenario
	Strategies []StrategyInfo
	Quick      bool      // smallest sizes only
	Count      int       // repetitions of every case; ≥ 1
	Benchtime  Benchtime // per benchmark, as go test -benchtime
	Procs      []int     // GOMAXPROCS values; empty means the current GOMAXPROCS
	// Cases is the plan (Plan of the fields above), computed once by Planned; nil means Run
	// and ProfileRun compute it.
	Cases []Case
	// Progress, when set, is called before each case (Result nil) and after it.
	Progress func(Event)
}

// Planned returns opt with Cases set: the plan is computed once per run, and the count
// check, the progress total, the run and the profiles all use it.
func (opt Options) Planned() Options {
	opt.Cases = Plan(opt.Scenarios, opt.Strategies, opt.Quick, opt.Procs)
	return opt
}

// plan returns opt.Cases, or the plan when Planned was not called.
func (opt Options) plan() []Case {
	if opt.Cases != nil {
		return opt.Cases
	}
	return Plan(opt.Scenarios, opt.Strategies, opt.Quick, opt.Procs)
}

// Event reports the runner's progress: case Done+1 of Total is starting (Result nil) or case
// Done of Total finished with Result.
type Event struct {
	Done, Total int
	Name        string // full benchmark name, with the -GOMAXPROCS suffix
	Result      *benchfmt.Result
}

// Total returns the number of benchmarks Run would time with opt.
func (opt Options) Total() int { return len(opt.plan()) * max(opt.Count, 1) }

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

var initOnce sync.Once

// setBenchtime sets the testing package's -test.benchtime, the only way to tell
// testing.Benchmark how long to run. The runner and the profiler set it per case from the one
// parsed Benchtime and restore the default when they return; nothing else writes it, and Run
// and ProfileRun must not be called concurrently.
//
// Why the runner writes this process-global flag instead of driving iterations itself:
//
//   - testing.Benchmark copies the flag into the B it makes and decides from it alone how
//     often to call the body: once with b.N = 1, then, under a duration (default 1 s), again
//     with growing b.N until one call's timed duration reaches it, or once more at b.N = n
//     for "nx". A body that sets b.N to the runner's own count runs that count, but cannot
//     stop the ramp: under the default 1 s, a body shorter than that is called again and
//     again (testing predicts the next count from the b.N the body left, so its own count
//     creeps up by one per call; a body setting b.N = 20 around 50 µs sleeps was still being
//     called after 50 calls, at testing's n = 1231).
//   - What a run records is only in the BenchmarkResult of the last call: T, and the
//     allocation counts and ReportMetric values, which a B keeps in unexported fields and
//     counts only while its timer runs (bodies stop it around set-up). A body can read T
//     (B.Elapsed) but not the rest, so measuring around testing.Benchmark would count the
//     set-up's allocations and lose the metrics: not the method go test uses.
//   - B.Loop ramps from the same flag, and a B cannot be made outside package testing.
//   - Stopping the ramp early (SkipNow, FailNow) discards the result; stopping it by letting
//     b.N reach testing's cap of 1e9 depends on testing's unexported growth rule.
//
// Driving iterations without the flag would thus need bodies written against an interface
// of our own instead of *testing.B, which the conformance benchmarks share with users' go
// test and would lose.
func setBenchtime(d string) error {
	initOnce.Do(testing.Init)
	if d == "" || d == "0s" {
		return nil
	}
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return errors.New("testing flags are not registered")
	}
	if err := f.Value.Set(d); err != nil {
		return fmt.Errorf("benchtime %q: %w", d, err)
	}
	return nil
}

// Run times every case of opt.Scenarios × opt.Strategies opt.Count times, calling emit with
// each result as soon as it is measured. Repetitions are interleaved: one repetition runs every
// case once (every strategy of a variant back to back) before the next starts, so drift hits all
// strategies alike. Run stops between cases when ctx is done and returns ctx's error wrapped;
// what was emitted stays valid. Benchmarks run one at a time; Run sets GOMAXPROCS and the
// testing package's -test.benchtime flag per case (process-global: testing.Benchmark reads
// only that; see setBenchtime) and restores both. It must not be called concurrently.
func Run(ctx context.Context, opt Options, emit func(*benchfmt.Result) error) error {
	if opt.Count < 1 {
		return fmt.Errorf("count %d: must be at least 1", opt.Count)
	}
	if err := setBenchtime(opt.Benchtime.String()); err != nil {
		return err
	}
	f := flag.Lookup("test.benchtime")
	defer f.Value.Set(f.DefValue)
	for _, p := range opt.Procs {
		if p < 1 {
			return fmt.Errorf("procs %d: must be at least 1", p)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cases := opt.plan()
	total := len(cases) * opt.Count
	done := 0
	// The first repetition sizes b.N as go test does (a ramp of runs up to the benchtime);
	// later ones run the iteration count that reached the benchtime directly, which saves
	// the ramp (about half the wall time). That count is trusted only while it holds: a ramp
	// that stopped at one call (the first call alone outlasted the benchtime: a page-fault
	// storm, a cold cache) sizes nothing, and a repetition at the fixed count that ran
	// outside half to twice the benchtime (its sizing run was slowed or sped up) drops it, so
	// the next repetition ramps again. One slow run thus costs one repetition at most, not
	// every later repetition at 1x.
	target, sizing := opt.Benchtime.D, opt.Benchtime.N == 0 && opt.Benchtime.D > 0
	iters := map[string]int{}
	for range opt.Count {
		rep := map[string]*benchfmt.Result{}
		earlier := func(name string) *benchfmt.Result { return rep[name] }
		for _, c := range cases {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("run stopped after %d of %d benchmarks: %w", done, total, err)
			}
			name := c.FullName()
			if opt.Progress != nil {
				opt.Progress(Event{Done: done, Total: total, Name: name})
			}
			runtime.GOMAXPROCS(c.Procs)
			bt := opt.Benchtime.String()
			if n := iters[name]; sizing && n > 0 {
				bt = strconv.Itoa(n) + "x"
			}
			if err := setBenchtime(bt); err != nil {
				return err
			}
			res, took, err := measureTimed(c, name)
			if err != nil {
				return err
			}
			if sizing {
				iters[name] = nextIters(iters[name], res.Iters, took, target)
			}
			if c.Derive != nil {
				c.Derive(res, earlier)
			}
			rep[name] = res
			if err := emit(res); err != nil {
				return err
			}
			done++
			if opt.Progress != nil {
				opt.Progress(Event{Done: done, Total: total, Name: name, Result: res})
			}
		}
	}
	return nil
}

// nextIters is the iteration count the next repetition of a case runs directly, after one
// that ran fixed iterations (0: it ramped as go test does) and whose last run took took for n
// iterations, for a benchtime of target; 0 says to ramp again. A ramp sizes the count from its
// final run unless that run was a single call; a fixed count is kept while its run took from
// half to twice target.
func nextIters(fixed, n int, took, target time.Duration) int {
	if n < 1 || took <= 0 {
		return 0
	}
	if fixed == 0 {
		if n <= 1 {
			return 0
		}
		ns := float64(took.Nanoseconds()) / float64(n)
		return max(1, int(math.Min(math.Ceil(float64(target.Nanoseconds())/ns), 1e9)))
	}
	if took < target/2 || took > 2*target {
		return 0
	}
	return fixed
}

// measure times one case with testing.Benchmark and converts the result. ns/op is T/N in
// floating point (BenchmarkResult.NsPerOp truncates to whole nanoseconds), and so are B/op and
// allocs/op (go test truncates them, which would print 0.8 allocs/op as 0), unless the body
// reported its own value of one of them with ReportMetric, which replaces it as in go test;
// the other metrics the body reported follow, sorted by unit.
func measure(c Case, name string) (*benchfmt.Result, error) {
	res, _, err := measureTimed(c, name)
	return res, err
}

// measureTimed is measure, also returning the time the benchmark's last run took with its
// timer on, which sizes the next repetition (a body may report an ns/op of its own that
// covers less than that time).
func measureTimed(c Case, name string) (*benchfmt.Result, time.Duration, error) {
	var failure error
	r := testing.Benchmark(func(b *testing.B) {
		if failure != nil {
			return
		}
		if err := c.Run(b); err != nil {
			failure = err
		}
	})
	if failure != nil {
		return nil, 0, fmt.Errorf("benchmark %s: %w", name, failure)
	}
	if r.N == 0 {
		return nil, 0, fmt.Errorf("benchmark %s: failed", name)
	}
	res := &benchfmt.Result{Name: benchfmt.Name(name), Iters: r.N}
	builtin := func(unit string, v float64) {
		if x, ok := r.Extra[unit]; ok {
			v = x
		}
		res.Values = append(res.Values, benchfmt.Value{Value: v, Unit: unit})
	}
	builtin("ns/op", float64(r.T.Nanoseconds())/float64(r.N))
	builtin("B/op", float64(r.MemBytes)/float64(r.N))
	builtin("allocs/op", float64(r.MemAllocs)/float64(r.N))
	units := make([]string, 0, len(r.Extra))
	for u := range r.Extra {
		switch u {
		case "ns/op", "B/op", "allocs/op":
		default:
			units = append(units, u)
		}
	}
	sort.Strings(units)
	for _, u := range units {
		res.Values = append(res.Values, benchfmt.Value{Value: r.Extra[u], Unit: u})
	}
	return res, r.T, nil
}

// The defaults of deferbench run: count 10 (benchstat needs at least 6 for a confidence
// interval) and 50ms per benchmark.
const (
	DefaultCount     = 10
	DefaultBenchtime = "50ms"
)
