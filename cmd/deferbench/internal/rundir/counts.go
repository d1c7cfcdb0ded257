package rundir

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// Measure is what a run measures: time (the default: the zero Measure), instructions
// counted under cachegrind, or both.
type Measure struct {
	NoTime       bool // skip the timed runs
	Instructions bool // count instructions per op of every countable case
	CacheSim     bool // with Instructions: cachegrind's cache simulation too
	// Repeats is how many times each row is counted (0: 1); the spread is over them.
	Repeats int
	// Jobs is how many rows are counted side by side (0: every CPU).
	Jobs int
	// ISAs are the instruction sets counted, host first (none: the host's only); Emulators
	// holds the emulator of each emulated one, by name (counts.LookEmulator).
	ISAs      []counts.ISA
	Emulators map[string]counts.Emulator
}

// CountISAs returns the ISAs m counts: m.ISAs, or the host's alone.
func (m Measure) CountISAs() []counts.ISA {
	if len(m.ISAs) == 0 {
		return []counts.ISA{counts.HostISA}
	}
	return m.ISAs
}

// CountsHost reports whether m counts the host's own instruction set (under cachegrind).
func (m Measure) CountsHost() bool {
	for _, i := range m.CountISAs() {
		if i.Host() {
			return true
		}
	}
	return false
}

// EmulatorVersion returns the first line of prog --version, or "".
func EmulatorVersion(prog string) string {
	b, err := exec.Command(prog, "--version").Output()
	if err != nil {
		return ""
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return l
}

// String is the Measure as env.json's options write it: "time", "instructions",
// "time,instructions,cachesim".
func (m Measure) String() string {
	var parts []string
	if !m.NoTime {
		parts = append(parts, "time")
	}
	if m.Instructions {
		parts = append(parts, "instructions")
		if m.CacheSim {
			parts = append(parts, "cachesim")
		}
	}
	return strings.Join(parts, ",")
}

// CountPlan returns the cases the count tier counts for opt's scenarios and strategies, at
// GOMAXPROCS=1 (where a case runs on one goroutine: harness.Countable, and is not left out
// for cost: harness.CountCost), and the cases of opt's plan and of that one it leaves out, by
// full name, each with the reason.
func CountPlan(opt harness.Options) ([]harness.Case, []results.Uncounted) {
	var cases []harness.Case
	var out []results.Uncounted
	seen := map[string]bool{}
	counted := map[string]bool{} // by name without GOMAXPROCS
	consider := func(c harness.Case, count bool) {
		name := c.FullName()
		if seen[name] || !count && counted[c.Name] {
			return // counted, or its GOMAXPROCS=1 twin is
		}
		seen[name] = true
		if err := harness.Countable(c); err != nil {
			reason := err.Error()
			if _, r, ok := strings.Cut(reason, harness.ErrNotCounted.Error()+": "); ok {
				reason = r
			}
			out = append(out, results.Uncounted{Name: name, Reason: reason})
			return
		}
		if reason := harness.CountCost(c); reason != "" {
			out = append(out, results.Uncounted{Name: name, Reason: reason})
			return
		}
		cases = append(cases, c)
		counted[c.Name] = true
	}
	for _, c := range harness.OnStorages(harness.Plan(opt.Scenarios, opt.Strategies, opt.Quick, []int{1}), opt.Storages) {
		consider(c, true)
	}
	for _, c := range opt.Cases {
		consider(c, false)
	}
	return cases, out
}

// ValgrindVersion returns `valgrind --version` of the valgrind in PATH, or "".
func ValgrindVersion() string {
	b, err := exec.Command("valgrind", "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// probeHardware returns env.json's hardware_counters: "available", or the reason.
func probeHardware() string {
	err := counts.Probe()
	if err == nil {
		return "available (read with perf_event_open; this path has not yet been run on a board)"
	}
	var u *counts.Unavailable
	if errors.As(err, &u) {
		return string(u.Reason) + ": " + u.Detail
	}
	return err.Error()
}

// countInstructions counts every case of cases on every ISA of cfg.Measure (under cachegrind
// on the host's, under qemu-user on an emulated one's), cfg.Measure.Jobs at a time, adding
// each row's results (an emulated ISA's with its configuration lines) to bf in the order of cases as soon as the rows before it are
// in (and, when a row failed or the run was stopped, the rows that finished after it at the
// end), and records the counting in rec, holding mu (which guards rec against a hard stop
// writing env.json) while it does. It returns the first row's error, or ctx's.
func countInstructions(ctx context.Context, cfg Config, cases []harness.Case, add func(*benchfmt.Result) error, rec *results.CountsEnv, mu sync.Locker, e *env) error {
	m := cfg.Measure
	opt := counts.Options{Repeats: max(m.Repeats, 1), CacheSim: m.CacheSim}
	isas := m.CountISAs()
	var children []counts.Child
	conf := map[string][]benchfmt.Config{}
	for _, isa := range isas {
		conf[isa.Name] = isa.Config()
		for _, c := range cases {
			ch := cfg.Child(c, isa)
			if !isa.Host() {
				em := m.Emulators[isa.Name]
				ch.Emulator, ch.GOARCH, ch.ISA = &em, isa.GOARCH, isa.Name
			}
			children = append(children, ch)
		}
	}
	total := len(children)
	t0 := time.Now()
	rows := make([]*counts.Row, total)
	next, done := 0, 0
	var firstErr error
	var cpu time.Duration
	jobs := m.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	jobs = max(1, min(jobs, total))
	var where []string
	for _, isa := range isas {
		if isa.Host() {
			where = append(where, "under cachegrind")
		} else {
			where = append(where, fmt.Sprintf("%s under %s -cpu %s", isa.Name, isa.QEMU, isa.CPU))
		}
	}
	fmt.Fprintf(e.stderr, "deferbench: counting %d rows %s (%d repetition(s) each, GOMAXPROCS=1), %d at a time\n", total, strings.Join(where, ", "), opt.Repeats, jobs)
	isaTag := func(r counts.Row) string {
		if r.ISA == "" {
			return ""
		}
		return " [" + r.ISA + "]"
	}
	addRow := func(i int) {
		for _, res := range counts.Results([]counts.Row{*rows[i]}, conf[rows[i].ISA]) {
			if err := add(res); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		mu.Lock()
		rec.Counted++
		mu.Unlock()
	}
	err := counts.CountAll(ctx, children, opt, jobs, func(i int, r counts.Row, err error) {
		done++
		cpu += r.CPU
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return // stopped, not failed: the run says so
			}
			if firstErr == nil {
				firstErr = err
			}
			fmt.Fprintf(e.stderr, "deferbench: count [%d/%d]%s %s: %v\n", done, total, isaTag(r), r.Name, err)
			return
		}
		rows[i] = &r
		line := fmt.Sprintf("deferbench: count [%d/%d]%s %s", done, total, isaTag(r), r.Name)
		for _, ms := range r.Measures {
			line += fmt.Sprintf(" %s %s", results.Sig3(ms.Median, false), ms.Unit)
			if len(ms.Samples) > 1 {
				line += fmt.Sprintf(" (spread %.2f%%)", 100*ms.Spread)
			}
		}
		fmt.Fprintf(e.stderr, "%s; %.1fs CPU\n", line, r.CPU.Seconds())
		for next < len(rows) && rows[next] != nil {
			addRow(next)
			next++
		}
	})
	// A row that failed or was stopped leaves a gap: the rows after it that finished are
	// kept too, still in the plan's order.
	for ; next < len(rows); next++ {
		if rows[next] != nil {
			addRow(next)
		}
	}
	mu.Lock()
	rec.WallSeconds = math.Round(time.Since(t0).Seconds()*10) / 10
	rec.CPUSeconds = math.Round(cpu.Seconds()*10) / 10
	rec.Jobs = jobs
	mu.Unlock()
	if err != nil {
		return err
	}
	return firstErr
}

// readCounters reads the PMU's counters per op (counts.CountPerf in a child, one case at a
// time) for every case of cases and adds them as results; a case whose child fails is noted
// and skipped, since the counters are an addition to the timed run.
func readCounters(ctx context.Context, cfg Config, cases []harness.Case, add func(*benchfmt.Result) error, e *env) error {
	fmt.Fprintf(e.stderr, "deferbench: reading hardware counters for %d rows (perf_event_open; not yet run on a board)\n", len(cases))
	for _, c := range cases {
		p, err := counts.CountPerf(ctx, cfg.PerfArgv(c), nil, "", 0)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "deferbench: counters: %s: %v\n", c.FullName(), err)
			continue
		}
		it := harness.ItersFor(c)
		res := &benchfmt.Result{Name: benchfmt.Name(c.FullName()), Iters: it.High - it.Low}
		units := make([]string, 0, len(p))
		for u := range p {
			units = append(units, u)
		}
		sort.Strings(units)
		for _, u := range units {
			res.Values = append(res.Values, benchfmt.Value{Value: p[u], Unit: u})
		}
		if err := add(res); err != nil {
			return err
		}
	}
	return nil
}
