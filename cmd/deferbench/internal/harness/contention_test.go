package harness

import (
	"math"
	"testing"

	"github.com/deferbench/deferbench/conformance/bench"
)

// TestContentionInterleavedMetrics: a P > 1 Contention benchmark reports its own ns/op,
// efficiency and allocation figures (reference rounds run inside the benchmark), each once,
// and allocations per staged command count the reference rounds' commands too: lazyguarded
// allocates 4 objects per staged command (its tasks), so dividing all allocations by b.N alone
// would read 4 × (1 + 1/P).
func TestContentionInterleavedMetrics(t *testing.T) {
	for _, bt := range []Benchtime{{N: 2}, {N: 300000}} { // one full round all the same; several full rounds
		for _, st := range Strategies {
			var want float64
			switch st.Name {
			case NoopName, "cmdbuffer":
			case "lazyguarded":
				want = 4
			default:
				continue
			}
			const p = 2
			v := Variant{Params: []Param{{"producers", "2"}}, Arg: p, Procs: p}
			res, err := measure(Case{Name: "Contention/strategy=" + st.Name, Run: contentionScenario.Bench(st, v)}, st.Name, bt)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, v := range res.Values {
				seen[v.Unit]++
			}
			for _, u := range []string{"ns/op", "B/op", "allocs/op", "cmds/s", "efficiency"} {
				if seen[u] != 1 {
					t.Errorf("%s at %s: %d values of %s, want 1: %v", st.Name, bt, seen[u], u, res.Values)
				}
			}
			if e, _ := res.Value("efficiency"); !(e > 0) || math.IsInf(e, 0) {
				t.Errorf("%s at %s: efficiency %v", st.Name, bt, e)
			}
			// Warm buffers allocate nothing more.
			if a, _ := res.Value("allocs/op"); math.Abs(a-want) > 0.01 {
				t.Errorf("%s at %s: %.4f allocs per staged command, want %v", st.Name, bt, a, want)
			}
		}
	}
}

// TestMeasureHonoursOverrides: a body that reports its own ns/op (or B/op, allocs/op) with
// ReportMetric replaces the computed value, as in go test, instead of adding a second one.
func TestMeasureHonoursOverrides(t *testing.T) {
	res, err := measure(Case{Name: "X", Run: func(b bench.B) error {
		b.ReportMetric(123, "ns/op")
		b.ReportMetric(7, "allocs/op")
		b.ReportMetric(1, "widgets/op")
		return nil
	}}, "X", Benchtime{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ns/op": 123, "allocs/op": 7, "widgets/op": 1}
	n := map[string]int{}
	for _, v := range res.Values {
		n[v.Unit]++
		if w, ok := want[v.Unit]; ok && v.Value != w {
			t.Errorf("%s = %v, want %v", v.Unit, v.Value, w)
		}
	}
	for _, u := range []string{"ns/op", "B/op", "allocs/op", "widgets/op"} {
		if n[u] != 1 {
			t.Errorf("%d values of %s, want 1: %v", n[u], u, res.Values)
		}
	}
}
