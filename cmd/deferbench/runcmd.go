package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
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
With -measure instructions (docs/counts.md) each case that runs on one goroutine is also,
or only (-measure instructions alone), counted under valgrind's cachegrind at GOMAXPROCS=1:
instr/op beside ns/op in bench.txt, its spread over -repeats in summary.json, a Counts
section in report.md, and in env.json the cases left out with the reason. Counting needs
valgrind (Debian's valgrind package); without it the run stops at once with status 2.
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
		fs.StringVar(&o.measure, "measure", "time", "what to measure: time, instructions (instr/op counted under valgrind's cachegrind at GOMAXPROCS=1; docs/counts.md), or time,instructions; add cachesim for cachegrind's simulated cache misses (sim-D1-miss/op, sim-LL-miss/op)")
		fs.IntVar(&o.repeats, "repeats", 1, "with -measure instructions: times each row is counted; the spread, (max − min) / median, is over them (1: not measured)")
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
	measure                      string
	repeats                      int
	set                          map[string]bool // flags given on the command line
}

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
	bt, err := harness.ParseBenchtime(o.benchtime)
	if err != nil {
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
	opt = harness.Options{Scenarios: sc, Strategies: st, Quick: o.quick, Count: o.count, Benchtime: bt, Procs: procs}.Planned()
	per := len(opt.Cases)
	if per == 0 {
		return opt, usagef("run: no benchmark matches -scenarios %q and -strategies %q: none of those strategies runs in those scenarios (deferbench list says where each runs); add a scenario or a strategy", o.scenarios, o.strategies)
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

// runSuite is deferbench run after flag parsing: the options, checked once, and the held
// results directory go to rundir.Suite.
func runSuite(e *env, o runOptions) error {
	opt, err := o.options()
	if err != nil {
		return err
	}
	m, err := parseMeasure("run", o.measure)
	if err != nil {
		return err
	}
	if o.repeats < 1 || o.repeats > 100 {
		return usagef("run: -repeats %d: want a whole number from 1 to 100", o.repeats)
	}
	m.Repeats = o.repeats
	if m.Instructions {
		if _, err := counts.LookValgrind(""); err != nil {
			return usagef("run: -measure %s: %v", o.measure, err)
		}
		timedAt1 := slices.Contains(opt.Procs, 1) || len(opt.Procs) == 0 && runtime.GOMAXPROCS(0) == 1
		if !m.NoTime && !timedAt1 {
			fmt.Fprintf(e.stderr, "deferbench: note: instructions are counted at GOMAXPROCS=1; add -procs 1 to time the same rows (the counts sit beside ns/op under the same names)\n")
		}
	}
	exe, err := os.Executable()
	if err != nil && m.Instructions {
		return fmt.Errorf("run: the deferbench executable, for the counting children: %w", err)
	}
	var perfArgv func(harness.Case) []string
	if err == nil {
		perfArgv = func(c harness.Case) []string { return perfChildArgv(c, exe, counts.HardwareSet) }
	}
	start := time.Now()
	rd, err := o.openOut(start)
	if err != nil {
		return err
	}
	if rd.Note != "" {
		fmt.Fprintf(e.stderr, "deferbench: note: %s\n", rd.Note)
	}
	return rundir.Suite(e.ctx, rundir.Config{Options: opt, Dir: rd, Profile: o.profile, QuickCount: !o.set["count"],
		Args: os.Args, Started: start, Stdout: e.stdout, Stderr: e.stderr, Stop: e.stop,
		Measure: m, Child: func(c harness.Case) counts.Child { return countChildFor(c, exe) },
		PerfArgv: perfArgv})
}

// parseMeasure parses -measure: comma-separated time, instructions and cachesim (which adds
// cachegrind's cache simulation to instructions and implies it), at least one of time and
// instructions. A bad value is a usage error naming the valid ones.
func parseMeasure(cmd, s string) (rundir.Measure, error) {
	var m rundir.Measure
	time := false
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "time":
			time = true
		case "instructions":
			m.Instructions = true
		case "cachesim":
			m.Instructions, m.CacheSim = true, true
		default:
			return m, usagef("%s: -measure %q: want time, instructions or both (time,instructions), with cachesim to add cachegrind's simulated cache misses", cmd, s)
		}
	}
	m.NoTime = !time
	return m, nil
}
