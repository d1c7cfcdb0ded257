package counts

import (
	"bytes"
	"math"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestRowsFromResults writes count rows as bench.txt does, reads them back and rebuilds the
// rows: the same names, units, samples, medians and spreads; a time-only result adds nothing.
func TestRowsFromResults(t *testing.T) {
	rows := []Row{
		{Name: "Stage/strategy=cmdbuffer/cmd=typed", Low: 2, High: 10, Measures: []Measure{
			newMeasure(InstrUnit, []float64{89.5, 89.6, 89.4}), newMeasure(SimD1MissUnit, []float64{0.5, 0.5, 0.6})}},
		{Name: "Stage/strategy=baseline/cmd=typed", Low: 2, High: 10, Measures: []Measure{newMeasure(InstrUnit, []float64{64})}},
	}
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	timed := &benchfmt.Result{Name: benchfmt.Name("Stage/strategy=cmdbuffer/cmd=typed"), Iters: 100, Values: []benchfmt.Value{{Value: 12.5, Unit: "ns/op"}}}
	if err := w.Write(timed); err != nil {
		t.Fatal(err)
	}
	for _, r := range Results(rows, nil) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	rd := benchfmt.NewReader(&buf, "bench.txt")
	var rs []*benchfmt.Result
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok {
			rs = append(rs, r.Clone())
		}
	}
	if !HasCounts(rs) || HasCounts(rs[:1]) {
		t.Errorf("HasCounts: want true for the file, false for its timed result alone")
	}
	got := RowsFromResults(rs)
	if len(got) != len(rows) {
		t.Fatalf("RowsFromResults: %d rows, want %d: %+v", len(got), len(rows), got)
	}
	for i, want := range rows {
		g := got[i]
		if g.Name != want.Name || len(g.Measures) != len(want.Measures) {
			t.Fatalf("row %d: %+v, want %+v", i, g, want)
		}
		for j, wm := range want.Measures {
			gm := g.Measures[j]
			if gm.Unit != wm.Unit || len(gm.Samples) != len(wm.Samples) || math.Abs(gm.Median-wm.Median) > 1e-9 || math.Abs(gm.Spread-wm.Spread) > 1e-9 {
				t.Errorf("row %s unit %s: %+v, want %+v", want.Name, wm.Unit, gm, wm)
			}
		}
	}
	if m, _ := got[0].Get(InstrUnit); math.Abs(m.Spread-0.2/89.5) > 1e-9 {
		t.Errorf("spread %v, want (89.6 − 89.4) / 89.5", m.Spread)
	}
}
