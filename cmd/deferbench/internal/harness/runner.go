package harness

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"

	"github.com/deferbench/deferbench/ecs"
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
	// Storages are the world storages the storage-dependent variants run on (OnStorages);
	// nil means both.
	Storages []ecs.Storage
	// Cases is the plan (Plan of the fields above), computed once by Planned; nil means Run
	// and ProfileRun compute it.
	Cases []Case
	// Progress, when set, is called before each case (Result nil) and after it, and when a
	// case stalls (Stall set).
	Progress func(Event)
	// StallAfter is the shortest time one call of a benchmark may run before the runner
	// gives up on it as stalled (a call predicted to take longer gets 10 times its
	// prediction); 0 means DefaultStallAfter.
	StallAfter time.Duration
}

// Planned returns opt with Cases set: the plan is computed once per run, and the count
// check, the progress total, the run and the profiles all use it.
func (opt Options) Planned() Options {
	opt.Cases = OnStorages(Plan(opt.Scenarios, opt.Strategies, opt.Quick, opt.Procs), opt.Storages)
	return opt
}

// plan returns opt.Cases, or the plan when Planned was not called.
func (opt Options) plan() []Case {
	if opt.Cases != nil {
		return opt.Cases
	}
	return OnStorages(Plan(opt.Scenarios, opt.Strategies, opt.Quick, opt.Procs), opt.Storages)
}

// Event reports the runner's progress: case Done+1 of Total is starting (Result nil) or case
// Done of Total finished with Result.
type Event struct {
	Done, Total int
	Name        string // full benchmark name, with the -GOMAXPROCS suffix
	Result      *benchfmt.Result
	Stall       *Stall // the case was left behind as stalled (Result nil)
}

// TimedFloor returns the least time Run takes with opt: every planned case driven to a
// -benchtime duration, Count times, before warm-up and set-up; for an iteration count
// (-benchtime 1000x), every case run that many times at MinOpTime per op, which no op here
// beats. It saturates instead of overflowing.
func (opt Options) TimedFloor() time.Duration {
	d := float64(opt.Benchtime.D)
	if opt.Benchtime.N > 0 {
		d = float64(opt.Benchtime.N) * float64(MinOpTime)
	}
	if d <= 0 {
		return 0
	}
	f := float64(len(opt.plan())) * float64(max(opt.Count, 1)) * d
	if f >= math.MaxInt64 { // float64(MaxInt64) converts back to MinInt64: compare first
		return math.MaxInt64
	}
	return time.Duration(f)
}

// MinOpTime is the least time one op of any benchmark takes (the baseline's append is about
// 3 ns on a 2-vCPU VM): the floor an iteration count gives a plan.
const MinOpTime = time.Nanosecond

// Total returns the number of benchmarks Run would time with opt.
func (opt Options) Total() int { return len(opt.plan()) * max(opt.Count, 1) }

// Run times every case of opt.Scenarios × opt.Strategies opt.Count times, calling emit with
// each result as soon as it is measured. Repetitions are interleaved: one repetition runs every
// case once (every strategy of a variant back to back) before the next starts, so drift hits all
// strategies alike. When ctx is done Run stops after the running benchmark, or leaves it
// behind if it has not finished a second later, and returns ctx's error wrapped; what was
// emitted stays valid. A benchmark whose call runs past its bound (Options.StallAfter) is left
// behind as stalled, its later repetitions skipped, and the run goes on; Run then returns a
// *StallError naming every stalled benchmark. Benchmarks run one at a time, each driven to opt.Benchtime by
// the runner itself (see driver), at the GOMAXPROCS of its case; Run restores GOMAXPROCS. It
// must not be called concurrently.
func Run(ctx context.Context, opt Options, emit func(*benchfmt.Result) error) error {
	if opt.Count < 1 {
		return fmt.Errorf("count %d: must be at least 1", opt.Count)
	}
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
	floor := opt.StallAfter
	if floor <= 0 {
		floor = DefaultStallAfter
	}
	stalled := map[string]bool{}
	var stalls []Stall
	for range opt.Count {
		rep := map[string]*benchfmt.Result{}
		earlier := func(name string) *benchfmt.Result { return rep[name] }
		for _, c := range cases {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("run stopped after %d of %d results: %w", done, total, err)
			}
			name := c.FullName()
			if stalled[name] {
				continue // an earlier repetition stalled: its goroutines may still hold it
			}
			if opt.Progress != nil {
				opt.Progress(Event{Done: done, Total: total, Name: name})
			}
			runtime.GOMAXPROCS(c.Procs)
			bt := opt.Benchtime
			if n := iters[name]; sizing && n > 0 {
				bt = Benchtime{N: n}
			}
			m, stall, err := watched(ctx, c, name, bt, floor)
			if err != nil {
				return fmt.Errorf("run stopped after %d of %d results: %w", done, total, err)
			}
			if stall != nil {
				stalled[name] = true
				stalls = append(stalls, *stall)
				if opt.Progress != nil {
					opt.Progress(Event{Done: done, Total: total, Name: name, Stall: stall})
				}
				continue
			}
			res, took := m.res, m.took
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
	if len(stalls) > 0 {
		return &StallError{Stalls: stalls}
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

// measure times one case at -benchtime bt, as testing.Benchmark would (driver), and converts
// the result. ns/op is T/N in floating point (testing's NsPerOp truncates to whole
// nanoseconds), and so are B/op and allocs/op (go test truncates them, which would print 0.8
// allocs/op as 0), unless the body reported its own value of one of them with ReportMetric,
// which replaces it as in go test; the other metrics the body reported follow, sorted by unit.
func measure(c Case, name string, bt Benchtime) (*benchfmt.Result, error) {
	res, _, err := measureTimed(c, name, bt)
	return res, err
}

// measureTimed is measure, also returning the time the benchmark's last run took with its
// timer on, which sizes the next repetition (a body may report an ns/op of its own that
// covers less than that time).
func measureTimed(c Case, name string, bt Benchtime) (*benchfmt.Result, time.Duration, error) {
	r := &driver{body: c.Run}
	m, err := r.measure(name, bt)
	if err != nil {
		return nil, 0, err
	}
	return m.res, m.took, nil
}

// measured is one benchmark's result and the time its last call took with its timer on.
type measured struct {
	res  *benchfmt.Result
	took time.Duration
}

// measure runs the driver's body at bt and converts what its last call measured.
func (r *driver) measure(name string, bt Benchtime) (*measured, error) {
	if err := r.run(bt); err != nil {
		return nil, fmt.Errorf("benchmark %s: %w", name, err)
	}
	res := &benchfmt.Result{Name: benchfmt.Name(name), Iters: r.n}
	builtin := func(unit string, v float64) {
		if x, ok := r.extra[unit]; ok {
			v = x
		}
		res.Values = append(res.Values, benchfmt.Value{Value: v, Unit: unit})
	}
	builtin("ns/op", float64(r.duration.Nanoseconds())/float64(r.n))
	builtin("B/op", float64(r.netBytes)/float64(r.n))
	builtin("allocs/op", float64(r.netAllocs)/float64(r.n))
	units := make([]string, 0, len(r.extra))
	for u := range r.extra {
		switch u {
		case "ns/op", "B/op", "allocs/op":
		default:
			units = append(units, u)
		}
	}
	sort.Strings(units)
	for _, u := range units {
		res.Values = append(res.Values, benchfmt.Value{Value: r.extra[u], Unit: u})
	}
	return &measured{res: res, took: r.duration}, nil
}

// The defaults of deferbench run: count 10 (benchstat needs at least 6 for a confidence
// interval) and 50ms per benchmark.
const (
	DefaultCount     = 10
	DefaultBenchtime = "50ms"
)
