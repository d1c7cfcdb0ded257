package results

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Limits on what ReadResults accepts, so that no input file can make a reader use unbounded
// memory or time: a results file of at most MaxResultsBytes bytes holding at most MaxResults
// benchmark lines (a full default run is about 1,600 lines and 200 KB).
const (
	MaxResultsBytes = 64 << 20
	MaxResults      = 200_000
)

// ErrBadValue is why ReadResults refuses a benchmark line whose iteration count is not
// positive or one of whose values is not a finite number ≥ 0 (NaN, ±Inf, negative).
var ErrBadValue = errors.New("bad benchmark value")

// ErrTooLarge is why ReadResults refuses a file over MaxResultsBytes or MaxResults lines.
var ErrTooLarge = errors.New("results file too large")

// CheckResult refuses a result that statistics must never see: zero or negative iterations,
// a value that is not a finite number ≥ 0, or one unit twice on the line (ns/op and sec/op
// are one unit). The error names the file and line, the value and
// its unit, and wraps ErrBadValue.
func CheckResult(r *benchfmt.Result) error {
	file, line := r.Pos()
	if r.Iters <= 0 {
		return fmt.Errorf("%s:%d: %w: Benchmark%s ran %d iterations: want at least 1 (rerun it or delete the line)",
			file, line, ErrBadValue, r.Name, r.Iters)
	}
	for i, v := range r.Values {
		x, u := UnitValue(v)
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("%s:%d: %w: Benchmark%s has %s %s: want a finite number ≥ 0 (rerun it or delete the line)",
				file, line, ErrBadValue, r.Name, strconv.FormatFloat(x, 'g', -1, 64), u)
		}
		for _, w := range r.Values[:i] {
			if _, wu := UnitValue(w); CanonUnit(wu) == CanonUnit(u) {
				// Read as two samples of one run, it would narrow the interval and sway
				// the median: one measurement, one value per unit.
				return fmt.Errorf("%s:%d: %w: Benchmark%s has %s twice (%s and %s): want each unit once on a line (two lines joined? split or delete it)",
					file, line, ErrBadValue, r.Name, CanonUnit(u), wu, u)
			}
		}
	}
	return nil
}

// CanonUnit maps the names of time per operation onto the unit bench.txt writes.
func CanonUnit(u string) string {
	if u == "sec/op" || u == "time/op" {
		return "ns/op"
	}
	return u
}

// Tolerance is the largest change of a metric in unit that does not count (a change must
// exceed it): 0.01 allocs/op (one allocation per hundred operations) and 1 byte for bytes
// per anything (B/op, heap-B/cmd, replica-B/entity), so that amortised growth (a slice that grows once in a million
// operations: 1e-6 allocs/op, and a per-op byte count that depends on the iteration count)
// never counts as a change; 0.01 for retained-x (the heap held after a spike over the steady
// heap: a hundredth of the steady heap, where a few hundred bytes of a collection's timing made
// strategies of equal retention rank one after another); 0 for every other unit.
func Tolerance(unit string) float64 {
	switch {
	case unit == "allocs/op", unit == "retained-x":
		return 0.01
	case strings.HasPrefix(unit, "B/") || strings.Contains(unit, "-B/"):
		return 1
	}
	return 0
}

// Deterministic reports whether unit is a count that does not depend on timing, so that
// samples that all agree (within Tolerance) are compared exactly, without a test.
func Deterministic(unit string) bool {
	return unit == "allocs/op" || unit == "B/op" || unit == "distinct-states"
}

// HigherIsBetter reports whether a larger value of unit is an improvement: rates (…/s) and
// efficiency. Everything else (time, bytes, allocations, distinct-states) is better lower.
func HigherIsBetter(unit string) bool {
	return strings.HasSuffix(unit, "/s") || unit == "efficiency" || unit == "speedup"
}

// lineCount is the line of the last of rs, 0 for none.
func lineCount(rs []*benchfmt.Result) int {
	if len(rs) == 0 {
		return 0
	}
	_, l := rs[len(rs)-1].Pos()
	return l
}
