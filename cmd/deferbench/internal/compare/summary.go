package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// summary is the line that ends a comparison on stderr, so that a table of a thousand rows
// is read at a glance: how many rows came out better, worse, unchanged or without a verdict;
// how many significant changes chance alone would give over that many tested rows (each is
// judged at alpha on its own, the gate corrects for their number); and the largest
// significant changes of each way, worse first. "" when no row was compared.
func summary(c *analysis.RunComparison) string {
	var same, unknown, tested int
	moved := map[string][]analysis.Row{} // the rows better and worse, by verdict
	for _, r := range c.Rows {
		switch r.Verdict {
		case analysis.Better, analysis.Worse:
			moved[r.Verdict] = append(moved[r.Verdict], r)
		case analysis.Unchanged:
			same++
		default:
			unknown++
		}
		if !math.IsNaN(r.P) {
			tested++
		}
	}
	if len(c.Rows) == 0 {
		return ""
	}
	var b strings.Builder
	better, worse := len(moved[analysis.Better]), len(moved[analysis.Worse])
	fmt.Fprintf(&b, "%s: %d better, %d worse, %d unchanged", results.Plural(len(c.Rows), "row"), better, worse, same)
	if unknown > 0 {
		fmt.Fprintf(&b, ", %d without a verdict", unknown)
	}
	alpha := c.Alpha
	if alpha == 0 {
		alpha = 0.05
	}
	if chance := alpha * float64(tested); better+worse > 0 && chance >= 1 {
		fmt.Fprintf(&b, " (each judged at p < %g on its own: over %d tested rows, about %.0f would show a change by chance)", alpha, tested, chance)
	}
	for _, v := range []string{analysis.Worse, analysis.Better} {
		rows := moved[v]
		if len(rows) == 0 {
			continue
		}
		slices.SortStableFunc(rows, func(x, y analysis.Row) int { return cmpAbs(y.Change, x.Change) })
		var top []string
		for _, r := range rows[:min(2, len(rows))] {
			top = append(top, fmt.Sprintf("%s %s %+.1f%%", r.Name, r.Unit, 100*r.Change))
		}
		fmt.Fprintf(&b, "; most %s: %s", v, strings.Join(top, ", "))
	}
	return b.String()
}

// cmpAbs orders x and y by magnitude, a NaN (a change from a median of 0) below any number.
func cmpAbs(x, y float64) int {
	ax, ay := math.Abs(x), math.Abs(y)
	switch {
	case math.IsNaN(ax) && math.IsNaN(ay):
		return 0
	case math.IsNaN(ax):
		return -1
	case math.IsNaN(ay):
		return 1
	case ax < ay:
		return -1
	case ax > ay:
		return 1
	}
	return 0
}
