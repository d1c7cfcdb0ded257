package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deferbench/deferbench/envinfo"
	"github.com/deferbench/deferbench/harness"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Defaults of deferbench run, and of deferbench run -quick.
const (
	defaultCount     = harness.DefaultCount
	defaultBenchtime = harness.DefaultBenchtime
	quickCount       = 3
	quickBenchtime   = "20ms"
)

var runCommand = &command{
	name:    "run",
	args:    "[flags]",
	summary: "run the benchmark suite and write bench.txt and env.json into a results directory",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		var o runOptions
		fs.BoolVar(&o.quick, "quick", false, "smoke run: benchtime "+quickBenchtime+", count "+strconv.Itoa(quickCount)+", smallest sizes")
		fs.IntVar(&o.count, "count", defaultCount, "repetitions of every benchmark (benchstat needs at least 6 for a confidence interval)")
		fs.StringVar(&o.benchtime, "benchtime", defaultBenchtime, "time (\"100ms\") or iterations (\"1000x\") per benchmark, as go test -benchtime")
		fs.StringVar(&o.scenarios, "scenarios", "", "comma-separated scenarios to run (default all; see deferbench list)")
		fs.StringVar(&o.strategies, "strategies", "", "comma-separated strategies to run (default all; see deferbench list)")
		fs.StringVar(&o.procs, "procs", "", "comma-separated GOMAXPROCS values to run every benchmark at (default the current GOMAXPROCS)")
		fs.StringVar(&o.out, "out", "", "results directory (default results/<yyyymmdd-hhmmss>-<host>-<goarch>)")
		fs.BoolVar(&o.profile, "profile", false, "after the timed runs, run each scenario and strategy once more with profiling on: write profiles/<Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz and a CPU attribution table")
		return func(args []string) error {
			if err := noArgs("run", args); err != nil {
				return err
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if o.quick {
				if !set["count"] {
					o.count = quickCount
				}
				if !set["benchtime"] {
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
}

// splitList splits a comma-separated flag value, dropping empty elements.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// options validates o into harness options; every problem is a usage error.
func (o runOptions) options() (harness.Options, error) {
	var opt harness.Options
	if o.count < 1 {
		return opt, usagef("run: -count %d: must be at least 1", o.count)
	}
	if err := harness.CheckBenchtime(o.benchtime); err != nil {
		return opt, usagef("run: -benchtime %q: want a duration like 100ms or an iteration count like 1000x", o.benchtime)
	}
	sc, err := harness.SelectScenarios(splitList(o.scenarios))
	if err != nil {
		return opt, usagef("run: -scenarios: %v", err)
	}
	st, err := harness.SelectStrategies(splitList(o.strategies))
	if err != nil {
		return opt, usagef("run: -strategies: %v", err)
	}
	var procs []int
	for _, p := range splitList(o.procs) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return opt, usagef("run: -procs: invalid GOMAXPROCS %q (want positive integers, e.g. 1,2,4)", p)
		}
		procs = append(procs, n)
	}
	opt = harness.Options{Scenarios: sc, Strategies: st, Quick: o.quick, Count: o.count, Benchtime: o.benchtime, Procs: procs}
	if opt.Cases() == 0 {
		return opt, usagef("run: no benchmark matches -scenarios %q and -strategies %q", o.scenarios, o.strategies)
	}
	return opt, nil
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

// envFile is env.json: the environment before and after the run.
type envFile struct {
	Deferbench string        `json:"deferbench"`
	Args       []string      `json:"args"`
	Started    string        `json:"started"`
	Finished   string        `json:"finished,omitempty"`
	Partial    string        `json:"partial,omitempty"`
	Throttled  *bool         `json:"throttled,omitempty"`
	Before     envinfo.Env   `json:"before"`
	After      *envinfo.Env  `json:"after,omitempty"`
	Options    runOptionsDoc `json:"options"`
}

type runOptionsDoc struct {
	Quick      bool     `json:"quick"`
	Count      int      `json:"count"`
	Benchtime  string   `json:"benchtime"`
	Scenarios  []string `json:"scenarios"`
	Strategies []string `json:"strategies"`
	Procs      []int    `json:"procs,omitempty"`
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return harness.WriteFileAtomic(path, append(b, '\n'))
}

// runSuite is deferbench run after flag parsing.
func runSuite(e *env, o runOptions) (err error) {
	opt, err := o.options()
	if err != nil {
		return err
	}
	start := time.Now()
	out := o.out
	if out == "" {
		out = defaultOut(start)
	}
	created, err := harness.CheckWritable(out)
	if err != nil {
		return err
	}
	benchPath, envPath := filepath.Join(out, "bench.txt"), filepath.Join(out, "env.json")

	before := envinfo.Capture()
	doc := envFile{
		Deferbench: harness.Version(),
		Args:       os.Args,
		Started:    start.UTC().Format(time.RFC3339),
		Partial:    "true (run in progress)",
		Before:     before,
		Options: runOptionsDoc{Quick: opt.Quick, Count: opt.Count, Benchtime: opt.Benchtime,
			Scenarios:  names(opt.Scenarios, func(s harness.Scenario) string { return s.Name }),
			Strategies: names(opt.Strategies, func(s harness.StrategyInfo) string { return s.Name }),
			Procs:      opt.Procs},
	}
	bf := harness.NewBenchFile(benchPath)
	bf.Config = harness.RunConfig(before.CPUModel, before.ConfigLines())
	if err := writeJSON(envPath, doc); err != nil {
		cleanup(out, created)
		return err
	}

	prog := newProgress(e.stderr, opt.Cases())
	opt.Progress = prog.event
	runErr := harness.Run(e.ctx, opt, bf.Add)
	prog.finish()

	if len(bf.Results()) == 0 && runErr != nil {
		// Nothing was measured: leave nothing half-written behind.
		os.Remove(benchPath)
		os.Remove(envPath)
		cleanup(out, created)
		return wrapRunErr(runErr)
	}
	after := envinfo.Capture()
	doc.After = &after
	doc.Finished = time.Now().UTC().Format(time.RFC3339)
	th, _ := envinfo.Throttled(before, after)
	doc.Throttled = &th
	bf.Config = harness.RunConfig(before.CPUModel, envinfo.RunConfigLines(before, after))
	partial := ""
	if runErr != nil {
		partial = fmt.Sprintf("true (%d of %d benchmarks: %v)", len(bf.Results()), opt.Cases(), runErr)
	}
	doc.Partial = partial
	if err := bf.Finish(partial); err != nil {
		return err
	}
	if err := writeJSON(envPath, doc); err != nil {
		return err
	}
	sum := summaryFile{Deferbench: harness.Version(), Partial: partial, Summaries: harness.Summarize(bf.Results())}
	if runErr == nil && o.profile {
		as, err := harness.ProfileRun(e.ctx, opt, filepath.Join(out, "profiles"), func(group string) {
			fmt.Fprintf(e.stderr, "deferbench: profiling %s\n", group)
		})
		if err != nil {
			runErr = fmt.Errorf("profiles: %w", err)
		}
		if len(as) > 0 {
			sum.Attribution = &attribution{Categories: harness.AttributionCategories, ByStrategy: harness.StrategyAttribution(as), ByScenario: as}
			writeAttribution(e.stdout, sum.Attribution.ByStrategy)
		}
	}
	if err := writeJSON(filepath.Join(out, "summary.json"), sum); err != nil {
		return err
	}
	plots, err := harness.Plot(bf.Results(), filepath.Join(out, "plots"))
	if err != nil {
		fmt.Fprintf(e.stderr, "deferbench: plots: %v\n", err)
	}
	meta := harness.ReportMeta{Config: bf.Config, Throttled: "unknown", Partial: partial}
	for _, c := range bf.Config {
		if c.Key == "throttled" {
			meta.Throttled = c.Value
		}
	}
	if sum.Attribution != nil {
		meta.Attribution = sum.Attribution.ByStrategy
	}
	for _, p := range plots {
		if rel, err := filepath.Rel(out, p); err == nil {
			meta.Plots = append(meta.Plots, rel)
		}
	}
	var report bytes.Buffer
	if err := harness.WriteReport(&report, bf.Results(), meta); err != nil {
		return err
	}
	if err := harness.WriteFileAtomic(filepath.Join(out, "report.md"), report.Bytes()); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("%w; kept %d finished results in %s, marked partial", wrapRunErr(runErr), len(bf.Results()), out)
	}
	fmt.Fprintf(e.stderr, "deferbench: %d results in %s (%s); compare with: benchstat -col /strategy %s\n",
		len(bf.Results()), out, time.Since(start).Round(time.Second), benchPath)
	return nil
}

// summaryFile is summary.json: per benchmark and unit the median and 95% confidence interval
// over the repetitions (golang.org/x/perf/benchmath), and with -profile the CPU attribution.
type summaryFile struct {
	Deferbench  string            `json:"deferbench"`
	Partial     string            `json:"partial,omitempty"`
	Summaries   []harness.Summary `json:"summaries"`
	Attribution *attribution      `json:"attribution,omitempty"`
}

type attribution struct {
	Categories []string              `json:"categories"`
	ByStrategy []harness.Attribution `json:"by_strategy"`
	ByScenario []harness.Attribution `json:"by_scenario"`
}

// writeAttribution prints one row per strategy: the share of its CPU in each category.
func writeAttribution(w io.Writer, as []harness.Attribution) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "CPU attribution\tcpu-s\t")
	for _, c := range harness.AttributionCategories {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprintln(tw)
	for _, a := range as {
		fmt.Fprintf(tw, "%s\t%.2f\t", a.Strategy, a.CPU)
		for _, c := range harness.AttributionCategories {
			fmt.Fprintf(tw, "%.1f%%\t", 100*a.Share[c])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func wrapRunErr(err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %v", errInterrupted, err)
	}
	return err
}

func cleanup(dir string, created bool) {
	if created {
		os.Remove(dir) // only if empty
	}
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
