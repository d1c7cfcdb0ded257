package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// Formats WriteCompare writes.
var CompareFormats = []string{"text", "markdown", "csv", "json"}

// CompareDoc is what WriteCompare prints: a comparison and how to name its sides.
type CompareDoc struct {
	Old, New string // the inputs as given (paths)
	OldLabel string // column headings
	NewLabel string
	Fail     string // the -fail value, "" for no gate
	// Full names the file that holds every row in markdown tables (-full), for the
	// markdown's pointer when it leaves rows out to stay under MarkdownLimit; "" for none.
	Full string
	// OldFlags and NewFlags are each side's trust flags (analysis.TrustFlags): Loaded,
	// partial, emulated, throttled; nil for none. The gate line and the markdown carry them.
	OldFlags, NewFlags []string
	Comparison         *analysis.RunComparison
}

// Gate returns the gate's result: analysis.GateFail, GateInconclusive, GatePass, or
// GateNone when no threshold was given (see analysis.RunComparison.Gate).
func (d *CompareDoc) Gate() string { return d.Comparison.Gate(d.Fail != "") }

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

// CompareJSON is the JSON form of a comparison. Numbers that do not exist (the change from a
// median of 0, the p-value of an exact comparison) are null.
type CompareJSON struct {
	Old    SideJSON `json:"old"`
	New    SideJSON `json:"new"`
	Alpha  float64  `json:"alpha"`
	Method string   `json:"method"` // u-test or signed-rank; rows say exact where they are
	Fail   string   `json:"fail,omitempty"`
	Gate   string   `json:"gate"` // pass, fail, inconclusive or none
	Failed int      `json:"failed"`
	// Inconclusive counts the gated rows the gate could not judge (rows with gate
	// "inconclusive"); the gate is "inconclusive" when it is not 0 and no row failed.
	Inconclusive int       `json:"inconclusive"`
	Notes        []string  `json:"notes,omitempty"`
	Rows         []RowJSON `json:"rows"`
	Ignored      []string  `json:"kept_apart,omitempty"` // configuration keys kept apart
	IgnoreAs     string    `json:"ignore_hint,omitempty"`
}

// SideJSON names one input.
type SideJSON struct {
	Path  string   `json:"path"`
	Label string   `json:"label"`
	Flags []string `json:"flags,omitempty"` // trust flags: Loaded, partial, emulated, throttled
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
		Old: SideJSON{d.Old, d.OldLabel, d.OldFlags}, New: SideJSON{d.New, d.NewLabel, d.NewFlags},
		Alpha: c.Alpha, Method: c.Method, Fail: d.Fail, Gate: d.Gate(), Failed: len(c.Failed()),
		Inconclusive: len(c.Inconclusive()),
		Notes:        c.Notes, Rows: []RowJSON{}, Ignored: c.Differ, IgnoreAs: c.Hint,
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
	if math.Abs(r.Change) >= 1000 {
		// +100000% and beyond in three figures: 1e308 against 100 ns/op printed 309 digits.
		return fmt.Sprintf("%+.3g%%", 100*r.Change)
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
	byUnit := map[string][]int{} // indexes into c.Rows: a Row is about 1 KB, and runs have 100,000s
	var units []string
	for i, r := range c.Rows {
		if _, ok := byUnit[r.Unit]; !ok {
			units = append(units, r.Unit)
		}
		byUnit[r.Unit] = append(byUnit[r.Unit], i)
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
		for _, i := range byUnit[u] {
			r := &c.Rows[i]
			delta := fmtChange(*r)
			if r.Note != "" {
				if _, ok := noteNo[r.Note]; !ok {
					notes = append(notes, r.Note)
					noteNo[r.Note] = len(notes)
				}
				delta = fmt.Sprintf("?%d", noteNo[r.Note])
			}
			gate := ""
			switch r.Gate {
			case analysis.GateFail:
				gate = "FAIL " + r.Threshold
			case analysis.GateInconclusive:
				gate = "INCONCLUSIVE " + r.Threshold
			}
			if r.Spared {
				gate = spared(*r)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", rowName(*r), fmtSummary(r.Old), fmtSummary(r.New), delta, fmtPVal(*r), gate)
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

// sideFlags returns the trust flags of OLD and NEW that bear on this comparison: a comparison
// of cachegrind's counts alone leaves out the flags of the machine's load and throttling,
// which change how long a count takes, not what it counts.
func (d *CompareDoc) sideFlags() (old, new []string) {
	simulated := d.Comparison != nil && len(d.Comparison.Rows) > 0
	if simulated {
		for _, r := range d.Comparison.Rows {
			if r.Unit != counts.InstrUnit && r.Unit != counts.SimD1MissUnit && r.Unit != counts.SimLLMissUnit {
				simulated = false
				break
			}
		}
	}
	keep := func(flags []string) []string {
		if !simulated {
			return flags
		}
		var out []string
		for _, f := range flags {
			if !strings.HasPrefix(f, "Loaded") && f != "throttled" {
				out = append(out, f)
			}
		}
		return out
	}
	return keep(d.OldFlags), keep(d.NewFlags)
}

// trust says which sides are flagged and why, as one sentence; "" when neither is.
func (d *CompareDoc) trust() string {
	oldF, newF := d.sideFlags()
	var parts []string
	for _, s := range []struct {
		side, label string
		flags       []string
	}{{"OLD", d.OldLabel, oldF}, {"NEW", d.NewLabel, newF}} {
		if len(s.flags) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s) is %s", s.side, s.label, strings.Join(s.flags, ", ")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ": differences may come from that rather than from the change"
}

// trustShort is the flags' first words for the gate line: " [NEW: Loaded, partial]".
func (d *CompareDoc) trustShort() string {
	oldF, newF := d.sideFlags()
	var parts []string
	for _, s := range []struct {
		side  string
		flags []string
	}{{"OLD", oldF}, {"NEW", newF}} {
		if len(s.flags) == 0 {
			continue
		}
		parts = append(parts, s.side+": "+strings.Join(analysis.ShortFlags(s.flags), ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, "; ") + "]"
}

func writeGateLine(w io.Writer, d *CompareDoc) error {
	if t := d.trust(); t != "" {
		fmt.Fprintf(w, "\ntrust: %s\n", t)
	}
	if d.Fail == "" {
		return nil
	}
	c := d.Comparison
	checked := c.Gated()
	var err error
	switch d.Gate() {
	case analysis.GatePass:
		_, err = fmt.Fprintf(w, "\ngate -fail %s: pass (%s checked, each judged%s)%s\n", d.Fail, results.Plural(checked, "metric"), d.holmClause(), d.trustShort())
	case analysis.GateInconclusive:
		if len(c.Inconclusive()) == 0 {
			_, err = fmt.Fprintf(w, "\ngate -fail %s: INCONCLUSIVE: none of %s failed%s%s\n", d.Fail, results.Plural(checked, "metric"), c.UnmatchedClause(), d.trustShort())
			break
		}
		fix := ": " + analysis.MoreSamples
		if c.Unreachable > 0 {
			fix = "" // holmClause gave it
		}
		_, err = fmt.Fprintf(w, "\ngate -fail %s: INCONCLUSIVE: %d of %s could not be judged (no verdict, or too few samples to fail at any outcome), none failed%s%s%s%s\n",
			d.Fail, len(c.Inconclusive()), results.Plural(checked, "metric"), d.holmClause(), c.UnmatchedClause(), fix, d.trustShort())
	default:
		// The clauses in parentheses, none when every failure was an exact comparison of
		// counts and every gated metric was judged.
		detail := strings.TrimPrefix(d.holmClause()+d.unjudged(), "; ")
		if detail != "" {
			detail = " (" + detail + ")"
		}
		_, err = fmt.Fprintf(w, "\ngate -fail %s: FAIL: %d of %s worse beyond the threshold and significant at alpha %v%s%s\n",
			d.Fail, len(c.Failed()), results.Plural(checked, "metric"), c.Alpha, detail, d.trustShort())
	}
	return err
}

// unjudged says how many gated metrics the gate could not judge, as a clause for a failed
// gate ("" when it judged all).
func (d *CompareDoc) unjudged() string {
	if n := len(d.Comparison.Inconclusive()); n > 0 {
		return fmt.Sprintf("; %d more could not be judged%s", n, d.Comparison.UnmatchedClause())
	}
	return d.Comparison.UnmatchedClause()
}

// holmClause says how the gate's p-values were adjusted, and what the adjustment let pass
// or could never fail, as a clause for the gate line ("" when no row was tested).
func (d *CompareDoc) holmClause() string {
	c := d.Comparison
	if c.Tested == 0 {
		return ""
	}
	s := fmt.Sprintf("; p-values Holm-adjusted over the %s tested", results.Plural(c.Tested, "row"))
	if c.Spared > 0 {
		s += fmt.Sprintf("; %s worse beyond the threshold at its own p, not after the adjustment", results.Plural(c.Spared, "row"))
	}
	if c.Unreachable == c.Tested {
		s += "; with so few samples no tested row could fail: " + analysis.MoreSamples
	} else if c.Unreachable > 0 {
		s += fmt.Sprintf("; %d of them could not fail at any outcome with so few samples: %s", c.Unreachable, analysis.MoreSamples)
	}
	return s
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
	return fmt.Sprintf("no 95%% confidence interval: a 95%% interval needs at least 6 samples and some medians have fewer (down to %d); %s", fewest, analysis.MoreSamples)
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

// spared is a gated row's gate cell when the gate passed it only after Holm's adjustment:
// worse beyond its threshold at its own p, which the table shows, not at the adjusted one.
func spared(r analysis.Row) string {
	return fmt.Sprintf("pass: %s only at its own p (Holm-adjusted p=%.3f)", r.Threshold, r.PHolm)
}
