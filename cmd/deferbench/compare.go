package main

import (
	"errors"
	"flag"
	"os"
	"slices"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/compare"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"golang.org/x/perf/benchfmt"
)

// compareDetail is the part of deferbench help compare between the summary and the flags.
const compareDetail = `Results are compared only under the same configuration: when the runs (or
results inside one run) differ in a config key of bench.txt (goarch, cpu, host-model,
kernel, governor, emulated, go, …) they are kept apart, and a note on stderr names the
keys and the -ignore value that compares across them. -ignore machine stands for
goarch,cpu,host-model,kernel,governor,lse-atomics,page-size (two machines; emulated
stays apart unless named). A key that one side records with one value and the other
does not record at all (a Go release that printed no cpu: or pkg: line) is not a
different value: those rows are compared, with a note. A sample that is NaN, infinite
or negative, or a result with zero iterations, is refused with its file and line. A line that begins like a benchmark
line but is not one (text a benchmark printed while it ran, in go test -v output; a line
cut short) is skipped as the benchmark format's reader skips it, with a note naming its
file and line; a file with no well-formed result is refused.

A Pi model's count and a board's counter: when one side holds instr/op counted on an
emulated ISA (run -measure instructions -isa pi4,pi5,pi4-32) and the other a board's
hw-instr/op (its PMU counter), compare lines up the model of that board (goarch and
lse-atomics: Pi 4, Pi 5 or Pi 32-bit) with the counter, row by row, with model ÷ counter
(-format text or markdown; no gate applies to it).

Gate: -fail 'sec/op>5%,allocs/op>0,B/op>0' exits with status 1 when a metric is worse
than its threshold (relative with %, else absolute in the file's unit, ns for sec/op)
and the difference is significant at -alpha. allocs/op, B/op and distinct-states whose
samples all agree on each side are compared exactly, even from one sample; changes
of at most 0.01 allocs/op or 1 byte (B/op, heap-B/cmd: amortised growth) never count.
A gated metric without a verdict (too few samples), or one whose test could not fail at
any outcome, is not judged, and a gated unit that matched no row (distinct-states>0
against a run without those benchmarks) is named: when no metric fails and some are
not judged or matched nothing, or a side did not finish (interrupted; go test output
with --- FAIL, FAIL, panic: or fatal error:), the gate is inconclusive. A unit twice on
one line is refused as a bad value. Exit status: 0 pass (every gated metric judged),
1 gate failed, 2 bad input, 3 gate inconclusive.

OLD or NEW may be a pipe, as for benchstat: - reads standard input (go test -bench .
-count 6 | deferbench compare old.txt -), and a shell's process substitution
<(go test -bench . -count 6) or a named pipe (mkfifo) is read until its writer closes
it, at most 64 MiB. A pipe that gives nothing for 2 s is noted once on stderr and
waited for (benchmarks take minutes); interrupt to stop. A terminal or other device
is refused.`

var compareCommand = &command{
	name:       "compare",
	flagsAfter: true,
	args:       "[flags] OLD NEW",
	summary:    "compare two runs (bench.txt files, results directories or pipes) metric by metric: medians, 95% CIs, change and Mann-Whitney p; -fail gates",
	detail:     compareDetail,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		var o compareFlags
		o.define(fs)
		ignoreProcs := fs.Bool("ignore-procs", false, "match benchmarks without their -GOMAXPROCS suffix (machines with different core counts); "+
			"one that a run has at several GOMAXPROCS keeps them apart")
		paired := fs.Bool("paired", false, "pair the i-th sample of each metric in OLD with the i-th in NEW (rounds of deferbench ab) and test the per-round ratios")
		return func(args []string) error {
			args, err := parseInterspersed(e.cmd, fs, args)
			if err != nil {
				return err
			}
			if args == nil {
				writeCommandHelp(e.stdout, e.cmd)
				return nil
			}
			if len(args) != 2 {
				return usagef("compare: want two arguments OLD NEW, got %d (e.g. deferbench compare results/OLD-RUN results/NEW-RUN)", len(args))
			}
			opt, err := o.options("compare")
			if err != nil {
				return err
			}
			opt.Paired = *paired
			return compare.Run(e.ctx, compare.Request{Old: args[0], New: args[1], Options: opt, IgnoreProcs: *ignoreProcs,
				Output: o.output(), Gates: o.gates(e, "compare"), Stdin: os.Stdin, Stdout: e.stdout, Stderr: e.stderr})
		}
	},
}

// compareFlags are the flags compare and ab share: the test, the gate, the output.
type compareFlags struct {
	alpha  float64
	ignore string
	fail   string
	format string
	full   string
	// countTs are -fail's conditions on count units, gated by countGate; timeFail the rest.
	countTs  []counts.Threshold
	timeFail string
}

func (o *compareFlags) define(fs *flag.FlagSet) {
	fs.Float64Var(&o.alpha, "alpha", 0.05, "significance level of the test")
	fs.StringVar(&o.ignore, "ignore", "", "comma-separated config keys to compare across although their values differ (machine = goarch,cpu,host-model,kernel,governor,lse-atomics,page-size; * = every key)")
	fs.StringVar(&o.fail, "fail", o.fail, "gate: comma-separated unit>N% or unit>N thresholds, e.g. 'sec/op>5%,allocs/op>0,B/op>0'; exit 1 when a metric is worse beyond one and significant; count units (instr/op>0.5%) are gated against their measured spread instead, without a test (docs/counts.md)")
	fs.StringVar(&o.format, "format", "text", "output format: text, markdown, csv or json")
	fs.StringVar(&o.full, "full", o.full, "also write every row, in markdown tables, to this file: a new one, or one an earlier -full wrote (-format markdown stays under 60,000 characters and points to it)")
}

func (o *compareFlags) options(cmd string) (analysis.CompareOptions, error) {
	var opt analysis.CompareOptions
	if !(o.alpha > 0 && o.alpha < 1) {
		return opt, usagef("%s: -alpha %v: want a value in (0, 1)", cmd, o.alpha)
	}
	if !slices.Contains(render.CompareFormats, o.format) {
		return opt, usagef("%s: -format %q: want one of %s", cmd, o.format, strings.Join(render.CompareFormats, ", "))
	}
	opt.Alpha = o.alpha
	if strings.TrimSpace(o.ignore) != "" {
		for _, k := range strings.Split(o.ignore, ",") {
			if k = strings.TrimSpace(k); k != "" {
				opt.Ignore = append(opt.Ignore, k)
			}
		}
	}
	fail, cts, err := splitCountFail(cmd, o.fail)
	if err != nil {
		return opt, err
	}
	o.countTs, o.timeFail = cts, fail
	if strings.TrimSpace(fail) != "" {
		ts, err := analysis.ParseThresholds(fail)
		if err != nil {
			return opt, usagef("%s: -fail: %v", cmd, err)
		}
		opt.Thresholds = ts
	}
	return opt, nil
}

// output is how compare and ab write the comparison.
func (o *compareFlags) output() compare.Output {
	return compare.Output{Format: o.format, Full: o.full, Fail: o.timeFail}
}

// gates are the count gate on -fail's count conditions, and how its outcome joins the time
// gate's.
func (o *compareFlags) gates(e *env, cmd string) compare.Gates {
	return compare.Gates{
		Count: func(old, new []*benchfmt.Result, newSkipped int) error {
			return countGate(e, cmd, o.countTs, old, new, newSkipped > 0)
		},
		Join: gateResult,
	}
}

// parseInterspersed parses flags that follow positional arguments too ("compare A B
// -ignore-procs"), after the command line's first parse stopped at A; "--" ends the flags.
// It returns the positional arguments, or nil after -h.
func parseInterspersed(c *command, fs *flag.FlagSet, args []string) ([]string, error) {
	pos := []string{}
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return append(pos, args[1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil
			}
			return nil, flagError(c, fs, err)
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		args = rest
	}
	return pos, nil
}
