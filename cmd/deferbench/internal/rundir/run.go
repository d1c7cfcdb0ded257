// Package rundir is the life of a results directory: Suite measures the suite into a held
// directory (bench.txt as results arrive, env.json before and after, the profiles) and
// finishes it (summary.json, the plots, report.md), marking every file partial when the run
// stops early; Rebuild (deferbench report) rebuilds the finishing files from a bench.txt
// with Outputs, and Replot (deferbench plot) draws the charts, each holding the directory
// (Hold). The CLI parses flags and calls these; it holds no orchestration.
package rundir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/envinfo"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// minCICount is the fewest repetitions benchstat (golang.org/x/perf/benchmath) computes a 95%
// confidence interval from; fewer runs, with a warning.
const minCICount = 6

// ErrInterrupted marks a run stopped by an interrupt (context canceled).
var ErrInterrupted = errors.New("interrupted")

// Config is one run: the options parsed once from the command line, the held results
// directory, and where its messages go.
type Config struct {
	Options harness.Options // planned (Options.Planned)
	Dir     *results.RunDir // held; Suite releases or discards it
	Profile bool            // profile every scenario and strategy after the timed runs
	// QuickCount: the count is -quick's, not given (for the warning's words).
	QuickCount     bool
	Args           []string // the command line, for env.json
	Started        time.Time
	Stdout, Stderr io.Writer
	Stop           Stop // nil: no signal handling
	// Measure says what to measure: time (the zero Measure), instructions, or both.
	Measure Measure
	// Child says how to run a case in a counting child process for an ISA (required with
	// Measure.Instructions): the case's name, iterations and command line, for a binary
	// built for the ISA; countInstructions adds the emulator. PerfArgv gives the command line of a child that reads the
	// PMU's counters for a case (counts.CountPerf; nil: counters are not read).
	Child    func(harness.Case, counts.ISA) counts.Child
	PerfArgv func(harness.Case) []string
}

// Suite runs cfg.Options into cfg.Dir and finishes its files. A run stopped by ctx keeps what
// finished, marks its files partial and returns an error wrapping ErrInterrupted; a run that
// measured nothing removes what it wrote.
func Suite(ctx context.Context, cfg Config) (err error) {
	opt, rd, start := cfg.Options, cfg.Dir, cfg.Started
	e := &env{ctx: ctx, stdout: cfg.Stdout, stderr: cfg.Stderr, stop: cfg.Stop}
	if e.stop == nil {
		e.stop = noStop{}
	}
	defer rd.Release()
	out := rd.Path
	if opt.Count < minCICount && !cfg.Measure.NoTime {
		how := "-count " + strconv.Itoa(opt.Count)
		if cfg.QuickCount {
			how = "-quick's count " + strconv.Itoa(opt.Count)
		}
		fmt.Fprintf(e.stderr, "deferbench: warning: %s is below %d: benchstat needs at least %d repetitions for a confidence interval; the medians will have none\n", how, minCICount, minCICount)
	}
	if w := longPlan(opt); w != "" {
		fmt.Fprintf(e.stderr, "deferbench: warning: %s\n", w)
	}
	if w := storagesIgnored(opt); w != "" {
		fmt.Fprintf(e.stderr, "deferbench: warning: %s\n", w)
	}
	benchPath, envPath := filepath.Join(out, "bench.txt"), filepath.Join(out, "env.json")

	before := envinfo.Capture()
	beforeAt := time.Now()
	doc := results.Env{
		Deferbench: results.Version(),
		Revision:   results.Revision(),
		Args:       cfg.Args,
		Started:    start.UTC().Format(time.RFC3339),
		Partial:    "true (run in progress)",
		Before:     before,
		Options: results.RunOptions{Quick: opt.Quick, Count: opt.Count, Benchtime: opt.Benchtime.String(),
			Scenarios:  names(opt.Scenarios, func(s harness.Scenario) string { return s.Name }),
			Strategies: names(opt.Strategies, func(s harness.StrategyInfo) string { return s.Name }),
			Procs:      opt.Procs, Measure: cfg.Measure.String()},
		Counts: &results.CountsEnv{Hardware: probeHardware()},
	}
	countCases, uncounted := CountPlan(opt)
	hwCounters := cfg.PerfArgv != nil && !cfg.Measure.NoTime && strings.HasPrefix(doc.Counts.Hardware, "available")
	if cfg.Measure.Instructions {
		sim := "no"
		if cfg.Measure.CacheSim {
			sim = "yes"
		}
		const per = "each row run in a child process at two iteration counts, " +
			"per op = (total at the higher − total at the lower) / (difference of the iteration counts)"
		if cfg.Measure.CountsHost() {
			doc.Counts.Method = "valgrind --tool=cachegrind --cache-sim=" + sim + "; " + per
			doc.Counts.Valgrind = ValgrindVersion()
		}
		for _, isa := range cfg.Measure.CountISAs() {
			if isa.Host() {
				continue
			}
			em := cfg.Measure.Emulators[isa.Name]
			doc.Counts.ISAs = append(doc.Counts.ISAs, results.CountISA{Name: isa.Name, Model: isa.Model,
				Method: fmt.Sprintf("a child built for GOARCH=%s%s run under %s -cpu %s with the counting plugin (scripts/qemu/insncount.c: guest instructions, counts.Excluded left out); %s",
					isa.GOARCH, goarmText(isa), isa.QEMU, isa.CPU, per),
				Emulator: EmulatorVersion(em.QEMU)})
		}
		doc.Counts.CacheSim = cfg.Measure.CacheSim
		doc.Counts.Repeats = max(cfg.Measure.Repeats, 1)
		doc.Counts.Control = counts.ControlEnv("")
		doc.Counts.Uncounted = uncounted
	}
	bf := results.NewBenchFile(benchPath)
	caps := harness.Capabilities(opt.Strategies) // what the verdicts read, not today's code
	bf.Config = append(results.RunConfig(before.BenchCPU(), before.ConfigLines()), caps...)
	e.stop.Begin()
	if err := results.WriteJSON(envPath, doc); err != nil {
		rd.Discard()
		return err
	}

	total := 0
	if !cfg.Measure.NoTime {
		total = opt.Total()
	}
	if cfg.Measure.Instructions {
		total += len(countCases) * len(cfg.Measure.CountISAs()) * max(cfg.Measure.Repeats, 1)
	}
	if hwCounters {
		total += len(countCases)
	}
	// A result is one benchmark at one repetition: say both, so that "48 of 490" reads right.
	shape := runShape(opt.Total(), opt.Count)
	fin := &finisher{e: e, dir: out, bf: bf, doc: &doc, envPath: envPath}
	e.stop.SetHard(func(why string) {
		done := len(bf.Results())
		if done == 0 { // nothing measured: leave nothing behind
			os.Remove(envPath)
			rd.Discard()
			return
		}
		partial := fmt.Sprintf("%d of %d results finished (%s; %s)", done, total, shape, why)
		if done >= total {
			partial = fmt.Sprintf("all %d results finished; profiling %s", total, why)
		}
		if fin.hardStop(partial) {
			fmt.Fprintf(e.stderr, "deferbench: run: %s: kept them in %s; %s\n", partial, out, markedPartial)
		}
		rd.Release()
	})
	defer e.stop.SetHard(nil)

	var runErr error
	if !cfg.Measure.NoTime {
		prog := newProgress(e.stderr, opt.Total())
		opt.Progress = prog.event
		go prog.tick()
		runErr = harness.Run(e.ctx, opt, bf.Add)
		prog.finish()
	}
	if runErr == nil && hwCounters {
		runErr = readCounters(e.ctx, cfg, countCases, bf.Add, e)
	}
	if runErr == nil && cfg.Measure.Instructions {
		rec := doc.Counts
		runErr = countInstructions(e.ctx, cfg, countCases, bf.Add, rec, &fin.mu, e)
	}
	done := len(bf.Results())

	if done == 0 && runErr != nil {
		// Nothing was measured: leave nothing half-written behind.
		os.Remove(benchPath)
		os.Remove(envPath)
		rd.Discard()
		if errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("run: %w before the first benchmark finished; nothing kept", ErrInterrupted)
		}
		return fmt.Errorf("run: %w", runErr)
	}
	wall := time.Since(beforeAt)
	after := envinfo.Capture()
	fin.mu.Lock()
	doc.After = &after
	if share, ok := envinfo.CPUShareOf(before, after); ok {
		doc.CPUShare = &results.CPUShare{Seconds: math.Round(wall.Seconds()*10) / 10, CPUShare: share}
	}
	th, _ := envinfo.Throttled(before, after)
	doc.Throttled = &th
	bf.Config = append(results.RunConfig(before.BenchCPU(), envinfo.RunConfigLines(before, after)), caps...)
	fin.mu.Unlock()

	// With -profile, the profiles come before the files are finished, so that an interrupted
	// profiling run marks them partial too.
	var (
		as       []results.Attribution
		profErr  error
		profiled int
		groups   = harness.ProfileGroups(opt)
	)
	if runErr == nil && cfg.Profile {
		as, profErr = harness.ProfileRun(e.ctx, opt, filepath.Join(out, "profiles"), func(group string) {
			fmt.Fprintf(e.stderr, "deferbench: profiling %s\n", group)
		})
		profiled = len(as)
	}
	partial := ""
	switch {
	case runErr != nil:
		partial = fmt.Sprintf("%d of %d results finished (%s; %s)", done, total, shape, stopReason(runErr))
	case profErr != nil:
		partial = fmt.Sprintf("all %d results finished; profiles of %d of %d scenario-strategy pairs (%s)", total, profiled, groups, stopReason(profErr))
	}
	var sumAttr *results.AttributionDoc
	if len(as) > 0 {
		sumAttr = &results.AttributionDoc{Categories: results.AttributionCategories, ByStrategy: harness.StrategyAttribution(as), ByScenario: as}
		writeAttribution(e.stdout, sumAttr.ByStrategy)
	}
	if err := fin.finish(partial, sumAttr); err != nil {
		return err
	}
	const marked = markedPartial
	switch {
	case errors.Is(runErr, context.Canceled):
		return fmt.Errorf("run: %w after %d of %d results (%s): kept them in %s; %s", ErrInterrupted, done, total, shape, out, marked)
	case runErr != nil:
		return fmt.Errorf("run: %w: kept the %d of %d finished results (%s) in %s; %s", runErr, done, total, shape, out, marked)
	case errors.Is(profErr, context.Canceled):
		return fmt.Errorf("run: %w while profiling: kept all %d results and the profiles of %d of %d scenario-strategy pairs in %s; %s", ErrInterrupted, total, profiled, groups, out, marked)
	case profErr != nil:
		return fmt.Errorf("run: profiles: %w: kept all %d results and the profiles of %d of %d scenario-strategy pairs in %s; %s", profErr, total, profiled, groups, out, marked)
	}
	// What to pick is in report.md: named first, as the README says to open it first.
	read := ""
	if p := filepath.Join(filepath.Dir(benchPath), "report.md"); fileExists(p) {
		read = "; what to pick: " + ShellQuote(p)
	}
	fmt.Fprintf(e.stderr, "deferbench: %d results in %s (%s)%s; the table, strategies as columns: benchstat -col /strategy %s\n",
		done, out, time.Since(start).Round(time.Second), read, ShellQuote(benchPath))
	return nil
}

// ShellQuote returns s as one POSIX shell word: unchanged when it has only characters the
// shell takes literally, else in single quotes (each ' inside closes them, is escaped with a
// backslash and reopens them), so that a
// suggested command stays copy-pasteable for a path with spaces.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:,@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// stopReason is the short reason in a partial marker: "interrupted", the stalled benchmarks,
// or "failed: " and err.
func stopReason(err error) string {
	var stall *harness.StallError
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.As(err, &stall):
		return stall.Error() + "; every other benchmark ran, beside what the stalled ones left running"
	}
	return "failed: " + err.Error()
}

// writeAttribution prints one row per strategy: the share of its CPU in each category.
func writeAttribution(w io.Writer, as []results.Attribution) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "CPU attribution\tcpu-s\t")
	for _, c := range results.AttributionCategories {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprintln(tw)
	for _, a := range as {
		fmt.Fprintf(tw, "%s\t%.2f\t", a.Strategy, a.CPU)
		for _, c := range results.AttributionCategories {
			fmt.Fprintf(tw, "%.1f%%\t", 100*a.Share[c])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func names[T any](ts []T, name func(T) string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = name(t)
	}
	return out
}

// markedPartial ends the line that says where an interrupted run kept its results.
const markedPartial = "bench.txt, env.json, summary.json and report.md say partial"

// runShape words a run of total results at count repetitions of each benchmark:
// "49 benchmarks × 3 repetitions", "24 benchmarks × 1 repetition".
func runShape(total, count int) string {
	count = max(count, 1)
	n := func(k int, what string) string {
		if k == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", k, what)
	}
	return n(total/count, "benchmark") + " × " + n(count, "repetition")
}

// storagesIgnored returns a warning when -storages was given but no planned case depends on
// the world's storage (the scenarios run are all storage-free, like Stage): the flag then
// changes nothing, which the user should hear. "" otherwise.
func storagesIgnored(opt harness.Options) string {
	if opt.Storages == nil {
		return ""
	}
	for _, c := range opt.Cases {
		if c.Storage != "" {
			return ""
		}
	}
	var st []string
	for _, s := range opt.Storages {
		st = append(st, s.String())
	}
	var dep []string // the scenarios that have storage variants, from the whole table
	for _, c := range harness.Plan(harness.Scenarios, harness.Strategies, opt.Quick, opt.Procs) {
		if c.Storage != "" && !slices.Contains(dep, c.Scenario) {
			dep = append(dep, c.Scenario)
		}
	}
	return fmt.Sprintf("-storages %s changes nothing: none of the scenarios run (%s) depends on the world's storage; those that do: %s",
		strings.Join(st, ","), strings.Join(names(opt.Scenarios, func(s harness.Scenario) string { return s.Name }), ", "), strings.Join(dep, ", "))
}

// longPlanFloor is the timed floor of a plan above which the run says, before it starts, how
// long it takes at least.
const longPlanFloor = time.Hour

// longPlan returns a warning when the plan's timed floor — every benchmark driven to
// -benchtime, -count times — passes longPlanFloor (a -benchtime of 10s over the default
// suite, say), naming the product and the fix; "" otherwise. An iteration count (-benchtime
// 1000x) counts at harness.MinOpTime per op.
func longPlan(opt harness.Options) string {
	d, floor := opt.Benchtime, opt.TimedFloor()
	if floor < longPlanFloor {
		return ""
	}
	return fmt.Sprintf("this plan takes at least %s: %d benchmarks × -count %d × -benchtime %s, before warm-up and the counts; Ctrl-C keeps what finished. Lower -benchtime or -count, or narrow -scenarios and -strategies",
		floor.Round(time.Minute), len(opt.Cases), opt.Count, d)
}

func goarmText(isa counts.ISA) string {
	if isa.GOARM == "" {
		return ""
	}
	return " GOARM=" + isa.GOARM
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
