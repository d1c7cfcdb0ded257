// Package compare lines up two runs for deferbench compare and ab: it reads both inputs
// (package input), notes what cannot be compared, compares them (analysis.CompareRuns),
// writes the comparison in the chosen format (render) and returns the gate's outcome. The
// commands parse the flags into a Request or an Output and call Run or Sides.
package compare

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/input"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
	"golang.org/x/perf/benchfmt"
)

// Output is how a comparison is written: the -format, -full and the time gate's -fail.
type Output struct {
	Format string // one of render.CompareFormats
	Full   string // also write every row, in markdown, to this file; "" for none
	// Fail is -fail without the conditions on count units; "" when no time gate applies.
	Fail  string
	Flags [2][]string // the sides' trust flags (analysis.TrustFlags)
}

// Gates are the count gate and how its outcome joins the time gate's, which the command
// provides (the count gate is the count tier's).
type Gates struct {
	// Count gates the count units of old and new; nil when -fail has none. A usage.Error
	// from it stops the comparison before anything is written.
	// newSkipped is how many lines of NEW were skipped as malformed (analysis.CompareOptions).
	Count func(old, new []*benchfmt.Result, newSkipped int) error
	// Join returns the result of the time gate's outcome (Write's error) and the count
	// gate's; nil keeps the time gate's, else the count gate's.
	Join func(timeErr, countErr error) error
}

func (g Gates) count(old, new []*benchfmt.Result, newSkipped int) error {
	if g.Count == nil {
		return nil
	}
	return g.Count(old, new, newSkipped)
}

func (g Gates) join(timeErr, countErr error) error {
	if g.Join != nil {
		return g.Join(timeErr, countErr)
	}
	if timeErr != nil {
		return timeErr
	}
	return countErr
}

// Request is one deferbench compare: OLD and NEW as given, and the parsed flags.
type Request struct {
	Old, New    string // a bench.txt, a results directory, a pipe, or - for standard input
	Options     analysis.CompareOptions
	IgnoreProcs bool // match benchmarks without their -GOMAXPROCS suffix
	Output      Output
	Gates       Gates
	Stdin       *os.File
	Stdout      io.Writer
	Stderr      io.Writer // notes, one line each
}

// Run compares r.Old with r.New and writes the comparison on r.Stdout. Bad input (both
// sides standard input, an input that is not results, a -fail unit neither side has, no
// benchmark in common) is a usage.Error; a failed gate wraps analysis.ErrGateFailed, one that
// could not judge every gated metric analysis.ErrGateInconclusive.
func Run(ctx context.Context, r Request) error {
	const cmd = "compare"
	args := []string{r.Old, r.New}
	if args[0] == "-" && args[1] == "-" {
		return usage.Errorf("compare: - (standard input) given for both OLD and NEW: give it for one of them")
	}
	old, oldSkipped, err := input.ReadInput(ctx, r.Stdin, r.Stderr, cmd, args[0])
	if err != nil {
		return err
	}
	var new []*benchfmt.Result
	newSkipped := oldSkipped
	if args[0] != "-" && args[1] != "-" && input.Same(args[0], args[1]) {
		// One file given twice is read once, so that its notes are printed once.
		for _, rs := range old {
			new = append(new, rs.Clone())
		}
	} else if new, newSkipped, err = input.ReadInput(ctx, r.Stdin, r.Stderr, cmd, args[1]); err != nil {
		return err
	}
	opt := r.Options
	opt.NewSkipped = newSkipped
	if err := analysis.CheckThresholdUnits(opt.Thresholds, old, new); err != nil {
		return usage.Errorf("compare: -fail: %v", err)
	}
	if n := analysis.UnknownIgnore(opt.Ignore, old, new); n != "" {
		fmt.Fprintf(r.Stderr, "deferbench: compare: note: %s\n", n)
	}
	if args[0] != "-" && args[1] != "-" && input.Same(args[0], args[1]) {
		fmt.Fprintf(r.Stderr, "deferbench: compare: note: OLD and NEW are the same file (%s): every difference is 0\n", input.BenchPath(args[1]))
	}
	for i, a := range args {
		if a == "-" {
			args[i] = results.StdinName // for the notes and the output
		}
	}
	var unfinished []string // the sides that did not finish, for the gate
	for _, in := range []struct {
		side, path string
		rs         []*benchfmt.Result
	}{{"OLD", args[0], old}, {"NEW", args[1], new}} {
		if p := results.Partial(in.rs); p != "" {
			fmt.Fprintf(r.Stderr, "deferbench: compare: note: %s: %s\n", in.path, results.PartialText(p))
			unfinished = append(unfinished, fmt.Sprintf("%s (%s)", in.side, results.PartialText(p)))
		}
	}
	if r.IgnoreProcs {
		if kept := results.IgnoreProcs(old, new); len(kept) > 0 {
			fmt.Fprintf(r.Stderr, "deferbench: compare: note: -ignore-procs: %s run at several GOMAXPROCS, kept apart (matched at equal GOMAXPROCS only)\n",
				results.Plural(len(kept), "benchmark"))
		}
	}
	for _, n := range runNotes(args[0], args[1]) {
		fmt.Fprintf(r.Stderr, "deferbench: compare: note: %s\n", n)
	}
	noteUnmatched(r.Stderr, "compare", args[0], args[1], old, new)
	c := analysis.CompareRuns(old, new, opt)
	c.Unfinished = unfinished
	for _, n := range c.Notes {
		fmt.Fprintf(r.Stderr, "deferbench: compare: note: %s\n", n)
	}
	mc := lineUpModel(args[0], old, args[1], new)
	if mc != nil && r.Output.Format != "text" && r.Output.Format != "markdown" && len(c.Rows) > 0 {
		mc = nil // the rows in common are written in the format asked for; the model check has no csv or json form
	}
	if mc != nil && r.Output.Format != "text" && r.Output.Format != "markdown" {
		return usage.Errorf("compare: %s and %s are a Pi model's count and a board's PMU counter: give -format text or markdown to line them up (-format %s has no such table)", mc.model, mc.board, r.Output.Format)
	}
	if len(c.Rows) == 0 && mc != nil {
		// A model's instr/op and a board's hw-instr/op share no unit: the model check is
		// the whole comparison, and no gate applies to it.
		cerr := r.Gates.count(old, new, newSkipped)
		if usage.Is(cerr) {
			return cerr
		}
		mc.write(r.Stdout, r.Output.Format)
		if strings.TrimSpace(r.Output.Fail) != "" {
			return fmt.Errorf("compare: %w: -fail judged nothing: %s and %s have no unit in common (a model's instr/op beside a board's hw-instr/op, lined up above without a gate)",
				analysis.ErrGateInconclusive, mc.model, mc.board)
		}
		return cerr
	}
	if len(c.Rows) == 0 {
		hint := ""
		switch {
		case len(c.Differ) > 0:
			hint = " under the same configuration (add -ignore " + c.Hint + " to compare across)"
		case !r.IgnoreProcs && results.CommonWithoutProcs(old, new):
			hint = " (runs from machines with different core counts? try -ignore-procs)"
		default:
			hint = ": give two runs of the same benchmarks"
		}
		return usage.Errorf("compare: %s and %s have no benchmark and unit in common%s", args[0], args[1], hint)
	}
	out := r.Output
	out.Flags[0] = analysis.SideFlags(old, results.EnvsBeside(args[0]))
	out.Flags[1] = analysis.SideFlags(new, results.EnvsBeside(args[1]))
	cerr := r.Gates.count(old, new, newSkipped)
	if usage.Is(cerr) {
		return cerr
	}
	werr := Write(r.Stdout, r.Stderr, cmd, args[0], args[1], input.Label(args[0]), input.Label(args[1]), c, out)
	if mc != nil {
		fmt.Fprintln(r.Stdout)
		mc.write(r.Stdout, r.Output.Format)
	}
	return r.Gates.join(werr, cerr)
}

// Sides compares the two sides of an A/B run, whose rounds are paired (opt.Paired), writes
// the comparison on stdout (and every row to OUT/compare.md unless out.Full names another
// file) and returns the gate's outcome, as Run.
func Sides(ab SidesRequest) error {
	const cmd = "ab"
	basePath, headPath := ab.BaseDir, ab.HeadDir
	old, err := input.ReadRun(cmd, basePath)
	if err != nil {
		return err
	}
	new, err := input.ReadRun(cmd, headPath)
	if err != nil {
		return err
	}
	noteUnmatched(ab.Stderr, cmd, basePath, headPath, old, new)
	c := analysis.CompareRuns(old, new, ab.Options)
	for _, n := range c.Notes {
		fmt.Fprintf(ab.Stderr, "deferbench: ab: note: %s\n", n)
	}
	cerr := ab.Gates.count(old, new, 0) // a run's own bench.txt: read whole, or refused
	if usage.Is(cerr) {
		return cerr
	}
	fmt.Fprintf(ab.Stderr, "deferbench: ab: done in %s; BASE (%s) in %s, HEAD (%s) in %s; compare again with: deferbench compare -paired %s %s\n",
		time.Since(ab.Started).Round(time.Second), ab.BaseArg, basePath, ab.HeadArg, headPath, rundir.ShellQuote(basePath), rundir.ShellQuote(headPath))
	if len(c.Rows) == 0 {
		return fmt.Errorf("ab: BASE and HEAD have no benchmark and unit in common")
	}
	out := ab.Output
	out.Flags[0], out.Flags[1] = analysis.SideFlags(old, results.EnvsBeside(basePath)), analysis.SideFlags(new, results.EnvsBeside(headPath))
	if out.Full == "" {
		out.Full = filepath.Join(ab.Out, "compare.md")
	}
	werr := Write(ab.Stdout, ab.Stderr, cmd, basePath, headPath, "base "+ab.BaseArg, "head "+ab.HeadArg, c, out)
	return ab.Gates.join(werr, cerr)
}

// SidesRequest is what Sides compares: the merged results of an A/B run's two sides.
type SidesRequest struct {
	Out              string // the A/B run's directory
	BaseDir, HeadDir string // the sides' results directories
	BaseArg, HeadArg string // the sides as given
	Started          time.Time
	Options          analysis.CompareOptions
	Output           Output
	Gates            Gates
	Stdout, Stderr   io.Writer
}

// Write prints c in out.Format on stdout (and every row to out.Full) and returns the time
// gate's error: one wrapping analysis.ErrGateFailed or analysis.ErrGateInconclusive. An
// out.Full that cannot be written is a usage.Error.
func Write(stdout, stderr io.Writer, cmd, oldPath, newPath, oldLabel, newLabel string, c *analysis.RunComparison, out Output) error {
	doc := &render.CompareDoc{Old: oldPath, New: newPath, OldLabel: oldLabel, NewLabel: newLabel, Comparison: c, Full: out.Full,
		OldFlags: out.Flags[0], NewFlags: out.Flags[1]}
	if strings.TrimSpace(out.Fail) != "" {
		doc.Fail = out.Fail
	}
	if c.OldLabel != "" {
		doc.OldLabel, doc.NewLabel = c.OldLabel, c.NewLabel
		fmt.Fprintf(stderr, "deferbench: %s: note: comparing across machines: OLD %s is %q, NEW %s is %q\n", cmd, oldPath, c.OldLabel, newPath, c.NewLabel)
	}
	if out.Full != "" {
		if err := results.CheckOutFile(out.Full, render.CompareFullMarker); err != nil {
			return usage.Errorf("%s: -full %v", cmd, err)
		}
		var b bytes.Buffer
		if err := render.WriteCompareMarkdownFull(&b, doc); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(out.Full, b.Bytes()); err != nil {
			return usage.Errorf("%s: -full %s: %v: give a writable path", cmd, out.Full, err)
		}
	}
	if err := render.WriteCompare(stdout, out.Format, doc); err != nil {
		return err
	}
	if s := summary(c); s != "" {
		fmt.Fprintf(stderr, "deferbench: %s: %s\n", cmd, s)
	}
	if err := c.GateErr(doc.Fail != ""); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}

// noteUnmatched notes on w, for command cmd, the benchmarks only one side has (a line per
// side, the first three named) and the units only one side has for the benchmarks both have:
// none of them is compared, nor gated.
func noteUnmatched(w io.Writer, cmd, oldPath, newPath string, old, new []*benchfmt.Result) {
	onlyOld, onlyNew := results.Unmatched(old, new)
	unitsOld, unitsNew := results.UnmatchedUnits(old, new)
	for _, side := range []struct {
		path         string
		names, units []string
	}{{oldPath, onlyOld, unitsOld}, {newPath, onlyNew, unitsNew}} {
		if names := side.names; len(names) > 0 {
			fmt.Fprintf(w, "deferbench: %s: note: %s only in %s, not compared: %s\n",
				cmd, results.Plural(len(names), "benchmark"), side.path, results.FirstOf(names, 3))
		}
	}
	for _, side := range []struct {
		path  string
		units []string
	}{{oldPath, unitsOld}, {newPath, unitsNew}} {
		if len(side.units) > 0 {
			fmt.Fprintf(w, "deferbench: %s: note: %s only in %s, for the benchmarks both have: not compared (a run without -benchmem, or a metric one build does not report?)\n",
				cmd, strings.Join(side.units, ", "), side.path)
		}
	}
}

// runNotes returns what the env.json files beside OLD and NEW (results directories, or their
// bench.txt) tell that their rows do not: that one is a -quick run and the other is not,
// whose rows of one name may measure other sizes over fewer repetitions; that the binaries
// were built from different revisions, so the changes include the code's. None when either
// side has no env.json (a pipe, a bare bench.txt) or the revision of either is unknown.
func runNotes(oldPath, newPath string) []string {
	o, n := results.EnvBeside(oldPath), results.EnvBeside(newPath)
	if o == nil || n == nil {
		return nil
	}
	var notes []string
	if o.Options.Quick != n.Options.Quick {
		q, f, qo, fo := "OLD", "NEW", o.Options, n.Options
		if n.Options.Quick {
			q, f, qo, fo = f, q, fo, qo
		}
		notes = append(notes, fmt.Sprintf("%s is a -quick run and %s is not (count %d against %d, benchtime %s against %s): "+
			"a quick run measures smaller sizes, fewer readers and fewer determinism runs, so a row of one name may measure another workload; "+
			"compare a quick run with a quick run", q, f, qo.Count, fo.Count, qo.Benchtime, fo.Benchtime))
	}
	if o.Revision != "" && n.Revision != "" && o.Revision != n.Revision {
		notes = append(notes, fmt.Sprintf("OLD was built from revision %s and NEW from %s: the changes include those of the code between them, not only the machine's noise", o.Revision, n.Revision))
	}
	return notes
}
