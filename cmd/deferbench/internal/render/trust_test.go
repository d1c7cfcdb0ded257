package render

import (
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
)

// TestTrustCountsIgnoreLoad: a comparison of instruction counts alone does not warn that a
// loaded side's differences may come from the load (the load changes how long counting
// takes, not the counts), but keeps the other flags; a timed comparison keeps every flag.
func TestTrustCountsIgnoreLoad(t *testing.T) {
	flags := []string{"Loaded (other work took 64% of the CPUs' time during the run)", "throttled", "partial (3 of 5 results)"}
	for _, c := range []struct {
		unit       string
		wantLoaded bool
	}{{"instr/op", false}, {"ns/op", true}} {
		d := &CompareDoc{NewLabel: "c", NewFlags: flags, Comparison: &analysis.RunComparison{Rows: []analysis.Row{{Name: "X", Unit: c.unit}}}}
		got, short := d.trust(), d.trustShort()
		if strings.Contains(got, "Loaded") != c.wantLoaded || strings.Contains(got, "throttled") != c.wantLoaded || !strings.Contains(got, "partial") {
			t.Errorf("%s: trust %q", c.unit, got)
		}
		if strings.Contains(short, "Loaded") != c.wantLoaded || !strings.Contains(short, "partial") {
			t.Errorf("%s: trustShort %q", c.unit, short)
		}
	}
}
