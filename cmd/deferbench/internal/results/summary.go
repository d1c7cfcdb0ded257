package results

import "golang.org/x/perf/benchfmt"

// Summary is the distribution of one metric of one benchmark over the repetitions of a run:
// the median and its 95% confidence interval (benchmath.AssumeNothing, as benchstat).
type Summary struct {
	Name   string  `json:"name"` // full benchmark name, without the Benchmark prefix
	Unit   string  `json:"unit"`
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Lo     float64 `json:"ci95_lo"`
	Hi     float64 `json:"ci95_hi"`
	// NoCI: too few samples for a confidence interval (fewer than 6 at 95%); Lo and Hi are
	// then the median.
	NoCI     bool     `json:"no_ci,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// UnitValue returns a value in the unit it was written in (the reader turns ns/op into
// sec/op; summaries keep ns/op).
func UnitValue(v benchfmt.Value) (float64, string) {
	if v.OrigUnit != "" {
		return v.OrigValue, v.OrigUnit
	}
	return v.Value, v.Unit
}
