package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/input"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
	"golang.org/x/perf/benchfmt"
)

// Rebuild is deferbench report ARG: it rebuilds summary.json, report.md, details.md and plots/ of the
// results directory ARG (or of the directory of ARG, its bench.txt) from bench.txt, holding
// the directory while it writes. A bench.txt still marked in progress by a run that was
// killed is marked partial with what finished, in bench.txt and env.json too. Bad input (not
// a results directory, a directory a live run holds) is a usage.Error; notes go to stderr.
func Rebuild(arg string, stderr io.Writer) error {
	dir := arg
	fi, err := os.Stat(dir)
	if err != nil {
		return statError("report", arg, err)
	}
	if !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	rs, err := input.ReadRunCut("report", arg, stderr)
	if err != nil {
		return err
	}
	if !fi.IsDir() && filepath.Base(arg) != "bench.txt" {
		// Writing summary.json, report.md, details.md and plots/ beside any results file would overwrite
		// whatever report.md lies beside it (a project's own, in its root).
		return usage.Errorf("report: %s is not a results directory or its bench.txt: report writes summary.json, report.md, details.md and plots/ beside it; move it to DIR/bench.txt and give DIR", arg)
	}
	if err := ownsDir(dir, rs); err != nil {
		return err
	}
	if err := CheckResults("report", rs); err != nil {
		return err
	}
	rd, err := Hold("report", dir, stderr)
	if err != nil {
		return err
	}
	defer rd.Release()

	envPath := filepath.Join(dir, "env.json")
	var doc *results.Env
	if b, err := results.ReadFileLimited(envPath, results.MaxJSONBytes); err == nil {
		var d results.Env
		if err := json.Unmarshal(b, &d); err != nil {
			fmt.Fprintf(stderr, "deferbench: report: note: %s is not valid JSON (%v); NumCPU, load average and other work unknown\n", envPath, err)
		} else {
			doc = &d
		}
	} else if errors.Is(err, results.ErrNotRegular) || errors.Is(err, results.ErrTooLarge) {
		return usage.Errorf("report: %v: remove it or give the results directory deferbench run wrote", err)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: %w", err)
	}

	partial := results.Partial(rs)
	if partial == results.InProgress {
		// The run that wrote this is gone (we hold its lock): it was killed before it could
		// finish its files.
		partial = fmt.Sprintf("%d results finished (run killed; files rebuilt by deferbench report)", len(rs))
		if err := results.RewriteBenchFile(filepath.Join(dir, "bench.txt"), rs, partial); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if doc != nil {
			doc.Partial = partial
			if err := results.WriteJSON(envPath, doc); err != nil {
				return fmt.Errorf("report: %w", err)
			}
		}
		fmt.Fprintf(stderr, "deferbench: report: note: the run was killed; marked bench.txt partial: %s\n", partial)
	}

	var attr *results.AttributionDoc
	if b, err := results.ReadFileLimited(filepath.Join(dir, "summary.json"), results.MaxJSONBytes); err == nil {
		var old results.SummaryFile
		if json.Unmarshal(b, &old) == nil {
			attr = old.Attribution // the profiles' attribution cannot be rebuilt from bench.txt
		}
	}
	plotErr, err := Outputs(Dir{Path: dir, Results: rs, Config: results.FileConfig(rs), Partial: partial, Attr: attr, Env: doc})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if plotErr != nil {
		return render.PlotsError("report: rebuilt summary.json, report.md and details.md (without charts), not plots/", filepath.Join(dir, "plots"), plotErr)
	}
	what := "summary.json, report.md, details.md and plots/"
	if _, err := os.Stat(filepath.Join(dir, "plots")); err != nil {
		what = "summary.json, report.md and details.md (no charts: " + noChartsWhy + ")"
	}
	fmt.Fprintf(stderr, "deferbench: report: rebuilt %s in %s from %d results\n", what, dir, len(rs))
	return nil
}

// noChartsWhy says why results drew no chart: the charts draw the scenarios' timed metrics,
// and results counted only (deferbench run -measure instructions) hold none.
const noChartsWhy = "no chart applies to these results; the charts draw the scenarios' timed metrics, which a counted-only run (-measure instructions) has none of"

// Hold holds the existing results directory dir for rewriting its files, as the
// command cmd: a directory a live run holds is a usage error saying to wait for it, and a
// reclaimed stale lock is noted on stderr. The caller releases it.
func Hold(cmd, dir string, stderr io.Writer) (*results.RunDir, error) {
	rd, err := results.HoldRunDir(dir)
	var de *results.DirError
	if errors.As(err, &de) {
		fix := "choose a writable results directory"
		if errors.Is(err, results.ErrDirInUse) {
			fix = "wait for that run to finish; if none is running there (a lock copied with the directory from a board, or its process id since taken by another program), remove " + filepath.Join(dir, results.LockFile)
		}
		return nil, usage.Errorf("%s: %s: %s", cmd, de.Error(), fix)
	}
	if err != nil {
		return nil, err
	}
	if rd.Note != "" {
		fmt.Fprintf(stderr, "deferbench: %s: note: %s\n", cmd, rd.Note)
	}
	return rd, nil
}

// Replot is deferbench plot ARG: it draws the results of the results directory ARG (or of
// ARG, its bench.txt) as charts in plots/ beside them, holding the directory as Rebuild
// does. Bad input is a usage.Error; the line naming what was written goes to stderr.
func Replot(arg string, stderr io.Writer) error {
	dir := arg
	fi, err := os.Stat(dir)
	if err != nil {
		return statError("plot", arg, err)
	}
	if !fi.IsDir() {
		dir = filepath.Dir(dir) // a bench.txt: plot next to it
	}
	rs, err := input.ReadRunCut("plot", arg, stderr)
	if err != nil {
		return err
	}
	if err := CheckResults("plot", rs); err != nil {
		return err
	}
	// plots/ is the run's to write while it runs: hold the directory as report does.
	rd, err := Hold("plot", dir, stderr)
	if err != nil {
		return err
	}
	defer rd.Release()
	out := filepath.Join(dir, "plots")
	po := render.PlotOptions{Flags: analysis.TrustFlags(rs, results.EnvBeside(dir))}
	if env := results.EnvBeside(dir); env != nil {
		po.Cores = env.Before.Cores
	}
	files, err := drawPlots(out, func(dir string) ([]string, error) { return render.PlotWith(rs, dir, po) })
	if err != nil {
		return render.PlotsError("plot", out, err)
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "deferbench: plot: no charts for %s: %s\n", dir, noChartsWhy)
		return nil
	}
	fmt.Fprintf(stderr, "deferbench: %s (%s as SVG and PNG) in %s\n", results.Plural(len(files), "plot file"), results.Plural(len(files)/2, "chart"), out)
	return nil
}

// statError is the usage error of report or plot (cmd) for an argument that cannot be
// looked at: it names the argument, why, and what to give instead.
func statError(cmd, arg string, err error) error {
	why := "no such file or directory"
	if !errors.Is(err, fs.ErrNotExist) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		why = "cannot read it (" + err.Error() + ")"
	}
	return usage.Errorf("%s: %s: %s: give a results directory deferbench run wrote, or its bench.txt", cmd, arg, why)
}

// ownsDir refuses a directory report must not write into: its bench.txt was not written by
// deferbench run (no file-level "deferbench:" line: plain go test output, whose report would
// have no strategies), or it holds a report.md, details.md or summary.json that deferbench did not write
// (another tool's, or a project's own), which a rebuild would overwrite. The error names the
// file and the fix.
func ownsDir(dir string, rs []*benchfmt.Result) error {
	ours := false
	for _, c := range results.FileConfig(rs) {
		if c.Key == "deferbench" {
			ours = true
		}
	}
	if !ours {
		return usage.Errorf("report: %s: not written by deferbench run (no \"deferbench:\" line): report rebuilds only deferbench's results directories; compare or benchstat read other benchmark files", filepath.Join(dir, "bench.txt"))
	}
	if b, err := results.FileHead(filepath.Join(dir, "report.md"), len(reportTitle)); err == nil && string(b) != reportTitle {
		return usage.Errorf("report: %s was not written by deferbench (it does not start with %q): move it away to rebuild the report here", filepath.Join(dir, "report.md"), reportTitle)
	}
	if b, err := results.FileHead(filepath.Join(dir, "details.md"), len(render.DetailsTitle)); err == nil && string(b) != render.DetailsTitle {
		return usage.Errorf("report: %s was not written by deferbench (it does not start with %q): move it away to rebuild the report here", filepath.Join(dir, "details.md"), render.DetailsTitle)
	}
	if b, err := results.ReadFileLimited(filepath.Join(dir, "summary.json"), results.MaxJSONBytes); err == nil {
		var head struct {
			Deferbench *string `json:"deferbench"`
		}
		switch err := json.Unmarshal(b, &head); {
		case err != nil && bytes.HasPrefix(bytes.TrimSpace(b), []byte(`{`)) && bytes.Contains(b[:min(len(b), 200)], []byte(`"deferbench":`)):
			// deferbench's own file, cut short (a copy or a disk that ran out): rebuilt.
		case err != nil:
			return usage.Errorf("report: %s is not valid JSON (%v) and does not start as deferbench's summary does: move it away to rebuild the summary here", filepath.Join(dir, "summary.json"), err)
		case head.Deferbench == nil:
			return usage.Errorf("report: %s was not written by deferbench (no \"deferbench\" field): move it away to rebuild the summary here", filepath.Join(dir, "summary.json"))
		}
	}
	return nil
}

// CheckResults refuses results that report, plot and fleet cannot draw as one run: names they
// cannot show (checkNames), two machines' results (checkOneMachine), results repeated value
// for value (checkNoRepeats). The first error is returned.
func CheckResults(cmd string, rs []*benchfmt.Result) error {
	for _, check := range []func(string, []*benchfmt.Result) error{checkNames, checkOneMachine, checkNoRepeats} {
		if err := check(cmd, rs); err != nil {
			return err
		}
	}
	return nil
}

// checkNames refuses results a report cannot name: a benchmark line without a strategy=
// key, or whose strategy is not a plain name (letters, digits, '.', '_', '-'), which the
// report's tables, legends and file names could not show as it is. The error names the line
// and the fix.
func checkNames(cmd string, rs []*benchfmt.Result) error {
	for _, r := range rs {
		st := results.ParseName(string(r.Name)).Strategy
		if plainName(st) {
			continue
		}
		file, line := r.Pos()
		what := fmt.Sprintf("strategy %q is not a plain name (letters, digits, '.', '_', '-')", st)
		if st == "" {
			what = "no strategy= key"
		}
		return usage.Errorf("%s: %s:%d: Benchmark%s has %s: correct or delete that line", cmd, file, line, r.Name, what)
	}
	return nil
}

// checkOneMachine refuses results of more than one machine in one bench.txt (two runs' files
// joined, say): their samples would go into one median and one interval, under one machine's
// configuration. The count rows of an emulated ISA (results.ISAKey), which describe the
// modelled machine, are left out. The error names both machines' lines and the fix.
func checkOneMachine(cmd string, rs []*benchfmt.Result) error {
	first := map[string]*benchfmt.Result{}
	for _, r := range rs {
		if r.GetConfig(results.ISAKey) != "" {
			continue
		}
		for _, k := range analysis.MachineKeys {
			v := r.GetConfig(k)
			f, ok := first[k]
			if !ok {
				first[k] = r
				continue
			}
			if fv := f.GetConfig(k); v != fv {
				file, line := r.Pos()
				_, fline := f.Pos()
				return usage.Errorf("%s: %s holds results of more than one machine (%s %q from line %d, %q from line %d): a report is of one run; put each run in its own directory, or compare them with deferbench compare -ignore machine", cmd, file, k, fv, fline, v, line)
			}
		}
	}
	return nil
}

// repeatBlock is how many consecutive results must repeat earlier ones, value for value, for
// checkNoRepeats to refuse them.
const repeatBlock = 8

// checkNoRepeats refuses a bench.txt in which a block of repeatBlock consecutive results, one
// of them timed (ns/op), repeats an earlier block value for value: a file joined with itself,
// or a run's results pasted twice. Each sample would count twice, and the report's intervals
// would be narrower than the measurement. Timed results never repeat to the last digit;
// deterministic ones (allocs/op, distinct-states, instruction counts) do, so a block must hold
// a time. The error names both lines and the fix.
func checkNoRepeats(cmd string, rs []*benchfmt.Result) error {
	keys := make([]string, len(rs))
	for i, r := range rs {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %d", r.Name, r.Iters)
		for _, v := range r.Values {
			fmt.Fprintf(&b, " %v %s", v.Value, v.Unit)
		}
		keys[i] = b.String()
	}
	first := map[string]int{}
	for i, k := range keys {
		j, seen := first[k]
		if !seen {
			first[k] = i
			continue
		}
		if i+repeatBlock > len(keys) {
			continue
		}
		timed, same := false, true
		for d := 0; d < repeatBlock && same; d++ {
			same = keys[i+d] == keys[j+d]
			_, hasTime := rs[i+d].Value("sec/op") // benchfmt reads ns/op as sec/op
			timed = timed || hasTime
		}
		if same && timed {
			file, line := rs[i].Pos()
			_, jline := rs[j].Pos()
			return usage.Errorf("%s: %s: the results from line %d on repeat those from line %d value for value (a file joined with itself?): each would count twice and narrow the intervals; remove the copy", cmd, file, line, jline)
		}
	}
	return nil
}

// plainName reports whether s is a non-empty name of letters, digits, '.', '_' and '-'.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// reportTitle is how every report.md deferbench writes starts.
const reportTitle = "# deferbench report"
