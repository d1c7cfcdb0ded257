package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
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

Gate: -fail 'sec/op>5%,allocs/op>0,B/op>0' exits with status 1 when a metric is worse
than its threshold (relative with %, else absolute in the file's unit, ns for sec/op)
and the difference is significant at -alpha. allocs/op, B/op and distinct-states whose
samples all agree on each side are compared exactly, even from one sample; changes
below 0.01 allocs/op or 1 byte (B/op, heap-B/cmd: amortised growth) never count.
A gated metric without a verdict (too few samples), or one whose test could not fail at
any outcome, is not judged: when no metric fails and some are not judged, the gate is
inconclusive. Exit status: 0 pass (every gated metric judged), 1 gate failed, 2 bad
input, 3 gate inconclusive.

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
				return usagef("compare: want two arguments OLD NEW, got %d", len(args))
			}
			opt, err := o.options("compare")
			if err != nil {
				return err
			}
			opt.Paired = *paired
			if args[0] == "-" && args[1] == "-" {
				return usagef("compare: - (standard input) given for both OLD and NEW: give it for one of them")
			}
			old, err := readInput(e, "compare", args[0])
			if err != nil {
				return err
			}
			new, err := readInput(e, "compare", args[1])
			if err != nil {
				return err
			}
			if err := analysis.CheckThresholdUnits(opt.Thresholds, old, new); err != nil {
				return usagef("compare: -fail: %v", err)
			}
			if n := analysis.UnknownIgnore(opt.Ignore, old, new); n != "" {
				fmt.Fprintf(e.stderr, "deferbench: compare: note: %s\n", n)
			}
			if args[0] != "-" && args[1] != "-" && same(args[0], args[1]) {
				fmt.Fprintf(e.stderr, "deferbench: compare: note: OLD and NEW are the same file (%s): every difference is 0\n", benchPath(args[1]))
			}
			for i, a := range args {
				if a == "-" {
					args[i] = results.StdinName // for the notes and the output
				}
			}
			for _, in := range []struct {
				path string
				rs   []*benchfmt.Result
			}{{args[0], old}, {args[1], new}} {
				if p := results.Partial(in.rs); p != "" {
					fmt.Fprintf(e.stderr, "deferbench: compare: note: %s: %s\n", in.path, results.PartialText(p))
				}
			}
			if *ignoreProcs {
				if kept := results.IgnoreProcs(old, new); len(kept) > 0 {
					fmt.Fprintf(e.stderr, "deferbench: compare: note: -ignore-procs: %s run at several GOMAXPROCS, kept apart (matched at equal GOMAXPROCS only)\n",
						plural(len(kept), "benchmark"))
				}
			}
			onlyOld, onlyNew := results.Unmatched(old, new)
			writeOnly(e.stderr, args[0], onlyOld)
			writeOnly(e.stderr, args[1], onlyNew)
			c := analysis.CompareRuns(old, new, opt)
			for _, n := range c.Notes {
				fmt.Fprintf(e.stderr, "deferbench: compare: note: %s\n", n)
			}
			if len(c.Rows) == 0 {
				hint := ""
				switch {
				case len(c.Differ) > 0:
					hint = " under the same configuration (add -ignore " + c.Hint + " to compare across)"
				case !*ignoreProcs && results.CommonWithoutProcs(old, new):
					hint = " (runs from machines with different core counts? try -ignore-procs)"
				default:
					hint = ": give two runs of the same benchmarks"
				}
				return usagef("compare: %s and %s have no benchmark and unit in common%s", args[0], args[1], hint)
			}
			o.flags[0] = analysis.TrustFlags(old, results.EnvBeside(args[0]))
			o.flags[1] = analysis.TrustFlags(new, results.EnvBeside(args[1]))
			cerr := countGate(e, "compare", o.countTs, old, new)
			if ue := (*usageError)(nil); errors.As(cerr, &ue) {
				return cerr
			}
			return gateResult(o.write(e, "compare", args[0], args[1], label(args[0]), label(args[1]), c), cerr)
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
	flags  [2][]string // the sides' trust flags (analysis.TrustFlags), set before write
	// countTs are -fail's conditions on count units, gated by countGate; timeFail the rest.
	countTs  []counts.Threshold
	timeFail string
}

func (o *compareFlags) define(fs *flag.FlagSet) {
	fs.Float64Var(&o.alpha, "alpha", 0.05, "significance level of the test")
	fs.StringVar(&o.ignore, "ignore", "", "comma-separated config keys to compare across although their values differ (machine = goarch,cpu,host-model,kernel,governor,lse-atomics,page-size; * = every key)")
	fs.StringVar(&o.fail, "fail", o.fail, "gate: comma-separated unit>N% or unit>N thresholds, e.g. 'sec/op>5%,allocs/op>0,B/op>0'; exit 1 when a metric is worse beyond one and significant; count units (instr/op>0.5%) are gated against their measured spread instead, without a test (docs/counts.md)")
	fs.StringVar(&o.format, "format", "text", "output format: text, markdown, csv or json")
	fs.StringVar(&o.full, "full", o.full, "also write every row, in markdown tables, to this file (-format markdown stays under 60,000 characters and points to it)")
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

// write prints c in the chosen format and returns the gate's error: one wrapping
// analysis.ErrGateFailed (exit status 1) or analysis.ErrGateInconclusive (exit status 3).
func (o *compareFlags) write(e *env, cmd, oldPath, newPath, oldLabel, newLabel string, c *analysis.RunComparison) error {
	doc := &render.CompareDoc{Old: oldPath, New: newPath, OldLabel: oldLabel, NewLabel: newLabel, Comparison: c, Full: o.full,
		OldFlags: o.flags[0], NewFlags: o.flags[1]}
	if strings.TrimSpace(o.timeFail) != "" {
		doc.Fail = o.timeFail
	}
	if c.OldLabel != "" {
		doc.OldLabel, doc.NewLabel = c.OldLabel, c.NewLabel
		fmt.Fprintf(e.stderr, "deferbench: %s: note: comparing across machines: OLD %s is %q, NEW %s is %q\n", cmd, oldPath, c.OldLabel, newPath, c.NewLabel)
	}
	if o.full != "" {
		var b bytes.Buffer
		if err := render.WriteCompareMarkdownFull(&b, doc); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(o.full, b.Bytes()); err != nil {
			return usagef("%s: -full %s: %v: give a writable path", cmd, o.full, err)
		}
	}
	if err := render.WriteCompare(e.stdout, o.format, doc); err != nil {
		return err
	}
	if err := c.GateErr(doc.Fail != ""); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}

// benchPath is the bench.txt a compare argument stands for.
func benchPath(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return filepath.Join(p, "bench.txt")
	}
	return p
}

// same reports whether two compare arguments are the same file.
func same(a, b string) bool {
	fa, err1 := os.Stat(benchPath(a))
	fb, err2 := os.Stat(benchPath(b))
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
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

// readRun reads the results of a bench.txt or a results directory, turning a missing or
// wrong file into a one-line usage error (exit status 2) that says what to give.
func readRun(cmd, path string) ([]*benchfmt.Result, error) {
	rs, err := results.ReadResults(path)
	if err != nil {
		return nil, runError(cmd, path, err)
	}
	return rs, nil
}

// waitNotice is how long compare reads nothing from a pipe before it says it is waiting.
var waitNotice = 2 * time.Second

// readInput is readRun for an input of compare, which may also be a pipe: "-" (standard
// input) or a named pipe such as the /dev/fd/N of a shell's <(go test -bench .). A pipe that
// has given nothing after waitNotice is noted on stderr, once; the read goes on (a benchmark
// run may take minutes before its first line), until its writer closes it or an interrupt.
func readInput(e *env, cmd, path string) ([]*benchfmt.Result, error) {
	name := path
	if path == "-" {
		name = results.StdinName
	}
	var skipped []results.Skipped
	rs, err := results.ReadInput(e.ctx, path, results.InputOptions{
		Stdin:     os.Stdin,
		Skipped:   func(s results.Skipped) { skipped = append(skipped, s) },
		WaitAfter: waitNotice,
		Waiting: func(noWriter bool) {
			if noWriter {
				fmt.Fprintf(e.stderr, "deferbench: %s: waiting for a program to open the named pipe %s for writing (interrupt to stop)\n", cmd, name)
				return
			}
			fmt.Fprintf(e.stderr, "deferbench: %s: waiting for %s: nothing read yet after %v; reading until its writer closes it (interrupt to stop)\n", cmd, name, waitNotice)
		},
	})
	if err != nil {
		return nil, runError(cmd, path, err)
	}
	for _, n := range results.SkippedNotes(skipped, 3) {
		fmt.Fprintf(e.stderr, "deferbench: %s: note: %s\n", cmd, n)
	}
	return rs, nil
}

// runError turns what went wrong reading path into a one-line usage error (exit status 2)
// that says what to give, or an error naming cmd.
func runError(cmd, path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			if _, eerr := os.Stat(filepath.Join(path, "env.json")); eerr == nil {
				// A run writes env.json first: one killed before its first benchmark
				// finished leaves it alone.
				return usagef("%s: %s has env.json but no bench.txt: a run stopped before its first benchmark finished, nothing to read; remove it and run again", cmd, path)
			}
			return usagef("%s: %s has no bench.txt: give a bench.txt or a results directory", cmd, path)
		}
		return usagef("%s: %s: no such file: give a bench.txt or a results directory", cmd, path)
	case errors.Is(err, results.ErrNotRegular):
		var pe *fs.PathError
		switch {
		case !errors.As(err, &pe):
			return usagef("%s: %v", cmd, err)
		case pe.Path == results.StdinName && path == "-":
			return usagef("%s: - reads standard input, which is %v (a terminal?): pipe the results in (go test -bench . | deferbench %s - NEW) or give a file", cmd, pe.Err, cmd)
		case cmd == "compare" && pe.Path == path:
			return usagef("%s: %s is %v: give a bench.txt, a results directory, a pipe such as <(go test -bench .), or - for standard input", cmd, pe.Path, pe.Err)
		}
		return usagef("%s: %s is %v: save the results to a file (go test -bench . > bench.txt) and give its path, or give a results directory", cmd, pe.Path, pe.Err)
	case errors.Is(err, results.ErrNoBenchmarks):
		return usagef("%s: %v: give a bench.txt with results, or a results directory", cmd, err)
	case errors.Is(err, results.ErrNotResults) && strings.Contains(err.Error(), "longer than"), errors.Is(err, results.ErrMalformed):
		return usagef("%s: %v", cmd, err)
	case errors.Is(err, results.ErrNotResults):
		if path == "-" {
			path = results.StdinName
		}
		return usagef("%s: %s is not a Go benchmark results file: give a bench.txt that deferbench run or go test -bench wrote, or a results directory", cmd, path)
	case errors.Is(err, results.ErrBadValue), errors.Is(err, results.ErrTooLarge):
		return usagef("%s: %v", cmd, err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) { // unreadable: permissions, a symlink loop, a folder named bench.txt
		return usagef("%s: %s: cannot read it (%v): give a readable bench.txt or a results directory", cmd, pe.Path, pe.Err)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// writeOnly notes, in one line, the benchmarks only path has (first three named).
func writeOnly(w io.Writer, path string, names []string) {
	if len(names) == 0 {
		return
	}
	shown := names[:min(len(names), 3)]
	more := ""
	if len(names) > len(shown) {
		more = fmt.Sprintf(", … (%d more)", len(names)-len(shown))
	}
	fmt.Fprintf(w, "deferbench: compare: note: %s only in %s, not compared: %s%s\n",
		plural(len(names), "benchmark"), path, strings.Join(shown, ", "), more)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// label names a run in a table header: its directory for a results directory's bench.txt.
func label(path string) string {
	if path == results.StdinName || strings.HasPrefix(path, "/dev/fd/") || strings.HasPrefix(path, "/proc/self/fd/") {
		return path // a pipe: "stdin", or the shell's name for <(…), not "63"
	}
	path = strings.TrimRight(path, "/")
	if filepath.Base(path) == "bench.txt" {
		path = filepath.Dir(path)
	}
	if b := filepath.Base(path); b == "." || b == ".." || b == "/" {
		if abs, err := filepath.Abs(path); err == nil && filepath.Base(abs) != "/" {
			return filepath.Base(abs) // "compare . ../old": the folder's name, not "."
		}
	}
	return filepath.Base(path)
}
