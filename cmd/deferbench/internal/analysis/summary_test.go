package analysis

import (
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestSummarize(t *testing.T) {
	s := Summarize(sampleResults("X-2", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
	if len(s) != 1 || s[0].N != 10 || s[0].Median != 5.5 || s[0].Lo > 5.5 || s[0].Hi < 5.5 || s[0].Unit != "ns/op" {
		t.Errorf("Summarize = %+v; want n 10, median 5.5 inside its CI, unit ns/op", s)
	}
}

// sampleResults is one result of name per value in ns/op.
func sampleResults(name string, vals ...float64) []*benchfmt.Result {
	var rs []*benchfmt.Result
	for _, v := range vals {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: "ns/op"}}})
	}
	return rs
}
