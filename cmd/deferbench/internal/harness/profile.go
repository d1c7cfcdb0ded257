package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/google/pprof/profile"
)

// ProfileKinds are the profiles ProfileRun writes per scenario and strategy.
var ProfileKinds = []string{"cpu", "heap", "mutex", "block"}

var attributionRules = []struct {
	name string
	re   *regexp.Regexp
}{
	{"lock", regexp.MustCompile(`^(sync\.\(\*(RW)?Mutex\)|internal/sync\.\(\*(RW)?Mutex\)|sync\.runtime_Semacquire(RW)?Mutex)`)},
	{"alloc", regexp.MustCompile(`^runtime\.mallocgc`)},
	{"gc", regexp.MustCompile(`^runtime\.(gcBgMarkWorker|gcDrain|gcAssistAlloc|markroot|scanobject|scanblock|greyobject|bgsweep|bgscavenge|sweepone|gcStart|gcMarkDone|gcMarkTermination|wbBufFlush|bulkBarrierPreWrite)`)},
	{"apply", regexp.MustCompile(`(deferral\.\(\*Core\)\.Apply|\)\.Commit$|\)\.Flush$|\)\.commit[A-Za-z]*$|\)\.sweep$|\)\.gather[A-Za-z]*$)`)},
	{"stage", regexp.MustCompile(`(deferral\.\(\*Recorder\)\.|\)\.Stage(Keyed|Func|FuncKeyed)?$|\)\.Handover$|\)\.push$)`)},
}

// categorize returns the category of one CPU sample.
func categorize(s *profile.Sample) string {
	for _, loc := range s.Location {
		for _, ln := range loc.Line { // innermost inlined frame first
			if ln.Function == nil {
				continue
			}
			for _, r := range attributionRules {
				if r.re.MatchString(ln.Function.Name) {
					return r.name
				}
			}
		}
	}
	return "other"
}

// Attribute computes the attribution of a CPU profile.
func Attribute(p *profile.Profile, scenario, strategy string) results.Attribution {
	a := results.Attribution{Scenario: scenario, Strategy: strategy, Share: map[string]float64{}}
	vi := len(p.SampleType) - 1 // cpu nanoseconds
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	var total float64
	for _, s := range p.Sample {
		v := float64(s.Value[vi])
		a.Share[categorize(s)] += v
		total += v
	}
	for _, c := range results.AttributionCategories {
		if total > 0 {
			a.Share[c] /= total
		} else {
			a.Share[c] = 0
		}
	}
	a.CPU = total / 1e9
	return a
}

// snapshot parses the current cumulative profile name (heap, mutex, block).
func snapshot(name string) (*profile.Profile, error) {
	var buf bytes.Buffer
	if err := pprof.Lookup(name).WriteTo(&buf, 0); err != nil {
		return nil, err
	}
	return profile.Parse(&buf)
}

// delta returns after − before: what a cumulative profile recorded in between.
func delta(before, after *profile.Profile) (*profile.Profile, error) {
	b := before.Copy()
	b.Scale(-1)
	return profile.Merge([]*profile.Profile{after, b})
}

type profileGroup struct {
	scenario, strategy string
	cases              []Case
}

// profileGroups groups opt's cases by scenario and strategy, in plan order.
func profileGroups(opt Options) []*profileGroup {
	var groups []*profileGroup
	index := map[[2]string]*profileGroup{}
	for _, c := range opt.plan() {
		k := [2]string{c.Scenario, c.Strategy}
		g := index[k]
		if g == nil {
			g = &profileGroup{scenario: c.Scenario, strategy: c.Strategy}
			index[k] = g
			groups = append(groups, g)
		}
		g.cases = append(g.cases, c)
	}
	return groups
}

// ProfileGroups returns the number of (scenario, strategy) groups ProfileRun profiles with
// opt: the most Attributions it returns.
func ProfileGroups(opt Options) int { return len(profileGroups(opt)) }

// ProfileRun runs every case of opt once more per (scenario, strategy) group, untimed, with
// the CPU profiler on and mutex and block profiling enabled, and writes
// <dir>/<Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz (heap, mutex and block hold what
// the group added, as a difference of the cumulative profiles). It returns the CPU attribution
// of each group. progress, when set, is called with each group's file prefix. It stops between
// groups when ctx is done and returns the attributions of the groups that finished, whose
// files are written, with ctx's error wrapped.
func ProfileRun(ctx context.Context, opt Options, dir string, progress func(string)) ([]results.Attribution, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1000) // one sample per µs blocked, on average
	defer runtime.SetMutexProfileFraction(0)
	defer runtime.SetBlockProfileRate(0)

	groups := profileGroups(opt)
	var out []results.Attribution
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("profiles stopped after %d of %d: %w", len(out), len(groups), err)
		}
		prefix := g.scenario + "-" + g.strategy
		if progress != nil {
			progress(prefix)
		}
		before := map[string]*profile.Profile{}
		for _, k := range []string{"heap", "mutex", "block"} {
			p, err := snapshot(k)
			if err != nil {
				return out, fmt.Errorf("profile %s: %w", prefix, err)
			}
			before[k] = p
		}
		var cpu bytes.Buffer
		if err := pprof.StartCPUProfile(&cpu); err != nil {
			return out, fmt.Errorf("profile %s: %w", prefix, err)
		}
		for _, c := range g.cases {
			runtime.GOMAXPROCS(c.Procs)
			if _, err := measure(c, c.FullName(), opt.Benchtime); err != nil {
				pprof.StopCPUProfile()
				return out, err
			}
		}
		pprof.StopCPUProfile()
		runtime.GC() // make the heap profile current
		if err := results.WriteFileAtomic(filepath.Join(dir, prefix+"-cpu.pb.gz"), cpu.Bytes()); err != nil {
			return out, err
		}
		cp, err := profile.Parse(bytes.NewReader(cpu.Bytes()))
		if err != nil {
			return out, fmt.Errorf("profile %s: cpu: %w", prefix, err)
		}
		out = append(out, Attribute(cp, g.scenario, g.strategy))
		for _, k := range []string{"heap", "mutex", "block"} {
			after, err := snapshot(k)
			if err != nil {
				return out, fmt.Errorf("profile %s: %w", prefix, err)
			}
			d, err := delta(before[k], after)
			if err != nil {
				return out, fmt.Errorf("profile %s: %s: %w", prefix, k, err)
			}
			var buf bytes.Buffer
			if err := d.Write(&buf); err != nil {
				return out, fmt.Errorf("profile %s: %s: %w", prefix, k, err)
			}
			if err := results.WriteFileAtomic(filepath.Join(dir, prefix+"-"+k+".pb.gz"), buf.Bytes()); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// StrategyAttribution sums a strategy's attributions over scenarios, weighting each by its
// CPU time: one row per strategy, in the order they first appear.
func StrategyAttribution(as []results.Attribution) []results.Attribution {
	var order []string
	sum := map[string]*results.Attribution{}
	for _, a := range as {
		s := sum[a.Strategy]
		if s == nil {
			s = &results.Attribution{Scenario: "all", Strategy: a.Strategy, Share: map[string]float64{}}
			sum[a.Strategy] = s
			order = append(order, a.Strategy)
		}
		for c, v := range a.Share {
			s.Share[c] += v * a.CPU
		}
		s.CPU += a.CPU
	}
	out := make([]results.Attribution, 0, len(order))
	for _, name := range order {
		s := sum[name]
		for c := range s.Share {
			if s.CPU > 0 {
				s.Share[c] /= s.CPU
			}
		}
		out = append(out, *s)
	}
	return out
}
