package render

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
)

// hasEmulatedISA reports whether any row was counted on an emulated ISA (isa: pi4).
func hasEmulatedISA(rows []counts.Row) bool {
	for _, r := range rows {
		if r.ISA != "" {
			return true
		}
	}
	return false
}

// isaLabel is an ISA's column heading: "host", "Pi 4", or the name of an ISA this build does
// not know.
func isaLabel(name string) string {
	if name == "" {
		return counts.HostISA.Label
	}
	if i, ok := counts.LookupISA(name); ok {
		return i.Label
	}
	return name
}

// isaCell is one count of one row, strategy and unit on one ISA.
type isaCell struct {
	m  counts.Measure
	ok bool
}

// isaTable is one scenario's counts in one unit: rows (variant, strategy), a column per ISA.
type isaTable struct {
	scenario, unit string
	keys           []string // variant row keys, in order
	strategies     map[string][]string
	cells          map[[3]string]counts.Measure // key, strategy, isa
}

// writeCountsByISA writes the Counts section's tables when some rows were counted on an
// emulated ISA: per scenario and unit, one row per variant and strategy and one column per ISA
// (host, Pi 4, Pi 5, Pi 32-bit), then where the strategies' order, or the gap between them,
// differs between ISAs, and where the Pi 4 and Pi 5 models count the same code differently.
func writeCountsByISA(b *strings.Builder, rows []counts.Row, isas []string) {
	fmt.Fprintf(b, "The Pi columns were counted under qemu-user on a model of the Pi's CPU, from a binary cross-built for it: the instructions "+
		"that binary executes on the board (the same instruction stream on any host), not the board's time, caches or memory order. "+
		"Pi 4 and Pi 5 run the same arm64 code except where it asks the CPU: Go's atomics and locks take LDAXR/STLXR loops on the Pi 4's "+
		"Cortex-A72 (no LSE) and single LSE instructions on the Pi 5's Cortex-A76. Check a model against a board with the board's "+
		"hardware instructions counter (hw-instr/op, read beside a timed run where the kernel allows; deferbench fleet puts them side by side).\n\n")
	var tables []*isaTable
	byKey := map[string]*isaTable{}
	for _, r := range rows {
		n := results.ParseName(r.Name)
		rk := n.Variant()
		if n.Procs != 1 {
			rk += " GOMAXPROCS=" + fmt.Sprint(n.Procs)
		}
		if rk == "" {
			rk = "(all)"
		}
		for _, m := range r.Measures {
			k := n.Scenario + "\x00" + m.Unit
			t, ok := byKey[k]
			if !ok {
				t = &isaTable{scenario: n.Scenario, unit: m.Unit, strategies: map[string][]string{}, cells: map[[3]string]counts.Measure{}}
				byKey[k] = t
				tables = append(tables, t)
			}
			if _, ok := t.strategies[rk]; !ok {
				t.keys = append(t.keys, rk)
			}
			if !slices.Contains(t.strategies[rk], n.Strategy) {
				t.strategies[rk] = append(t.strategies[rk], n.Strategy)
			}
			t.cells[[3]string{rk, n.Strategy, r.ISA}] = m
		}
	}
	last := ""
	for _, t := range tables {
		if t.scenario != last {
			last = t.scenario
			fmt.Fprintf(b, "### %s\n\n", t.scenario)
			if d := suite.Lookup(t.scenario).Description; d != "" {
				fmt.Fprintf(b, "What one op is: %s.\n\n", d)
			}
		}
		if note := unitNote(t.unit); note != "" {
			fmt.Fprintf(b, "%s\n\n", note)
		}
		var heads []string
		for _, i := range isas {
			heads = append(heads, isaLabel(i))
		}
		fmt.Fprintf(b, "| %s | strategy | %s |\n|---|---|%s\n", t.unit, strings.Join(heads, " | "), strings.Repeat("---:|", len(isas)))
		for _, rk := range t.keys {
			for _, st := range t.strategies[rk] {
				fmt.Fprintf(b, "| %s | %s |", rk, st)
				for _, i := range isas {
					m, ok := t.cells[[3]string{rk, st, i}]
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
		}
		fmt.Fprintln(b)
		if lines := t.differences(isas); len(lines) > 0 {
			fmt.Fprintf(b, "Where the ISAs disagree (%s; counts within max(1 %%, the two spreads) are ties):\n\n%s\n\n", t.unit, strings.Join(lines, "\n"))
		} else if len(isas) > 1 {
			fmt.Fprintf(b, "The strategies' order and the gaps between them (within 10 %%) are the same on every ISA here.\n\n")
		}
	}
}

// gapDiffers is how far the ratio of two strategies' counts may move between two ISAs before
// the report says the gap differs: 10 %.
const gapDiffers = 0.10

// differences returns the table's findings across ISAs, one markdown list item each: per row,
// a pair of strategies whose order flips between two ISAs, each strategy whose ratio to the
// row's cheapest moves by more than gapDiffers between ISAs, and the strategies whose Pi 4 and
// Pi 5 counts differ beyond their spreads (the same code, other atomics).
func (t *isaTable) differences(isas []string) []string {
	var out []string
	for _, rk := range t.keys {
		sts := t.strategies[rk]
		get := func(st, isa string) (counts.Measure, bool) {
			m, ok := t.cells[[3]string{rk, st, isa}]
			return m, ok && m.Median > 0
		}
		// Order: a pair separated on two ISAs in opposite directions.
		for x := 0; x < len(isas); x++ {
			for y := x + 1; y < len(isas); y++ {
				for i := 0; i < len(sts); i++ {
					for j := i + 1; j < len(sts); j++ {
						ax, ok1 := get(sts[i], isas[x])
						bx, ok2 := get(sts[j], isas[x])
						ay, ok3 := get(sts[i], isas[y])
						by, ok4 := get(sts[j], isas[y])
						if !(ok1 && ok2 && ok3 && ok4) {
							continue
						}
						cx, cy := order(ax, bx), order(ay, by)
						if cx != 0 && cy != 0 && cx != cy {
							out = append(out, fmt.Sprintf("- %s: the order of %s and %s flips: %s vs %s on %s, %s vs %s on %s.",
								rk, sts[i], sts[j], results.Sig3(ax.Median, false), results.Sig3(bx.Median, false), isaLabel(isas[x]),
								results.Sig3(ay.Median, false), results.Sig3(by.Median, false), isaLabel(isas[y])))
						}
					}
				}
			}
		}
		// Gap: each strategy's ratio to the row's cheapest on the first ISA.
		base := ""
		for _, st := range sts {
			m, ok := get(st, isas[0])
			if !ok {
				continue
			}
			if bm, _ := get(base, isas[0]); base == "" || m.Median < bm.Median {
				base = st
			}
		}
		if base != "" {
			for _, st := range sts {
				if st == base {
					continue
				}
				var ratios []string
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, isa := range isas {
					a, ok1 := get(st, isa)
					bm, ok2 := get(base, isa)
					if !ok1 || !ok2 {
						continue
					}
					r := a.Median / bm.Median
					lo, hi = min(lo, r), max(hi, r)
					ratios = append(ratios, fmt.Sprintf("%.2f× on %s", r, isaLabel(isa)))
				}
				if len(ratios) > 1 && hi > lo*(1+gapDiffers) {
					out = append(out, fmt.Sprintf("- %s: %s over %s is %s.", rk, st, base, strings.Join(ratios, ", ")))
				}
			}
		}
	}
	// Pi 4 against Pi 5: the same arm64 code but for what asks the CPU (atomics, locks).
	if slices.Contains(isas, "pi4") && slices.Contains(isas, "pi5") {
		type d struct {
			rk, st string
			p4, p5 float64
			rel    float64
		}
		var ds []d
		same, once := 0, false
		for _, rk := range t.keys {
			for _, st := range t.strategies[rk] {
				a, ok1 := t.cells[[3]string{rk, st, "pi4"}]
				c, ok2 := t.cells[[3]string{rk, st, "pi5"}]
				if !ok1 || !ok2 || c.Median == 0 {
					continue
				}
				rel := (a.Median - c.Median) / c.Median
				once = once || len(a.Samples) < 2 || len(c.Samples) < 2
				if math.Abs(rel) > a.Spread+c.Spread && a.Median != c.Median {
					ds = append(ds, d{rk, st, a.Median, c.Median, rel})
				} else {
					same++
				}
			}
		}
		sort.SliceStable(ds, func(i, j int) bool { return math.Abs(ds[i].rel) > math.Abs(ds[j].rel) })
		if len(ds) > 0 {
			var parts []string
			const shown = 6
			for _, x := range ds[:min(len(ds), shown)] {
				parts = append(parts, fmt.Sprintf("%s %s %s vs %s (%+.2f%%)", x.st, x.rk, results.Sig3(x.p4, false), results.Sig3(x.p5, false), 100*x.rel))
			}
			beyond := "beyond their spreads"
			if once {
				beyond = "(some counted once: their spread is not measured; -repeats 3 measures it)"
			}
			out = append(out, fmt.Sprintf("- Pi 4 vs Pi 5 (the same arm64 binary; the Pi 4 takes LDAXR/STLXR loops where the Pi 5 has LSE atomics): %d of %d rows differ %s, most first: %s.",
				len(ds), len(ds)+same, beyond, strings.Join(parts, "; ")+more(len(ds)-shown)))
		} else if same > 0 {
			out = append(out, fmt.Sprintf("- Pi 4 vs Pi 5: all %d rows count the same within their spreads.", same))
		}
	}
	return out
}

// order is -1 when a counts fewer than b beyond max(1 %, the two spreads), 1 when more, 0 for
// a tie.
func order(a, b counts.Measure) int {
	tol := max(0.01, a.Spread+b.Spread)
	switch {
	case b.Median > a.Median*(1+tol):
		return -1
	case a.Median > b.Median*(1+tol):
		return 1
	}
	return 0
}

// countISAs returns the ISAs of rows in the order of counts.ISAs ("" for the host's), then
// any this build does not know.
func countISAs(rows []counts.Row) []string {
	have := map[string]bool{}
	for _, r := range rows {
		have[r.ISA] = true
	}
	var out []string
	for _, i := range counts.ISAs {
		n := i.Name
		if i.Host() {
			n = ""
		}
		if have[n] {
			out = append(out, n)
			delete(have, n)
		}
	}
	var rest []string
	for n := range have {
		rest = append(rest, n)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// more is ", and N more" for n > 0 items left unlisted, else "".
func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("; and %d more", n)
}
