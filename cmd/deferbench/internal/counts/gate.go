package counts

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// Threshold is one gate condition on a count unit: the unit getting worse by more than Frac
// (0.01 for 1 %) of the old median fails the gate.
type Threshold struct {
	Unit string
	Frac float64
	Text string // as given: "instr/op>1%"
}

// ParseThresholds parses comma-separated unit>N% conditions on count units, e.g.
// "instr/op>1%,sim-D1-miss/op>5%". Counts gate on relative changes only; a unit that is not a
// count unit (IsCountUnit), an absolute threshold or a unit named twice is an error naming the
// condition. SplitThresholds separates these from the time tier's conditions.
func ParseThresholds(s string) ([]Threshold, error) {
	var out []Threshold
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		u, v, ok := strings.Cut(f, ">")
		u, v = strings.TrimSpace(u), strings.TrimSpace(v)
		if !ok || u == "" {
			return nil, fmt.Errorf("condition %q: want unit>N%%, e.g. %s>1%%", f, InstrUnit)
		}
		if !IsCountUnit(u) {
			return nil, fmt.Errorf("condition %q: %s is not a count unit (valid: %s)", f, u, strings.Join(Units, ", "))
		}
		num, pct := strings.CutSuffix(v, "%")
		if !pct {
			return nil, fmt.Errorf("condition %q: counts gate on a relative change: want %s>N%%", f, u)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fmt.Errorf("condition %q: want a finite number ≥ 0 before %%, got %q", f, num)
		}
		if seen[u] {
			return nil, fmt.Errorf("condition %q: a second threshold for %s", f, u)
		}
		seen[u] = true
		out = append(out, Threshold{Unit: u, Frac: x / 100, Text: f})
	}
	return out, nil
}

// SplitThresholds splits a comma-separated gate into the conditions on count units and the
// rest, each rejoined with commas and in the order given: "sec/op>5%,instr/op>1%" gives
// "instr/op>1%" and "sec/op>5%". It does not check the conditions.
func SplitThresholds(s string) (count, other string) {
	var c, o []string
	for _, f := range strings.Split(s, ",") {
		u, _, _ := strings.Cut(f, ">")
		if IsCountUnit(strings.TrimSpace(u)) {
			c = append(c, strings.TrimSpace(f))
		} else if strings.TrimSpace(f) != "" {
			o = append(o, strings.TrimSpace(f))
		}
	}
	return strings.Join(c, ","), strings.Join(o, ",")
}

// Status is the outcome of one gated row and unit.
type Status string

// The statuses of a Verdict.
const (
	Pass    Status = "pass"    // within max(threshold, margin), or better
	Fail    Status = "fail"    // worse beyond max(threshold, margin)
	Missing Status = "missing" // in one set of rows only, or without the unit on one side
	// Vanished: in old with the unit, and not in new at any GOMAXPROCS, though new counted
	// rows of its scenario (results.Name.Scenario) and of its strategy on its ISA: a row that
	// stopped being counted or was renamed. The gate cannot pass on it. (A scenario or a
	// strategy new did not count at all is a subset run: Missing.)
	Vanished Status = "vanished"
	// NoSpread: both sides were counted once, so no spread was measured to judge the change
	// against; the gate cannot judge the row (raise -repeats).
	NoSpread Status = "no spread"
)

// Verdict is the gate's decision for one row and unit.
type Verdict struct {
	Name, Unit string
	ISA        string  // the row's emulated ISA, "" for the host's
	Old, New   float64 // medians per op
	// Change is (New − Old) / Old.
	Change float64
	// Margin is the change the measured spread allows: the old row's spread plus the new
	// row's. A change within it is not a change.
	Margin float64
	// Limit is max(threshold, Margin): a change worse than it fails.
	Limit  float64
	Better bool // the change is an improvement beyond Limit
	Status Status
	Text   string // the threshold as given
}

// Gate compares new count rows with old ones, by ISA and name, for every unit with a threshold.
// Unlike the time tier it runs no test over noise: counts barely vary, so a row whose median
// got worse by more than max(threshold, margin) fails, where margin is the spread measured on
// the two sides together; anything else passes. A row counted once on both sides (one
// sample each: no spread was measured) is NoSpread, judged neither way. Worse means larger, except
// for IPC. Rows are
// reported in the order of old, then the rows only new has; a row or unit on one side only
// is Missing, but a row of old's (of a strategy) that new lacks from a scenario and of a
// strategy it counted is Vanished, and with unreadable (lines of new skipped as malformed)
// any row of old's that new lacks at every GOMAXPROCS is.
func Gate(old, new []Row, ts []Threshold, unreadable bool) []Verdict {
	key := func(r Row) string { return r.ISA + "\x00" + r.Name }
	byName := map[string]Row{}
	for _, r := range new {
		byName[key(r)] = r
	}
	// What new counted, on each ISA: scenarios, strategies, and names at any GOMAXPROCS.
	ran := map[string]bool{}
	ranKeys := func(r Row) (scen, strat, name string) {
		n := results.ParseName(r.Name)
		base, _ := results.SplitProcs(r.Name)
		return r.ISA + "\x00s\x00" + n.Scenario, r.ISA + "\x00t\x00" + n.Strategy, r.ISA + "\x00n\x00" + base
	}
	for _, r := range new {
		a, b, c := ranKeys(r)
		ran[a], ran[b], ran[c], ran["i\x00"+r.ISA] = true, true, true, true
	}
	vanished := func(r Row) bool {
		scen, strat, name := ranKeys(r)
		return results.ParseName(r.Name).Strategy != "" && ran["i\x00"+r.ISA] && !ran[name] && (unreadable || ran[scen] && ran[strat])
	}
	var out []Verdict
	seen := map[string]bool{}
	for _, o := range old {
		seen[key(o)] = true
		n, ok := byName[key(o)]
		for _, t := range ts {
			om, okOld := o.Get(t.Unit)
			if !okOld {
				if nm, okNew := n.Get(t.Unit); ok && okNew {
					out = append(out, Verdict{Name: o.Name, ISA: o.ISA, Unit: t.Unit, New: nm.Median, Status: Missing, Text: t.Text})
				}
				continue
			}
			v := Verdict{Name: o.Name, ISA: o.ISA, Unit: t.Unit, Old: om.Median, Status: Missing, Text: t.Text}
			if nm, okNew := n.Get(t.Unit); ok && okNew {
				v = judge(o, om, nm, t)
			} else if !ok && vanished(o) {
				v.Status = Vanished
			}
			out = append(out, v)
		}
	}
	for _, n := range new {
		if seen[key(n)] {
			continue
		}
		for _, t := range ts {
			if nm, ok := n.Get(t.Unit); ok {
				out = append(out, Verdict{Name: n.Name, ISA: n.ISA, Unit: t.Unit, New: nm.Median, Status: Missing, Text: t.Text})
			}
		}
	}
	return out
}

func judge(r Row, o, n Measure, t Threshold) Verdict {
	v := Verdict{Name: r.Name, ISA: r.ISA, Unit: t.Unit, Old: o.Median, New: n.Median, Margin: o.Spread + n.Spread, Text: t.Text}
	v.Limit = max(t.Frac, v.Margin)
	switch {
	case o.Median == n.Median:
	case o.Median == 0:
		v.Change = math.Inf(1)
	default:
		v.Change = (n.Median - o.Median) / math.Abs(o.Median)
	}
	worse := v.Change
	if HigherIsBetter(t.Unit) {
		worse = -worse
	}
	v.Status = Pass
	switch {
	case worse > v.Limit:
		v.Status = Fail
	case -worse > v.Limit:
		v.Better = true
	}
	if len(o.Samples) == 1 && len(n.Samples) == 1 {
		// Without a spread the change has nothing to be judged against: a single count on
		// each side says nothing of how far the next one may land. One side's measured
		// spread (a committed expectation counted 5 times) is the row's own.
		v.Status, v.Better = NoSpread, false
	}
	return v
}

// Failed returns the verdicts that failed.
func Failed(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if v.Status == Fail {
			out = append(out, v)
		}
	}
	return out
}
