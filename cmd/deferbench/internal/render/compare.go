package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// Formats WriteCompare writes.
var CompareFormats = []string{"text", "markdown", "csv", "json"}

// CompareDoc is what WriteCompare prints: a comparison and how to name its sides.
type CompareDoc struct {
	Old, New   string // the inputs as given (paths)
	OldLabel   string // column headings
	NewLabel   string
	Fail       string // the -fail value, "" for no gate
	Comparison *analysis.RunComparison
}

// Gate returns "fail", "pass", or "none" when no threshold was given.
func (d *CompareDoc) Gate() string {
	switch {
	case d.Fail == "":
		return "none"
	case len(d.Comparison.Failed()) > 0:
		return "fail"
	}
	return "pass"
}

// WriteCompare writes d in format (one of CompareFormats):
//   - text: per unit a table of the old and new medians ± their 95% CI, the change ("~" when
//     not significant, "new: 4 allocs/op" from 0, "?N" without a verdict, reasons under the
//     table), the p-value or "exact", and FAIL with the threshold a row exceeds;
//   - markdown: for a pull-request comment or a CI step summary: the gate's result, the
//     regressions, then the improvements, then the unchanged rows collapsed in <details>;
//   - csv: one header line and one line per row;
//   - json: every row with medians, CIs, change, p, method, verdict and gate (see
//     CompareJSON).
func WriteCompare(w io.Writer, format string, d *CompareDoc) error {
	ew := &ErrWriter{W: w}
	if err := writeCompare(ew, format, d); err != nil {
		return err
	}
	return ew.Err
}

// ErrWriter is W keeping the first write error in Err, for output printed line by line
// without a check per line: a full disk under a CI step summary must fail the command, not
// pass it with the output lost. Every write after an error fails with it.
type ErrWriter struct {
	W   io.Writer
	Err error
}

func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

func writeCompare(w io.Writer, format string, d *CompareDoc) error {
	switch format {
	case "text":
		return writeCompareText(w, d)
	case "markdown":
		return writeCompareMarkdown(w, d)
	case "csv":
		return writeCompareCSV(w, d)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(d.JSON())
	}
	return fmt.Errorf("unknown format %q (valid: %s)", format, strings.Join(CompareFormats, ", "))
}

// CompareJSON is the JSON form of a comparison. Numbers that do not exist (the change from a
// median of 0, the p-value of an exact comparison) are null.
type CompareJSON struct {
	Old      SideJSON  `json:"old"`
	New      SideJSON  `json:"new"`
	Alpha    float64   `json:"alpha"`
	Method   string    `json:"method"` // u-test or signed-rank; rows say exact where they are
	Fail     string    `json:"fail,omitempty"`
	Gate     string    `json:"gate"` // pass, fail or none
	Failed   int       `json:"failed"`
	Notes    []string  `json:"notes,omitempty"`
	Rows     []RowJSON `json:"rows"`
	Ignored  []string  `json:"kept_apart,omitempty"` // configuration keys kept apart
	IgnoreAs string    `json:"ignore_hint,omitempty"`
}

// SideJSON names one input.
type SideJSON struct {
	Path  string `json:"path"`
	Label string `json:"label"`
}

// RowJSON is a Row with its optional numbers as null.
type RowJSON struct {
	analysis.Row
	Change *float64 `json:"change"` // relative, 0.05 = +5%
	P      *float64 `json:"p"`
	PHolm  *float64 `json:"p_holm"` // P adjusted over the gate's tested rows; null when not tested
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// JSON returns d in its JSON form.
func (d *CompareDoc) JSON() CompareJSON {
	c := d.Comparison
	out := CompareJSON{
		Old: SideJSON{d.Old, d.OldLabel}, New: SideJSON{d.New, d.NewLabel},
		Alpha: c.Alpha, Method: c.Method, Fail: d.Fail, Gate: d.Gate(), Failed: len(c.Failed()),
		Notes: c.Notes, Rows: []RowJSON{}, Ignored: c.Differ, IgnoreAs: c.Hint,
	}
	for _, r := range c.Rows {
		out.Rows = append(out.Rows, RowJSON{Row: r, Change: finite(r.Change), P: finite(r.P), PHolm: finite(r.PHolm)})
	}
	return out
}

// fmtChange is the change column: "~" when not significant, "new: 4 allocs/op" from 0.
func fmtChange(r analysis.Row) string {
	switch {
	case !r.Significant:
		return "~"
	case r.Old.Median == 0:
		if w := unitWord(r.Unit); strings.HasPrefix(w, "/") {
			return "new: " + results.FormatValue(r.New.Median, r.Unit) + w
		} else {
			return "new: " + results.FormatValue(r.New.Median, r.Unit) + " " + w
		}
	}
	return fmt.Sprintf("%+.2f%%", 100*r.Change)
}

// unitWord is what follows a formatted value in a sentence: FormatValue already says ns and
// B; other units need their name.
func unitWord(u string) string {
	switch {
	case results.UnitIsTime(u):
		return "/op"
	case strings.HasPrefix(u, "B/"):
		return strings.TrimPrefix(u, "B")
	}
	return u
}

func fmtPVal(r analysis.Row) string {
	n := fmt.Sprintf("n=%d+%d", r.Old.N, r.New.N)
	switch r.Method {
	case analysis.MethodExact:
		return "exact " + n
	case analysis.MethodPaired:
		return fmt.Sprintf("p=%.3f %d rounds", r.P, r.New.N)
	}
	return fmt.Sprintf("p=%.3f %s", r.P, n)
}

func rowName(r analysis.Row) string {
	if r.Config != "" {
		return r.Name + " [" + r.Config + "]"
	}
	return r.Name
}

func (d *CompareDoc) labels() (string, string) {
	o, n := d.OldLabel, d.NewLabel
	if o == n {
		o, n = "old:"+o, "new:"+n
	}
	return o, n
}

func writeCompareText(w io.Writer, d *CompareDoc) error {
	c := d.Comparison
	oldL, newL := d.labels()
	byUnit := map[string][]analysis.Row{}
	var units []string
	for _, r := range c.Rows {
		if _, ok := byUnit[r.Unit]; !ok {
			units = append(units, r.Unit)
		}
		byUnit[r.Unit] = append(byUnit[r.Unit], r)
	}
	sort.SliceStable(units, func(i, j int) bool { return unitRank(units[i]) < unitRank(units[j]) })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var notes []string
	noteNo := map[string]int{}
	for i, u := range units {
		if i > 0 {
			fmt.Fprintln(tw, "\t\t\t\t\t")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\tdelta\tp\t\n", u, oldL, newL)
		for _, r := range byUnit[u] {
			delta := fmtChange(r)
			if r.Note != "" {
				if _, ok := noteNo[r.Note]; !ok {
					notes = append(notes, r.Note)
					noteNo[r.Note] = len(notes)
				}
				delta = fmt.Sprintf("?%d", noteNo[r.Note])
			}
			gate := ""
			if r.Gate == "fail" {
				gate = "FAIL " + r.Threshold
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", rowName(r), fmtSummary(r.Old), fmtSummary(r.New), delta, fmtPVal(r), gate)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for i, n := range notes {
		fmt.Fprintf(w, "?%d: no verdict: %s\n", i+1, n)
	}
	if n := noCISamples(c.Rows); n != "" {
		if len(notes) == 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "±∞: %s\n", n)
	}
	return writeGateLine(w, d)
}

func writeGateLine(w io.Writer, d *CompareDoc) error {
	if d.Fail == "" {
		return nil
	}
	failed := d.Comparison.Failed()
	checked := 0
	for _, r := range d.Comparison.Rows {
		if r.Gate != "" {
			checked++
		}
	}
	var err error
	if len(failed) == 0 {
		_, err = fmt.Fprintf(w, "\ngate -fail %s: pass (%s checked%s%s)\n", d.Fail, plural(checked, "metric"), d.unjudged(), d.holmClause())
	} else {
		_, err = fmt.Fprintf(w, "\ngate -fail %s: FAIL: %d of %s worse beyond the threshold and significant at alpha %v (%s)\n",
			d.Fail, len(failed), plural(checked, "metric"), d.Comparison.Alpha, strings.TrimPrefix(d.holmClause(), "; "))
	}
	return err
}

// unjudged says how many gated metrics had no verdict (too few samples, or a test that
// could not run), as a clause to append to a pass: a pass over metrics nobody could judge
// must not read as a clean bill. It is "" when every gated metric had a verdict.
func (d *CompareDoc) unjudged() string {
	n := 0
	for _, r := range d.Comparison.Rows {
		if r.Gate != "" && r.Verdict == analysis.NoVerdict {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d of them without a verdict, so not judged: raise -count or -rounds", n)
}

// holmClause says how the gate's p-values were adjusted, and what the adjustment let pass
// or could never fail, as a clause for the gate line ("" when no row was tested).
func (d *CompareDoc) holmClause() string {
	c := d.Comparison
	if c.Tested == 0 {
		return ""
	}
	s := fmt.Sprintf("; p-values Holm-adjusted over the %s tested", plural(c.Tested, "row"))
	if c.Spared > 0 {
		s += fmt.Sprintf("; %s worse beyond the threshold at its own p, not after the adjustment", plural(c.Spared, "row"))
	}
	if c.Unreachable == c.Tested {
		s += "; with so few samples no tested row could fail: raise -count or -rounds"
	} else if c.Unreachable > 0 {
		s += fmt.Sprintf("; %d of them could not fail at any outcome with so few samples: raise -count or -rounds", c.Unreachable)
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func writeMarkdownTable(w io.Writer, rows []analysis.Row, oldL, newL string) {
	fmt.Fprintf(w, "| benchmark | unit | %s | %s | change | p | gate |\n", mdCell(oldL), mdCell(newL))
	fmt.Fprintf(w, "|---|---|--:|--:|--:|---|---|\n")
	for _, r := range rows {
		gate := r.Gate
		if gate == "fail" {
			gate = "**FAIL** " + r.Threshold
		}
		change := fmtChange(r)
		if r.Note != "" {
			change = "? " + r.Note
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(rowName(r)), r.Unit,
			fmtSummary(r.Old), fmtSummary(r.New), mdCell(change), fmtPVal(r), gate)
	}
}

func writeCompareMarkdown(w io.Writer, d *CompareDoc) error {
	c := d.Comparison
	oldL, newL := d.labels()
	fmt.Fprintf(w, "### deferbench: %s → %s\n\n", mdCell(oldL), mdCell(newL))
	method := "Mann-Whitney U test"
	if c.Method == analysis.MethodPaired {
		method = "Wilcoxon signed-rank test on paired rounds"
	}
	switch d.Gate() {
	case "fail":
		fmt.Fprintf(w, "**Gate failed:** %s worse beyond `%s` and significant (%s, alpha %v%s).\n\n",
			plural(len(c.Failed()), "metric"), d.Fail, method, c.Alpha, d.holmClause())
	case "pass":
		fmt.Fprintf(w, "**Gate passed:** nothing worse beyond `%s` (%s, alpha %v%s%s).\n\n", d.Fail, method, c.Alpha, d.unjudged(), d.holmClause())
	default:
		fmt.Fprintf(w, "No gate (%s, alpha %v).\n\n", method, c.Alpha)
	}
	var worse, better, same, unknown []analysis.Row
	for _, r := range c.Rows {
		switch r.Verdict {
		case analysis.Worse:
			worse = append(worse, r)
		case analysis.Better:
			better = append(better, r)
		case analysis.NoVerdict:
			unknown = append(unknown, r)
		default:
			same = append(same, r)
		}
	}
	// Failing rows first among the regressions.
	sort.SliceStable(worse, func(i, j int) bool { return worse[i].Gate == "fail" && worse[j].Gate != "fail" })
	for _, sec := range []struct {
		title string
		rows  []analysis.Row
		open  bool
	}{{"Regressions", worse, true}, {"Improvements", better, true}, {"No significant change", same, false}, {"No verdict", unknown, false}} {
		if len(sec.rows) == 0 {
			continue
		}
		if sec.open {
			fmt.Fprintf(w, "#### %s (%d)\n\n", sec.title, len(sec.rows))
			writeMarkdownTable(w, sec.rows, oldL, newL)
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintf(w, "<details><summary>%s (%d)</summary>\n\n", sec.title, len(sec.rows))
		writeMarkdownTable(w, sec.rows, oldL, newL)
		fmt.Fprintf(w, "\n</details>\n\n")
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "> note: %s\n", n)
	}
	if n := noCISamples(c.Rows); n != "" {
		fmt.Fprintf(w, "> ±∞: %s\n", n)
	}
	return nil
}

// noCISamples explains the ±∞ of a median without a confidence interval, or is "" when
// every median of rows has one: the fewest samples such a median had, and the fix.
func noCISamples(rows []analysis.Row) string {
	fewest := -1
	for _, r := range rows {
		for _, s := range []results.Summary{r.Old, r.New} {
			if s.NoCI && (fewest < 0 || s.N < fewest) {
				fewest = s.N
			}
		}
	}
	if fewest < 0 {
		return ""
	}
	return fmt.Sprintf("no 95%% confidence interval: a 95%% interval needs at least 6 samples and some medians have fewer (down to %d); raise -count (deferbench run) or -rounds (deferbench ab)", fewest)
}

func fmtFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func writeCompareCSV(w io.Writer, d *CompareDoc) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "config", "unit", "old_median", "old_ci95_lo", "old_ci95_hi", "old_n",
		"new_median", "new_ci95_lo", "new_ci95_hi", "new_n", "change", "diff", "p", "method", "verdict", "gate", "threshold", "note"})
	for _, r := range d.Comparison.Rows {
		cw.Write([]string{r.Name, r.Config, r.Unit,
			fmtFloat(r.Old.Median), fmtFloat(r.Old.Lo), fmtFloat(r.Old.Hi), strconv.Itoa(r.Old.N),
			fmtFloat(r.New.Median), fmtFloat(r.New.Lo), fmtFloat(r.New.Hi), strconv.Itoa(r.New.N),
			fmtFloat(r.Change), fmtFloat(r.Diff), fmtFloat(r.P), r.Method, r.Verdict, r.Gate, r.Threshold, r.Note})
	}
	cw.Flush()
	return cw.Error()
}

func unitRank(u string) int {
	switch u {
	case "ns/op", "sec/op":
		return 0
	case "B/op":
		return 1
	case "allocs/op":
		return 2
	}
	return 3
}

func fmtSummary(s results.Summary) string {
	m := results.FormatValue(s.Median, s.Unit)
	switch {
	case s.NoCI:
		return m + " ±∞"
	case s.Median == 0:
		return m
	}
	return m + " " + ciPercent(s)
}
