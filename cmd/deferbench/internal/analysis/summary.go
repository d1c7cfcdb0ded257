package analysis

import (
	"math"
	"slices"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// key identifies one metric of one benchmark.
type key struct{ name, unit string }

// collect groups the values of results by (full name, unit), keeping first-seen order.
func collect(rs []*benchfmt.Result) ([]key, map[key][]float64) {
	var order []key
	vals := map[key][]float64{}
	for _, r := range rs {
		for _, v := range r.Values {
			x, u := results.UnitValue(v)
			k := key{string(r.Name), u}
			if _, ok := vals[k]; !ok {
				order = append(order, k)
			}
			vals[k] = append(vals[k], x)
		}
	}
	return order, vals
}

// Summarize summarizes every metric of every benchmark in results.
func Summarize(rs []*benchfmt.Result) []results.Summary {
	order, vals := collect(rs)
	out := make([]results.Summary, 0, len(order))
	for _, k := range order {
		s := newSample(vals[k], &benchmath.DefaultThresholds)
		sum := benchmath.AssumeNothing.Summary(s, 0.95)
		row := results.Summary{Name: k.name, Unit: k.unit, N: len(vals[k]), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
		for _, w := range append(s.Warnings, sum.Warnings...) {
			row.Warnings = append(row.Warnings, w.Error())
		}
		if math.IsInf(row.Lo, 0) || math.IsNaN(row.Lo) || math.IsInf(row.Hi, 0) || math.IsNaN(row.Hi) {
			row.Lo, row.Hi, row.NoCI = row.Median, row.Median, true
		}
		out = append(out, row)
	}
	return out
}

// newSample is benchmath.NewSample on a copy of xs. benchmath.NewSample sorts the slice it
// is given in place; on the caller's slice that loses the round order, and a paired test
// that then pairs sample i of one side with sample i of the other compares order
// statistics instead of rounds (an A/A run of one binary then reads as a significant
// change whenever one side's spread is wider).
func newSample(xs []float64, th *benchmath.Thresholds) *benchmath.Sample {
	return benchmath.NewSample(slices.Clone(xs), th)
}
