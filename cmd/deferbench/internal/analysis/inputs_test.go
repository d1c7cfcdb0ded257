package analysis

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestCheckThresholdUnits: a gate may name any unit the results carry, a count tier's
// instr/op as well as sec/op, and is refused for a unit neither run has.
func TestCheckThresholdUnits(t *testing.T) {
	rd := benchfmt.NewReader(strings.NewReader("BenchmarkX-2 10 5 ns/op 1200 instr/op 0 allocs/op\n"), "x.txt")
	var rs []*benchfmt.Result
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok {
			rs = append(rs, r.Clone())
		}
	}
	ok, err := ParseThresholds("instr/op>1%,sec/op>5%,allocs/op>0")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckThresholdUnits(ok, rs); err != nil {
		t.Errorf("instr/op, sec/op, allocs/op: %v", err)
	}
	bad, _ := ParseThresholds("cycles/op>1%")
	if err := CheckThresholdUnits(bad, rs); err == nil || !strings.Contains(err.Error(), "instr/op") {
		t.Errorf("cycles/op: %v; want a refusal listing the units", err)
	}
}
