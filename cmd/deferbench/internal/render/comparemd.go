package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// MarkdownLimit is the most characters WriteCompare's markdown writes: it must fit a
// pull-request comment (GitHub refuses comments over 65,536) with room for a job's own
// lines. Rows beyond it are counted, not shown, and CompareDoc.Full names where all of them
// are.
const MarkdownLimit = 60000

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func mdTableHead(oldL, newL string) string {
	return fmt.Sprintf("| benchmark | unit | %s | %s | change | p | gate |\n|---|---|--:|--:|--:|---|---|\n", mdCell(oldL), mdCell(newL))
}

func mdRow(r analysis.Row) string {
	gate := r.Gate
	switch gate {
	case analysis.GateFail:
		gate = "**FAIL** " + r.Threshold
	case analysis.GateInconclusive:
		gate = "inconclusive"
	}
	if r.Spared {
		gate = spared(r)
	}
	change := fmtChange(r)
	if r.Note != "" {
		change = "? " + r.Note
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(rowName(r)), r.Unit,
		fmtSummary(r.Old), fmtSummary(r.New), mdCell(change), fmtPVal(r), gate)
}

// mdSection is one table of the markdown: its rows, and whether it is folded in <details>.
type mdSection struct {
	title string
	rows  []analysis.Row
	fold  bool
}

// mdSections sorts c's rows into the markdown's tables, in the order they are written: the
// gate's failures, the rows it could not judge, the other significant changes (worse: within
// their threshold after the adjustment, or not gated; better), then the rest. Inside a table
// the largest changes come first.
func mdSections(c *analysis.RunComparison) []mdSection {
	var failed, unjudged, worse, better, same, unknown []analysis.Row
	for _, r := range c.Rows {
		switch {
		case r.Gate == analysis.GateFail:
			failed = append(failed, r)
		case r.Gate == analysis.GateInconclusive:
			unjudged = append(unjudged, r)
		case r.Verdict == analysis.Worse:
			worse = append(worse, r)
		case r.Verdict == analysis.Better:
			better = append(better, r)
		case r.Verdict == analysis.NoVerdict:
			unknown = append(unknown, r)
		default:
			same = append(same, r)
		}
	}
	for _, rs := range [][]analysis.Row{failed, worse, better} {
		sort.SliceStable(rs, func(i, j int) bool { return magnitude(rs[i]) > magnitude(rs[j]) })
	}
	return []mdSection{
		{"Gate failures", failed, false},
		{"Not judged by the gate (inconclusive)", unjudged, true},
		{"Worse, but within the gate or not gated", worse, true},
		{"Better", better, true},
		{"No significant change", same, true},
		{"No verdict", unknown, true},
	}
}

// magnitude orders rows by how much they changed: |log(new/old)|, infinite from 0.
func magnitude(r analysis.Row) float64 {
	if math.IsNaN(r.Change) {
		return math.Inf(1)
	}
	return math.Abs(math.Log1p(r.Change))
}

// writeCompareMarkdown writes the markdown for a pull-request comment or a CI step summary,
// at most MarkdownLimit characters: the gate's result and each side's trust flags, the gate's
// failures, then the other significant changes and the rest folded under <details>. When the
// rows do not all fit, those left out are counted per table and the last line says where the
// full tables are (d.Full, or the flag that writes them).
func writeCompareMarkdown(w io.Writer, d *CompareDoc) error {
	var b strings.Builder
	c := d.Comparison
	oldL, newL := d.labels()
	fmt.Fprintf(&b, "### deferbench: %s → %s\n\n", mdCell(oldL), mdCell(newL))
	method := "Mann-Whitney U test"
	if c.Method == analysis.MethodPaired {
		method = "Wilcoxon signed-rank test on paired rounds"
	}
	if d.Fail != "" && slices.ContainsFunc(c.Rows, func(r analysis.Row) bool { return r.Gate != "" && r.Method == analysis.MethodExact }) {
		// Gated counts whose samples agree are compared exactly, without a test.
		if c.Tested == 0 {
			method = "counts compared exactly"
		} else {
			method += "; counts compared exactly"
		}
	}
	switch d.Gate() {
	case analysis.GateFail:
		fmt.Fprintf(&b, "**Gate failed:** %s worse beyond `%s` and significant (%s, alpha %v%s%s).\n\n",
			results.Plural(len(c.Failed()), "metric"), d.Fail, method, c.Alpha, d.holmClause(), d.unjudged())
	case analysis.GateInconclusive:
		if len(c.Inconclusive()) == 0 {
			fmt.Fprintf(&b, "**Gate inconclusive:** none of %s failed `%s` (%s, alpha %v%s).\n\n",
				results.Plural(c.Gated(), "gated metric"), d.Fail, method, c.Alpha, mdCell(c.UnmatchedClause()))
			break
		}
		fix := " To judge them, " + analysis.MoreSamples + "."
		if c.Unreachable > 0 {
			fix = "" // holmClause gave it
		}
		fmt.Fprintf(&b, "**Gate inconclusive:** %d of %s could not be judged (no verdict, or too few samples to fail at any outcome); none failed `%s` (%s, alpha %v%s%s).%s\n\n",
			len(c.Inconclusive()), results.Plural(c.Gated(), "gated metric"), d.Fail, method, c.Alpha, d.holmClause(), mdCell(c.UnmatchedClause()), fix)
	case analysis.GatePass:
		fmt.Fprintf(&b, "**Gate passed:** every gated metric judged, nothing worse beyond `%s` (%s, alpha %v%s).\n\n", d.Fail, method, c.Alpha, d.holmClause())
	default:
		fmt.Fprintf(&b, "No gate (%s, alpha %v).\n\n", method, c.Alpha)
	}
	if t := d.trust(); t != "" {
		fmt.Fprintf(&b, "> [!WARNING]\n> %s.\n\n", mdCell(t))
	}
	secs := mdSections(c)
	var counts []string
	for _, s := range secs[2:4] {
		if len(s.rows) > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", len(s.rows), strings.ToLower(strings.SplitN(s.title, ",", 2)[0])))
		}
	}
	if len(counts) > 0 {
		fmt.Fprintf(&b, "Other significant changes: %s (of %s compared).\n\n", strings.Join(counts, ", "), results.Plural(len(c.Rows), "metric"))
	}
	var tail strings.Builder
	for _, n := range c.Notes {
		fmt.Fprintf(&tail, "> note: %s\n", n)
	}
	if n := noCISamples(c.Rows); n != "" {
		fmt.Fprintf(&tail, "> ±∞: %s\n", n)
	}
	// Room for the tables: the limit less the head, the notes and the closing lines.
	const closing = 400
	budget := MarkdownLimit - b.Len() - tail.Len() - closing - len(d.Full)
	left := 0
	for i, s := range secs {
		if len(s.rows) == 0 {
			continue
		}
		if i >= 4 && left > 0 {
			// The unchanged rows and those without a verdict only when everything before fit.
			left += len(s.rows)
			fmt.Fprintf(&b, "%s: %s, in the full tables.\n\n", s.title, results.Plural(len(s.rows), "row"))
			continue
		}
		var t strings.Builder
		head := fmt.Sprintf("#### %s (%d)\n\n", s.title, len(s.rows))
		end := "\n"
		if s.fold {
			head = fmt.Sprintf("<details><summary>%s (%d)</summary>\n\n", s.title, len(s.rows))
			end = "\n</details>\n\n"
		}
		t.WriteString(head + mdTableHead(oldL, newL))
		shown := 0
		for _, r := range s.rows {
			line := mdRow(r)
			if t.Len()+len(line)+len(end)+80 > budget {
				break
			}
			t.WriteString(line)
			shown++
		}
		if shown == 0 {
			left += len(s.rows)
			fmt.Fprintf(&b, "%s (%d): not shown, see the full tables below.\n\n", s.title, len(s.rows))
			budget -= 80
			continue
		}
		if shown < len(s.rows) && i >= 4 {
			left += len(s.rows)
			fmt.Fprintf(&b, "%s: %s, in the full tables.\n\n", s.title, results.Plural(len(s.rows), "row"))
			continue
		}
		if shown < len(s.rows) {
			fmt.Fprintf(&t, "\n… %d more, in the full tables.\n", len(s.rows)-shown)
			left += len(s.rows) - shown
		}
		t.WriteString(end)
		budget -= t.Len()
		b.WriteString(t.String())
	}
	b.WriteString(tail.String())
	if left > 0 {
		where := "the full tables: the same command with -full FILE, or -format csv"
		if d.Full != "" {
			where = "the full tables are in " + d.Full
		}
		fmt.Fprintf(&b, "\n%s not shown to keep this under %d characters; %s.\n", results.Plural(left, "row"), MarkdownLimit, where)
	} else if d.Full != "" {
		fmt.Fprintf(&b, "\nThe same tables are in %s.\n", d.Full)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CompareFullMarker is how the file WriteCompareMarkdownFull writes starts: compare -full
// replaces only a file that starts with it (results.CheckOutFile).
const CompareFullMarker = "### deferbench: "

// WriteCompareMarkdownFull writes every row of d in markdown tables, without
// MarkdownLimit: the file CompareDoc.Full names.
func WriteCompareMarkdownFull(w io.Writer, d *CompareDoc) error {
	oldL, newL := d.labels()
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, CompareFullMarker+"%s → %s: all %s\n\n", mdCell(oldL), mdCell(newL), results.Plural(len(d.Comparison.Rows), "row"))
	for _, s := range mdSections(d.Comparison) {
		if len(s.rows) == 0 {
			continue
		}
		fmt.Fprintf(ew, "#### %s (%d)\n\n%s", s.title, len(s.rows), mdTableHead(oldL, newL))
		for _, r := range s.rows {
			io.WriteString(ew, mdRow(r))
		}
		fmt.Fprintln(ew)
	}
	return ew.Err
}
