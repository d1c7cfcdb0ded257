package counts

import (
	"golang.org/x/perf/benchfmt"
)

// RowsFromResults rebuilds count rows from Go benchmark results, such as a bench.txt read
// back: per benchmark name (in first-seen order), the values of every count unit
// (IsCountUnit) become one Measure, its Samples in the order read, with their median and
// spread, per ISA (a result's ISAKey configuration: the rows of one name on two ISAs are two
// rows). Results without a count unit are skipped; Low and High are 0 (a result records only
// their difference, as its iterations).
func RowsFromResults(rs []*benchfmt.Result) []Row {
	var order []string
	byName := map[string]*Row{}
	for _, r := range rs {
		for _, v := range r.Values {
			u, x := v.Unit, v.Value
			if v.OrigUnit != "" {
				u, x = v.OrigUnit, v.OrigValue
			}
			if !IsCountUnit(u) {
				continue
			}
			isa := ISAOf(r)
			name := isa + "\x00" + string(r.Name)
			row, ok := byName[name]
			if !ok {
				row = &Row{Name: string(r.Name), ISA: isa}
				byName[name] = row
				order = append(order, name)
			}
			i := 0
			for i < len(row.Measures) && row.Measures[i].Unit != u {
				i++
			}
			if i == len(row.Measures) {
				row.Measures = append(row.Measures, Measure{Unit: u})
			}
			row.Measures[i].Samples = append(row.Measures[i].Samples, x)
		}
	}
	out := make([]Row, 0, len(order))
	for _, n := range order {
		r := byName[n]
		for i, m := range r.Measures {
			r.Measures[i] = newMeasure(m.Unit, m.Samples)
		}
		out = append(out, *r)
	}
	return out
}

// HasCounts reports whether any result holds a count unit.
func HasCounts(rs []*benchfmt.Result) bool {
	for _, r := range rs {
		for _, v := range r.Values {
			u := v.Unit
			if v.OrigUnit != "" {
				u = v.OrigUnit
			}
			if IsCountUnit(u) {
				return true
			}
		}
	}
	return false
}
