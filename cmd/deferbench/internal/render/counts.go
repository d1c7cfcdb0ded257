package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
)

// countsCaveat is what every verdict that uses counts says with it.
const countsCaveat = "instructions are counted work, not time: they leave out cache and memory effects"

// writeCountNote writes, under a ranking, what instructions per op say about each group of
// strategies that time could not separate, when the counts separate them.
func writeCountNote(b *strings.Builder, x analysis.CountIndex, k analysis.Ranking) {
	if !results.UnitIsTime(k.Headline.Unit) {
		return // a group of equal allocations, bytes or states is no tie of time
	}
	for _, g := range k.Split().Groups {
		if len(g) < 2 {
			continue
		}
		if s, ok := x.SeparateByCounts(k, g); ok && s.Any() {
			fmt.Fprintf(b, "Time cannot separate %s; instructions per op can: %s (%s).\n\n",
				strings.Join(s.Strategies, ", "), s.Text(), countsCaveat)
		}
	}
}

// writePickCounts writes, under "Which to pick", the requirements whose best group time
// could not separate but instructions per op can.
func writePickCounts(b *strings.Builder, x analysis.CountIndex, ks []analysis.Ranking) {
	var lines []string
	for _, k := range ks {
		if k.Need == "" || k.Headline.Meets != nil {
			continue
		}
		g := k.Split()
		if len(g.Groups) == 0 || len(g.Groups[0]) < 2 {
			continue
		}
		if s, ok := x.SeparateByCounts(k, g.Groups[0]); ok && s.Any() {
			lines = append(lines, fmt.Sprintf("- %s (%s): time cannot separate them; instructions per op can: %s.", k.Need, rowLabel(k), s.Text()))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "Where time cannot separate the strategies that meet a requirement, the instruction counts of this run can (%s; ties within max(1 %%, the two spreads) are ≈):\n\n%s\n\n",
		countsCaveat, strings.Join(lines, "\n"))
}

// writeCounts writes the count tier's section: per scenario and count unit a table of the
// median per op and the spread over the repetitions, then the cases left out and why, and
// whether hardware counters could be read.
func writeCounts(b *strings.Builder, rs []*benchfmt.Result, meta ReportMeta) {
	rows := counts.RowsFromResults(rs)
	ce := meta.Counts
	if len(rows) == 0 && (ce == nil || ce.Method == "") {
		return
	}
	fmt.Fprintf(b, "## Counts (counted, not timed)\n\n")
	reps := 0
	for _, r := range rows {
		for _, m := range r.Measures {
			reps = max(reps, len(m.Samples))
		}
	}
	method := "each row ran in a child process under valgrind's cachegrind"
	if ce != nil && ce.Method != "" {
		method = ce.Method
	}
	fmt.Fprintf(b, "instr/op is the number of instructions one op executes, counted on valgrind's virtual CPU (%s). "+
		"Counts do not move with the load on the machine. They are work, not time: they leave out cache and memory effects "+
		"(a cache miss is one instruction here and hundreds of cycles on the machine) and the collector's work (the children run with GOGC=off; allocation is counted), "+
		"so never read them as time: ns/op is the time. ", method)
	if ce != nil && len(ce.Control) > 0 {
		fmt.Fprintf(b, "Held fixed in the children: %s. ", strings.Join(ce.Control, " "))
	}
	if reps > 1 {
		fmt.Fprintf(b, "Each cell is the median over %d repetitions with the spread, (max − min) / median, in parentheses.\n\n", reps)
	} else {
		fmt.Fprintf(b, "Each row was counted once, so its spread is not measured (deferbench run -repeats 3 measures it).\n\n")
	}
	if hasEmulatedISA(rows) {
		writeCountsByISA(b, rows, countISAs(rows))
	} else {
		writeCountsByStrategy(b, rows)
	}
	writeCountsNotes(b, ce)
}

// writeCountsByStrategy writes the Counts section's tables of a run counted on the host's ISA
// only: per scenario and unit, a row per variant and a column per strategy.
func writeCountsByStrategy(b *strings.Builder, rows []counts.Row) {
	type cellKey struct{ scenario, row, strategy, unit string }
	var scenarios []string
	var strategies = map[string][]string{}
	var rowOrder = map[string][]string{}
	var units = map[string][]string{}
	cells := map[cellKey]counts.Measure{}
	seen := map[string]bool{}
	for _, r := range rows {
		n := results.ParseName(r.Name)
		sc := n.Scenario
		rk := n.Variant()
		if n.Procs != 1 {
			rk += " GOMAXPROCS=" + fmt.Sprint(n.Procs)
		}
		if rk == "" {
			rk = "(all)"
		}
		for _, m := range r.Measures {
			add := func(kind, v string, list map[string][]string) {
				if !seen[kind+sc+"\x00"+v] {
					seen[kind+sc+"\x00"+v] = true
					list[sc] = append(list[sc], v)
				}
			}
			if !seen["c"+sc] {
				seen["c"+sc] = true
				scenarios = append(scenarios, sc)
			}
			add("s", n.Strategy, strategies)
			add("r", rk, rowOrder)
			add("u", m.Unit, units)
			cells[cellKey{sc, rk, n.Strategy, m.Unit}] = m
		}
	}
	for _, sc := range scenarios {
		fmt.Fprintf(b, "### %s\n\n", sc)
		if d := suite.Lookup(sc).Description; d != "" {
			fmt.Fprintf(b, "What one op is: %s.\n\n", d)
		}
		for _, u := range units[sc] {
			if note := unitNote(u); note != "" {
				fmt.Fprintf(b, "%s\n\n", note)
			}
			fmt.Fprintf(b, "| %s | %s |\n|---|%s\n", u, strings.Join(strategies[sc], " | "), strings.Repeat("---:|", len(strategies[sc])))
			for _, rk := range rowOrder[sc] {
				fmt.Fprintf(b, "| %s |", rk)
				for _, st := range strategies[sc] {
					m, ok := cells[cellKey{sc, rk, st, u}]
					switch {
					case !ok:
						fmt.Fprintf(b, " |")
					case len(m.Samples) > 1:
						fmt.Fprintf(b, " %s (%s) |", results.Sig3(m.Median, false), spreadText(m.Spread))
					default:
						fmt.Fprintf(b, " %s |", results.Sig3(m.Median, false))
					}
				}
				fmt.Fprintln(b)
			}
			fmt.Fprintln(b)
		}
	}
}

// writeCountsNotes writes what the Counts section says after its tables: the cases left out
// and why, and whether hardware counters could be read.
func writeCountsNotes(b *strings.Builder, ce *results.CountsEnv) {
	if ce == nil {
		return
	}
	if len(ce.Uncounted) > 0 {
		type group struct {
			scenario, reason string
			n                int
		}
		var gs []*group
		byKey := map[string]*group{}
		for _, u := range ce.Uncounted {
			sc := results.ParseName(u.Name).Scenario
			k := sc + "\x00" + u.Reason
			g, ok := byKey[k]
			if !ok {
				g = &group{scenario: sc, reason: u.Reason}
				byKey[k] = g
				gs = append(gs, g)
			}
			g.n++
		}
		sort.SliceStable(gs, func(i, j int) bool { return gs[i].scenario < gs[j].scenario })
		fmt.Fprintf(b, "Not counted: cases whose work depends on scheduling (a count would measure the scheduler as much as the strategy), and large worlds, for cost.\n\n")
		for _, g := range gs {
			fmt.Fprintf(b, "- %s (%d rows): %s\n", g.scenario, g.n, g.reason)
		}
		fmt.Fprintln(b)
	}
	if ce.Hardware != "" {
		fmt.Fprintf(b, "Hardware counters (perf_event_open): %s.\n\n", ce.Hardware)
	}
}

// unitNote labels the count units that are not instructions: simulated misses and the
// PMU's counters.
func unitNote(u string) string {
	switch u {
	case counts.SimD1MissUnit, counts.SimLLMissUnit:
		return "Simulated: " + u + " comes from cachegrind's model of a cache (first-level data, last-level), not from the machine's caches; an estimate of where misses fall, not a measurement."
	case counts.CyclesUnit, counts.HWInstrUnit, counts.BranchMissUnit, counts.CacheMissUnit, counts.IPCUnit:
		return u + " is read from the machine's PMU with perf_event_open (user space, the benchmark's threads); this path has not yet been run on a board."
	}
	return ""
}

// spreadText is a spread as a percentage: "0.12%", "<0.01%".
func spreadText(f float64) string {
	if f > 0 && f < 0.0001 {
		return "<0.01%"
	}
	return fmt.Sprintf("%.2f%%", 100*f)
}
