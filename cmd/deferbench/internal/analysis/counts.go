package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// CountMinChange is the smallest relative difference of instructions per op that separates
// two strategies in the verdicts, when their spreads together are smaller: 1 %, the count
// gate's threshold in CI.
const CountMinChange = 0.01

// CountIndex is a run's instruction counts by row and strategy (counts.RowsFromResults of
// its results), for the verdicts.
type CountIndex map[sampleKey]counts.Measure

// NewCountIndex indexes the instr/op rows of rs; it is empty when rs holds none.
func NewCountIndex(rs []*benchfmt.Result) CountIndex {
	x := CountIndex{}
	for _, r := range counts.RowsFromResults(rs) {
		m, ok := r.Get(counts.InstrUnit)
		if !ok {
			continue
		}
		n := results.ParseName(r.Name)
		x[sampleKey{RowID{n.Scenario, n.Variant(), n.Procs}, n.Strategy, counts.InstrUnit}] = m
	}
	return x
}

// CountSeparation is what instructions per op say about strategies that time could not
// separate.
type CountSeparation struct {
	// Strategies and Measures are the strategies of the group that were counted, fewest
	// instructions first.
	Strategies []string
	Measures   []counts.Measure
	// Apart[i] says Strategies[i] and Strategies[i+1] differ by more than
	// max(CountMinChange, their spreads together).
	Apart []bool
}

// Any reports whether counts separate at least one neighbouring pair.
func (s CountSeparation) Any() bool {
	for _, a := range s.Apart {
		if a {
			return true
		}
	}
	return false
}

// Text is the separation in words, e.g. "cmdbuffer 64.0 < hybrid 89.5 ≈ versioned 89.6
// instr/op".
func (s CountSeparation) Text() string {
	var b strings.Builder
	for i, st := range s.Strategies {
		if i > 0 {
			if s.Apart[i-1] {
				b.WriteString(" < ")
			} else {
				b.WriteString(" ≈ ")
			}
		}
		fmt.Fprintf(&b, "%s %s", st, results.Sig3(s.Measures[i].Median, false))
	}
	b.WriteString(" " + counts.InstrUnit)
	return b.String()
}

// SeparateByCounts returns what the instruction counts of x say about the strategies
// group (indexes into k.Ranked) of ranking k: ok is false when fewer than two of them were
// counted in k's row (same scenario, variant and GOMAXPROCS).
func (x CountIndex) SeparateByCounts(k Ranking, group []int) (CountSeparation, bool) {
	var s CountSeparation
	for _, i := range group {
		st := k.Ranked[i].Strategy
		if m, ok := x[sampleKey{k.Row, st, counts.InstrUnit}]; ok && m.Median > 0 {
			s.Strategies = append(s.Strategies, st)
			s.Measures = append(s.Measures, m)
		}
	}
	if len(s.Strategies) < 2 {
		return s, false
	}
	idx := make([]int, len(s.Strategies))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.Measures[idx[a]].Median < s.Measures[idx[b]].Median })
	sts, ms := make([]string, len(idx)), make([]counts.Measure, len(idx))
	for i, j := range idx {
		sts[i], ms[i] = s.Strategies[j], s.Measures[j]
	}
	s.Strategies, s.Measures = sts, ms
	for i := 1; i < len(ms); i++ {
		a, b := ms[i-1], ms[i]
		limit := max(CountMinChange, a.Spread+b.Spread)
		s.Apart = append(s.Apart, (b.Median-a.Median)/a.Median > limit)
	}
	return s, true
}

// Instr returns strategy's instructions per op in row, if it was counted there.
func (x CountIndex) Instr(row RowID, strategy string) (counts.Measure, bool) {
	m, ok := x[sampleKey{row, strategy, counts.InstrUnit}]
	return m, ok && m.Median > 0
}
