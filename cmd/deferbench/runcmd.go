package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/isabuild"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/runopts"
)

// runDetail is the part of deferbench help run between the summary and the flags.
const runDetail = `The results directory is -out, which must be new or empty, or by default
results/<yyyymmdd-hhmmss>-<host>-<goarch>, with -2, -3, … added when that exists. It gets:
  bench.txt     results in the Go benchmark format, for benchstat
  env.json      the environment captured before and after the run, and the run's options
  summary.json  per benchmark and unit: median and 95% confidence interval
  report.md     the pick per kind of need, how sure it is and the command to be surer;
                the trust flags, which strategy to pick per requirement, findings in a
                line per headline metric, the configuration
  details.md    the verdicts per variant with their figures, the rankings with ratio
                CIs and U tests, tables of medians ± 95% CI, the plots
  plots/        charts of the results with 95% CI error bars, SVG and PNG
  profiles/     with -profile: <Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz
With -measure instructions (docs/counts.md) each case that runs on one goroutine is also,
or only (-measure instructions alone), counted under valgrind's cachegrind at GOMAXPROCS=1:
instr/op beside ns/op in bench.txt, its spread over -repeats in summary.json, a Counts
section in report.md, and in env.json the cases left out with the reason. Counting needs
valgrind (Debian's valgrind package); without it the run stops at once with status 2.
Rows are counted side by side, one per CPU (the counts do not depend on it, only the wall
time does); DEFERBENCH_COUNT_JOBS=N counts N at a time. -isa pi4,pi5,pi4-32 counts the
same rows on the Raspberry Pi's instruction sets from any machine: the child, cross-built
from the source tree run in, runs under qemu-user with a counting plugin (Debian's
qemu-user and the plugin: scripts/install-qemu-count.sh); each ISA's rows carry their own
goarch, cpu, isa, lse-atomics and emulated lines (benchstat -col isa). On an arm64 or arm
machine the host's instructions are not counted (valgrind does not run Go there): the run
stops at once; read the PMU's counter on the board, or give -isa from an x86 machine.
The first interrupt (Ctrl-C) stops the run after the current benchmark, or a second later
if it has not finished by then, the second at once; either way the run keeps what finished,
marks bench.txt, env.json, summary.json and report.md partial and exits with status 130.
A benchmark one of whose calls makes no progress for -stall-after (30s), or for 10 times
the time its previous call predicts if longer, is left behind as stalled: the terminal says
so at once, its later repetitions are skipped, every other benchmark runs, and the files
are marked partial naming it ("stalled: NAME made no progress for 30s"); exit status 1.
deferbench report DIR rebuilds the files of a run that was killed outright.`

var runCommand = &command{
	name:    "run",
	args:    "[flags]",
	summary: "run the benchmark suite and write the results into a new results directory",
	detail:  runDetail,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		var o runopts.Flags
		fs.BoolVar(&o.Quick, "quick", false, "smoke run: benchtime "+runopts.QuickBenchtime+", count "+strconv.Itoa(runopts.QuickCount)+", smallest sizes")
		fs.IntVar(&o.Count, "count", runopts.DefaultCount, "repetitions of every benchmark, at least 1; below 6 warns (benchstat needs 6 for a confidence interval)")
		fs.StringVar(&o.Benchtime, "benchtime", runopts.DefaultBenchtime, "time (\"100ms\") or iterations (\"1000x\") per benchmark, as go test -benchtime")
		fs.BoolVar(&o.Long, "long", false, "start a plan that takes more than 2h at least (-benchtime × -count × benchmarks); without it such a plan is refused")
		fs.DurationVar(&o.StallAfter, "stall-after", harness.DefaultStallAfter, "give up on a benchmark as stalled when one of its calls makes no progress for this long, or for 10× its predicted time if longer; the run goes on without it")
		fs.StringVar(&o.Scenarios, "scenarios", "", "comma-separated scenarios to run (default all; see deferbench list)")
		fs.StringVar(&o.Strategies, "strategies", "", "comma-separated strategies to run (default all; see deferbench list)")
		fs.StringVar(&o.Storages, "storages", "", "comma-separated ecs.World storages the storage-dependent scenarios (StageApply, Structural, Frame, Spike, Peer) run on: slots, archetypes (default both; rows on archetypes are named storage=archetypes)")
		fs.StringVar(&o.Procs, "procs", "", "comma-separated GOMAXPROCS values to run every benchmark at, each at most max(256, 4×NumCPU) (default the current GOMAXPROCS)")
		fs.StringVar(&o.Out, "out", "", "results directory, new or empty (default results/<yyyymmdd-hhmmss>-<host>-<goarch>[-N])")
		fs.StringVar(&o.Measure, "measure", "time", "what to measure: time, instructions (instr/op counted under valgrind's cachegrind at GOMAXPROCS=1; docs/counts.md), or time,instructions; add cachesim for cachegrind's simulated cache misses (sim-D1-miss/op, sim-LL-miss/op)")
		fs.StringVar(&o.ISA, "isa", "host", "with -measure instructions: comma-separated instruction sets to count on: host (this machine's, under cachegrind), pi4 (arm64, Cortex-A72 model, no LSE atomics), pi5 (arm64, Cortex-A76 model, LSE), pi4-32 (arm, GOARM=7, Cortex-A72 model); the Pi's are counted under qemu-user from any machine (docs/counts.md)")
		fs.IntVar(&o.Repeats, "repeats", 1, "with -measure instructions: times each row is counted; the spread, (max − min) / median, is over them (1: not measured)")
		fs.BoolVar(&o.Profile, "profile", false, "after the timed runs, run each scenario and strategy once more with profiling on: write profiles/<Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz and a CPU attribution table")
		return func(args []string) error {
			if err := noArgs("run", args); err != nil {
				return err
			}
			o.Set = map[string]bool{}
			fs.Visit(func(f *flag.Flag) { o.Set[f.Name] = true })
			if o.Quick {
				if !o.Set["count"] {
					o.Count = runopts.QuickCount
				}
				if !o.Set["benchtime"] {
					o.Benchtime = runopts.QuickBenchtime
				}
			}
			return runSuite(e, o)
		}
	},
}

// runSuite is deferbench run after flag parsing: the options, checked once, and the held
// results directory go to rundir.Suite.
func runSuite(e *env, o runopts.Flags) error {
	opt, m, err := o.Check(e.stderr)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil && m.Instructions {
		return fmt.Errorf("run: the deferbench executable, for the counting children: %w", err)
	}
	var perfArgv func(harness.Case) []string
	if err == nil {
		perfArgv = func(c harness.Case) []string { return perfChildArgv(c, exe, counts.HardwareSet) }
	}
	children := map[string]string{}
	if m.Instructions {
		var cleanup func()
		if children, cleanup, err = isabuild.Children(e.ctx, m.CountISAs(), e.stderr); err != nil {
			return err
		}
		defer cleanup()
	}
	start := time.Now()
	rd, err := o.OpenOut(start, e.stderr)
	if err != nil {
		return err
	}
	child := func(c harness.Case, isa counts.ISA) counts.Child {
		if isa.Host() {
			return countChildFor(c, exe)
		}
		return countChildFor(c, children[isa.Name])
	}
	return rundir.Suite(e.ctx, rundir.Config{Options: opt, Dir: rd, Profile: o.Profile, QuickCount: !o.Set["count"],
		Args: os.Args, Started: start, Stdout: e.stdout, Stderr: e.stderr, Stop: e.stop,
		Measure: m, Child: child, PerfArgv: perfArgv})
}
