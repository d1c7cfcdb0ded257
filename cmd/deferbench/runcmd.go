package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/envinfo"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/term"
)

// Defaults of deferbench run, and of deferbench run -quick.
const (
	defaultCount     = harness.DefaultCount
	defaultBenchtime = harness.DefaultBenchtime
	quickCount       = 3
	quickBenchtime   = "20ms"
)

// runDetail is the part of deferbench help run between the summary and the flags.
const runDetail = `The results directory is -out, which must be new or empty, or by default
results/<yyyymmdd-hhmmss>-<host>-<goarch>, with -2, -3, … added when that exists. It gets:
  bench.txt     results in the Go benchmark format, for benchstat
  env.json      the environment captured before and after the run, and the run's options
  summary.json  per benchmark and unit: median and 95% confidence interval
  report.md     trust flags, which strategy to pick per requirement, findings (strategies
                ranked per headline metric with ratio CIs and U tests), the configuration,
                tables of medians ± 95% CI, the plots
  plots/        charts of the results with 95% CI error bars, SVG and PNG
  profiles/     with -profile: <Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz
The first interrupt (Ctrl-C) stops the run after the current benchmark, the second at once;
either way the run keeps what finished, marks bench.txt, env.json, summary.json and
report.md partial and exits with status 130. deferbench report DIR rebuilds the files of a
run that was killed outright.`

var runCommand = &command{
	name:    "run",
	args:    "[flags]",
	summary: "run the benchmark suite and write the results into a new results directory",
	detail:  runDetail,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		var o runOptions
		fs.BoolVar(&o.quick, "quick", false, "smoke run: benchtime "+quickBenchtime+", count "+strconv.Itoa(quickCount)+", smallest sizes")
		fs.IntVar(&o.count, "count", defaultCount, "repetitions of every benchmark, at least 1; below 6 warns (benchstat needs 6 for a confidence interval)")
		fs.StringVar(&o.benchtime, "benchtime", defaultBenchtime, "time (\"100ms\") or iterations (\"1000x\") per benchmark, as go test -benchtime")
		fs.StringVar(&o.scenarios, "scenarios", "", "comma-separated scenarios to run (default all; see deferbench list)")
		fs.StringVar(&o.strategies, "strategies", "", "comma-separated strategies to run (default all; see deferbench list)")
		fs.StringVar(&o.procs, "procs", "", "comma-separated GOMAXPROCS values to run every benchmark at, each at most max(256, 4×NumCPU) (default the current GOMAXPROCS)")
		fs.StringVar(&o.out, "out", "", "results directory, new or empty (default results/<yyyymmdd-hhmmss>-<host>-<goarch>[-N])")
		fs.BoolVar(&o.profile, "profile", false, "after the timed runs, run each scenario and strategy once more with profiling on: write profiles/<Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz and a CPU attribution table")
		return func(args []string) error {
			if err := noArgs("run", args); err != nil {
				return err
			}
			o.set = map[string]bool{}
			fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
			if o.quick {
				if !o.set["count"] {
					o.count = quickCount
				}
				if !o.set["benchtime"] {
					o.benchtime = quickBenchtime
				}
			}
			return runSuite(e, o)
		}
	},
}

type runOptions struct {
	quick                        bool
	count                        int
	benchtime                    string
	scenarios, strategies, procs string
	out                          string
	profile                      bool
	set                          map[string]bool // flags given on the command line
}

// minCICount is the fewest repetitions benchstat (golang.org/x/perf/benchmath) computes a 95%
// confidence interval from; fewer runs, with a warning.
const minCICount = 6

// maxProcs is the largest -procs value: max(256, 4×NumCPU). More is almost surely a typo, and
// the runtime would allocate per-P state for every one.
func maxProcs() int { return max(256, 4*runtime.NumCPU()) }

// parseNames splits the comma-separated value of -flag into names, keeping their order and
// dropping repeats. An empty value or an empty name in the list is a usage error naming the
// valid names. A flag not given means all: nil.
func (o runOptions) parseNames(flagName, value string, valid []string) ([]string, error) {
	if !o.set[flagName] {
		return nil, nil
	}
	all := strings.Join(valid, ", ")
	if strings.TrimSpace(value) == "" {
		return nil, usagef("run: -%s %q: empty list (valid: %s; omit -%s for all)", flagName, value, all, flagName)
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(value, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, usagef("run: -%s %q: empty name in the list (valid: %s)", flagName, value, all)
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// parseProcs parses -procs: positive GOMAXPROCS values up to maxProcs, repeats dropped.
func (o runOptions) parseProcs() ([]int, error) {
	if !o.set["procs"] {
		return nil, nil
	}
	if strings.TrimSpace(o.procs) == "" {
		return nil, usagef("run: -procs %q: empty list (want GOMAXPROCS values, e.g. 1,2,4; omit -procs for the current GOMAXPROCS)", o.procs)
	}
	var procs []int
	seen := map[int]bool{}
	for _, p := range strings.Split(o.procs, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, usagef("run: -procs %q: empty value in the list (want GOMAXPROCS values, e.g. 1,2,4)", o.procs)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, usagef("run: -procs: invalid GOMAXPROCS %q (want positive integers, e.g. 1,2,4)", p)
		}
		if n > maxProcs() {
			return nil, usagef("run: -procs: GOMAXPROCS %d is above the maximum %d (max(256, 4×NumCPU))", n, maxProcs())
		}
		if !seen[n] {
			seen[n] = true
			procs = append(procs, n)
		}
	}
	return procs, nil
}

// options validates o into harness options; every problem is a usage error.
func (o runOptions) options() (harness.Options, error) {
	var opt harness.Options
	if o.count < 1 {
		return opt, usagef("run: -count: want %s, got %q", flagWants["run -count"], strconv.Itoa(o.count))
	}
	if o.set["out"] && strings.TrimSpace(o.out) == "" {
		return opt, usagef("run: -out %q: want a directory name (omit -out for results/<yyyymmdd-hhmmss>-<host>-<goarch>)", o.out)
	}
	if err := harness.CheckBenchtime(o.benchtime); err != nil || strings.TrimSpace(o.benchtime) == "" {
		return opt, usagef("run: -benchtime %q: want a duration like 100ms or an iteration count like 1000x", o.benchtime)
	}
	scNames, err := o.parseNames("scenarios", o.scenarios, harness.ScenarioNames())
	if err != nil {
		return opt, err
	}
	stNames, err := o.parseNames("strategies", o.strategies, harness.StrategyNames())
	if err != nil {
		return opt, err
	}
	sc, err := harness.SelectScenarios(scNames)
	if err != nil {
		return opt, usagef("run: -scenarios: %v", err)
	}
	st, err := harness.SelectStrategies(stNames)
	if err != nil {
		return opt, usagef("run: -strategies: %v", err)
	}
	procs, err := o.parseProcs()
	if err != nil {
		return opt, err
	}
	opt = harness.Options{Scenarios: sc, Strategies: st, Quick: o.quick, Count: o.count, Benchtime: o.benchtime, Procs: procs}
	per := len(harness.Plan(opt.Scenarios, opt.Strategies, opt.Quick, opt.Procs))
	if per == 0 {
		return opt, usagef("run: no benchmark matches -scenarios %q and -strategies %q", o.scenarios, o.strategies)
	}
	// compare, report and plot read at most MaxResults lines: a run must not write more
	// (checked before multiplying, which could overflow).
	if o.count > results.MaxResults/per {
		return opt, usagef("run: -count %d: %d benchmarks × %d is more than the %d results compare and report read: give -count %d or less, or fewer -scenarios, -strategies or -procs",
			o.count, per, o.count, results.MaxResults, results.MaxResults/per)
	}
	return opt, nil
}

// openOut holds the results directory: o.out, or a new one under results/. A directory that
// is taken or cannot be written is a usage error naming it and the fix.
func (o runOptions) openOut(now time.Time) (*results.RunDir, error) {
	var (
		rd  *results.RunDir
		err error
	)
	if o.out == "" {
		rd, err = results.NewRunDir(defaultOut(now))
	} else {
		rd, err = results.OpenRunDir(o.out)
	}
	var de *results.DirError
	if !errors.As(err, &de) {
		return rd, err
	}
	name, fix := "-out "+o.out, ""
	if o.out == "" {
		name = "results directory " + de.Dir
	}
	switch {
	case errors.Is(err, results.ErrDirTaken):
		fix = "choose a new -out or remove it"
	case errors.Is(err, results.ErrDirInUse):
		fix = "choose a new -out"
	default:
		fix = "choose a writable directory"
		if o.out == "" {
			fix += " with -out"
		}
	}
	return nil, usagef("run: %s: %s: %s", name, de.Problem, fix)
}

// defaultOut is results/<yyyymmdd-hhmmss>-<host>-<goarch>.
func defaultOut(now time.Time) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "host"
	}
	host = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(host, "_")
	return filepath.Join("results", now.Format("20060102-150405")+"-"+host+"-"+runtime.GOARCH)
}

// runSuite is deferbench run after flag parsing.
func runSuite(e *env, o runOptions) (err error) {
	opt, err := o.options()
	if err != nil {
		return err
	}
	start := time.Now()
	rd, err := o.openOut(start)
	if err != nil {
		return err
	}
	defer rd.Release()
	out := rd.Path
	if rd.Note != "" {
		fmt.Fprintf(e.stderr, "deferbench: note: %s\n", rd.Note)
	}
	if opt.Count < minCICount {
		how := "-count " + strconv.Itoa(opt.Count)
		if !o.set["count"] {
			how = "-quick's count " + strconv.Itoa(opt.Count)
		}
		fmt.Fprintf(e.stderr, "deferbench: warning: %s is below %d: benchstat needs at least %d repetitions for a confidence interval; the medians will have none\n", how, minCICount, minCICount)
	}
	benchPath, envPath := filepath.Join(out, "bench.txt"), filepath.Join(out, "env.json")

	before := envinfo.Capture()
	beforeAt := time.Now()
	doc := results.Env{
		Deferbench: results.Version(),
		Args:       os.Args,
		Started:    start.UTC().Format(time.RFC3339),
		Partial:    "true (run in progress)",
		Before:     before,
		Options: results.RunOptions{Quick: opt.Quick, Count: opt.Count, Benchtime: opt.Benchtime,
			Scenarios:  names(opt.Scenarios, func(s harness.Scenario) string { return s.Name }),
			Strategies: names(opt.Strategies, func(s harness.StrategyInfo) string { return s.Name }),
			Procs:      opt.Procs},
	}
	bf := results.NewBenchFile(benchPath)
	caps := harness.Capabilities(opt.Strategies) // what the verdicts read, not today's code
	bf.Config = append(results.RunConfig(before.CPUModel, before.ConfigLines()), caps...)
	e.stop.begin()
	if err := results.WriteJSON(envPath, doc); err != nil {
		rd.Discard()
		return err
	}

	total := opt.Cases()
	fin := &finisher{e: e, dir: out, bf: bf, doc: &doc, envPath: envPath}
	e.stop.setHard(func() {
		done := len(bf.Results())
		if done == 0 { // nothing measured: leave nothing behind
			os.Remove(envPath)
			rd.Discard()
			return
		}
		why := "stopped at once by a second interrupt"
		if done < total {
			fin.hardStop(fmt.Sprintf("%d of %d benchmarks finished (%s)", done, total, why))
		} else {
			fin.hardStop(fmt.Sprintf("all %d benchmarks finished; profiling %s", total, why))
		}
		rd.Release()
	})
	defer e.stop.setHard(nil)

	prog := newProgress(e.stderr, total)
	opt.Progress = prog.event
	runErr := harness.Run(e.ctx, opt, bf.Add)
	prog.finish()
	done := len(bf.Results())

	if done == 0 && runErr != nil {
		// Nothing was measured: leave nothing half-written behind.
		os.Remove(benchPath)
		os.Remove(envPath)
		rd.Discard()
		if errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("run: %w before the first benchmark finished; nothing kept", errInterrupted)
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
	bf.Config = append(results.RunConfig(before.CPUModel, envinfo.RunConfigLines(before, after)), caps...)
	fin.mu.Unlock()

	// With -profile, the profiles come before the files are finished, so that an interrupted
	// profiling run marks them partial too.
	var (
		as       []results.Attribution
		profErr  error
		profiled int
		groups   = harness.ProfileGroups(opt)
	)
	if runErr == nil && o.profile {
		as, profErr = harness.ProfileRun(e.ctx, opt, filepath.Join(out, "profiles"), func(group string) {
			fmt.Fprintf(e.stderr, "deferbench: profiling %s\n", group)
		})
		profiled = len(as)
	}
	partial := ""
	switch {
	case runErr != nil:
		partial = fmt.Sprintf("%d of %d benchmarks finished (%s)", done, total, stopReason(runErr))
	case profErr != nil:
		partial = fmt.Sprintf("all %d benchmarks finished; profiles of %d of %d scenario-strategy pairs (%s)", total, profiled, groups, stopReason(profErr))
	}
	var sumAttr *results.AttributionDoc
	if len(as) > 0 {
		sumAttr = &results.AttributionDoc{Categories: results.AttributionCategories, ByStrategy: harness.StrategyAttribution(as), ByScenario: as}
		writeAttribution(e.stdout, sumAttr.ByStrategy)
	}
	if err := fin.finish(partial, sumAttr); err != nil {
		return err
	}
	const marked = "bench.txt, env.json, summary.json and report.md say partial"
	switch {
	case errors.Is(runErr, context.Canceled):
		return fmt.Errorf("run: %w after %d of %d benchmarks: kept their results in %s; %s", errInterrupted, done, total, out, marked)
	case runErr != nil:
		return fmt.Errorf("run: %w: kept the %d of %d finished benchmarks in %s; %s", runErr, done, total, out, marked)
	case errors.Is(profErr, context.Canceled):
		return fmt.Errorf("run: %w while profiling: kept all %d results and the profiles of %d of %d scenario-strategy pairs in %s; %s", errInterrupted, total, profiled, groups, out, marked)
	case profErr != nil:
		return fmt.Errorf("run: profiles: %w: kept all %d results and the profiles of %d of %d scenario-strategy pairs in %s; %s", profErr, total, profiled, groups, out, marked)
	}
	fmt.Fprintf(e.stderr, "deferbench: %d results in %s (%s); compare with: benchstat -col /strategy %s\n",
		done, out, time.Since(start).Round(time.Second), shellQuote(benchPath))
	return nil
}

// shellQuote returns s as one POSIX shell word: unchanged when it has only characters the
// shell takes literally, else in single quotes (each ' inside closes them, is escaped with a
// backslash and reopens them), so that a
// suggested command stays copy-pasteable for a path with spaces.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:,@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// stopReason is the short reason in a partial marker: "interrupted", or "failed: " and err.
func stopReason(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
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

// progress shows the run's progress on stderr: a bar with ETA on a terminal, one plain line
// per finished benchmark otherwise.
type progress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("deferbench run"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

func (p *progress) event(ev harness.Event) {
	if p.bar != nil {
		if ev.Result == nil {
			p.bar.Describe(ev.Name)
		} else {
			p.bar.Add(1)
		}
		return
	}
	if ev.Result == nil {
		return
	}
	ns, _ := ev.Result.Value("ns/op")
	if ns == 0 {
		ns, _ = ev.Result.Value("sec/op")
		ns *= 1e9
	}
	fmt.Fprintf(p.w, "deferbench: [%d/%d] %s %.4g ns/op\n", ev.Done, ev.Total, ev.Name, ns)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

// finisher writes a run's closing files: bench.txt's and env.json's partial marker,
// summary.json, the plots and report.md. The run calls finish once its benchmarks (and
// profiles) are done; a second interrupt calls hardStop from the signal goroutine instead,
// while a benchmark may still be running, and the process exits after it. Whichever comes
// first writes the files; the other waits for it and does nothing.
type finisher struct {
	e       *env
	dir     string
	bf      *results.BenchFile
	doc     *results.Env
	envPath string
	mu      sync.Mutex // held while writing; guards doc, bf.Config and done
	done    bool
}

// finish writes the closing files with partial ("" for a complete run) and the attribution
// (nil without -profile).
func (f *finisher) finish(partial string, attr *results.AttributionDoc) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return nil
	}
	f.done = true
	return f.write(partial, attr)
}

// hardStop finishes with partial from the signal goroutine; bench.txt takes no more results.
func (f *finisher) hardStop(partial string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return
	}
	f.done = true
	if err := f.write(partial, nil); err != nil {
		fmt.Fprintf(f.e.stderr, "deferbench: %v\n", err)
	}
}

func (f *finisher) write(partial string, attr *results.AttributionDoc) error {
	f.doc.Finished = time.Now().UTC().Format(time.RFC3339)
	f.doc.Partial = partial
	if err := f.bf.Finish(partial); err != nil {
		return err
	}
	if err := results.WriteJSON(f.envPath, f.doc); err != nil {
		return err
	}
	plotErr, err := writeOutputs(runOutputs{dir: f.dir, results: f.bf.Results(), config: f.bf.Config, partial: partial, attr: attr, env: f.doc})
	if plotErr != nil {
		// The results are safe in bench.txt: a chart that cannot be drawn is noted, and the
		// run's files are complete without it (deferbench plot DIR draws them again).
		fmt.Fprintf(f.e.stderr, "deferbench: plots: %v\n", plotErr)
	}
	return err
}

// runOutputs is what writeOutputs writes a results directory's summary.json, plots and
// report.md from.
type runOutputs struct {
	dir     string
	results []*benchfmt.Result
	config  []results.Config // bench.txt's file-level configuration, without the partial marker
	partial string
	attr    *results.AttributionDoc // nil: none
	env     *results.Env            // nil: no env.json (NumCPU, load average and other work unknown)
}

// writeOutputs writes summary.json, the plots and report.md of a run into o.dir. A failure
// to draw or write the plots is plotErr, and report.md is written without them; err is any
// other failure.
func writeOutputs(o runOutputs) (plotErr, err error) {
	sum := results.SummaryFile{Deferbench: results.Version(), Partial: o.partial, Summaries: analysis.Summarize(o.results), Attribution: o.attr}
	if err := results.WriteJSON(filepath.Join(o.dir, "summary.json"), sum); err != nil {
		return nil, err
	}
	meta := render.ReportMeta{Config: o.config, Throttled: "unknown", Partial: o.partial}
	if o.env != nil {
		meta.Cores = o.env.Before.Cores
		meta.LoadBefore = o.env.Before.LoadAvg
		if c := o.env.CPUShare; c != nil {
			meta.OtherWork = &render.OtherWork{CPUs: c.CPUs, Seconds: c.Seconds, Other: c.Other, Steal: c.Steal}
		}
	}
	plots, plotErr := render.PlotWith(o.results, filepath.Join(o.dir, "plots"), render.PlotOptions{Cores: meta.Cores})
	for _, c := range o.config {
		if c.Key == "throttled" {
			meta.Throttled = c.Value
		}
	}
	if o.attr != nil {
		meta.Attribution = o.attr.ByStrategy
	}
	for _, p := range plots {
		if rel, err := filepath.Rel(o.dir, p); err == nil {
			meta.Plots = append(meta.Plots, rel)
		}
	}
	var report bytes.Buffer
	if err := render.WriteReport(&report, o.results, meta); err != nil {
		return plotErr, err
	}
	return plotErr, results.WriteFileAtomic(filepath.Join(o.dir, "report.md"), report.Bytes())
}

// plotsError turns a failure to write the charts into plots (a directory) into one line
// naming it: a plots/ that cannot be written into (no permission, a file of that name, a
// read-only file system) is a usage error saying to make it writable.
func plotsError(cmd, plots string, err error) error {
	if errors.Is(err, results.ErrBadValue) {
		return usagef("%s: %v", cmd, err)
	}
	if errors.Is(err, render.ErrTooManyCharts) {
		return usagef("%s: %v: plot draws the scenarios of a deferbench run; give its results, or fewer benchmarks", cmd, err)
	}
	for _, bad := range []error{fs.ErrPermission, syscall.ENOTDIR, syscall.EROFS, syscall.EEXIST} {
		if errors.Is(err, bad) {
			var pe *fs.PathError
			reason := err.Error()
			if errors.As(err, &pe) {
				reason = pe.Err.Error()
			}
			return usagef("%s: %s: cannot write the charts into it (%s): make it a writable directory, or remove it", cmd, plots, reason)
		}
	}
	return fmt.Errorf("%s: %s: %w", cmd, plots, err)
}
