package render

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
)

// WriteReport writes report.md, the deciding report: its first screen the pick per kind of
// need, how sure each is (tied to the trust flags) and the one command that would make it
// surer; then the trust flags, "Which to pick" with one row per requirement (its variants
// folded in, named where their verdicts differ) and a row per cost, the Findings in one line
// per headline metric, the Counts, the configuration and the plots. What it leaves out is in
// details.md (WriteDetails) beside it.
func WriteReport(w io.Writer, rs []*benchfmt.Result, meta ReportMeta) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# deferbench report\n\n")
	if meta.Partial != "" {
		fmt.Fprintf(b, "**%s**\n\n", results.PartialText(meta.Partial))
	}
	var rd *reportData
	if timedResults(rs) {
		rd = newReportData(rs, meta)
		reqs := foldPicks(rd.picks)
		writeBrief(b, rd, reqs)
		for _, f := range rd.flags {
			fmt.Fprintf(b, "%s\n\n", f)
		}
		fmt.Fprintf(b, "Per variant verdicts with their figures, the rankings with ratio CIs, every table of medians and the CPU attribution: "+
			"[details.md](details.md). How the verdicts are reached: %s.\n\n", rd.method)
		writePickFolded(b, reqs)
		writePickCounts(b, rd.cx, rd.ks)
		writeFindingsBrief(b, rd)
	}
	writeCounts(b, rs, meta)
	writeStrategies(b, rs)
	writeConfig(b, meta)
	var svgs []string
	for _, p := range svgPlots(meta.Plots) {
		svgs = append(svgs, fmt.Sprintf("[%s](%s)", strings.TrimSuffix(filepath.Base(p), ".svg"), p))
	}
	if len(svgs) > 0 {
		fmt.Fprintf(b, "## Plots\n\n%s (drawn in [details.md](details.md#plots)).\n\n", strings.Join(svgs, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeStrategies says in one line each what the run's strategies are, controls and
// references (noop, ecs, ark) included, in the strategy table's order; names not in the
// table (a bench.txt of another version) are left out.
func writeStrategies(b *strings.Builder, rs []*benchfmt.Result) {
	seen := map[string]bool{}
	for _, r := range rs {
		seen[results.ParseName(string(r.Name)).Strategy] = true
	}
	var lines []string
	for _, s := range suite.Strategies {
		if seen[s.Name] {
			lines = append(lines, fmt.Sprintf("- **%s**: %s", s.Name, s.Description))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(b, "## Strategies\n\n%s\n\n", strings.Join(lines, "\n"))
	}
}

// timedResults reports whether rs holds any result beside the count tier's.
func timedResults(rs []*benchfmt.Result) bool {
	for _, r := range rs {
		for _, v := range r.Values {
			if _, u := results.UnitValue(v); !counts.IsCountUnit(u) {
				return true
			}
		}
	}
	return false
}

// svgPlots is the SVG files of plots, each once, in order.
func svgPlots(plots []string) []string {
	var svgs []string
	linked := map[string]bool{}
	for _, p := range plots {
		p = filepath.ToSlash(p)
		if strings.HasSuffix(p, ".svg") && !linked[p] {
			linked[p] = true
			svgs = append(svgs, p)
		}
	}
	return svgs
}

// writeConfig writes the run's configuration and the measured share of other work.
func writeConfig(b *strings.Builder, meta ReportMeta) {
	fmt.Fprintf(b, "## Configuration\n\n")
	if len(meta.Config) > 0 {
		fmt.Fprintf(b, "| config | value |\n|---|---|\n")
		for _, c := range meta.Config {
			if results.IsCapabilityKey(c.Key) {
				continue // the strategies' declarations: "Which to pick" quotes them
			}
			fmt.Fprintf(b, "| %s | %s |\n", c.Key, strings.TrimSpace(c.Value)) // go test pads some cpu names
		}
		fmt.Fprintln(b)
	}
	if l := otherWorkLine(meta); l != "" {
		fmt.Fprintf(b, "%s\n\n", l)
	}
}

// DetailsTitle is how every details.md deferbench writes starts.
const DetailsTitle = "# deferbench report: details"

// WriteDetails writes details.md, what report.md leaves out: "Which to pick" per variant
// with its figures, the Findings (per headline metric the strategies ranked with ratio CIs,
// U tests and the group each is in), per scenario a table of the median (in human units: ns,
// µs, ms; B, KiB; k, M) ± the 95% confidence interval as % of the median of every
// sub-benchmark and strategy, a table per extra metric, the CPU attribution and the plots
// (each SVG drawn once). Rows name their GOMAXPROCS where a scenario ran at several (a name
// without a -N suffix ran at GOMAXPROCS=1); where all its rows share one, the scenario's
// heading names it.
func WriteDetails(w io.Writer, rs []*benchfmt.Result, meta ReportMeta) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "%s\n\n", DetailsTitle)
	if meta.Partial != "" {
		fmt.Fprintf(b, "**%s**\n\n", results.PartialText(meta.Partial))
	}
	timed := timedResults(rs)
	if !timed {
		fmt.Fprintf(b, "What [report.md](report.md) leaves out, from the same bench.txt.\n\n")
	}
	if timed {
		rd := newReportData(rs, meta)
		var names []string
		for _, f := range rd.flags {
			if name, _, ok := strings.Cut(strings.TrimPrefix(f, "**"), "**"); ok && strings.HasPrefix(f, "**") {
				names = append(names, name)
			}
		}
		trust := "none raised"
		if len(names) > 0 {
			trust = strings.Join(names, ", ")
		}
		fmt.Fprintf(b, "What [report.md](report.md) leaves out, from the same bench.txt. The run's trust flags, in full there: %s.\n\n", trust)
		writePickTable(b, rd.picks)
		writeFindingsDetails(b, rd)
		fmt.Fprintf(b, "## Tables\n\nMedians over the repetitions, ± the 95%% confidence interval as %% of the median "+
			"(golang.org/x/perf/benchmath); a median without ± is zero (no relative interval) or had too few repetitions for an interval (6 needed). "+
			"`benchstat -col /strategy bench.txt` gives the same with significance tests.\n\n")
	}

	var scenarios, strategies []string
	seen := map[string]bool{}
	type row struct {
		n results.Name
		v string // variant without GOMAXPROCS
	}
	rows := map[string][]row{}               // scenario → rows in order
	units := map[string][]string{}           // scenario → units in order
	procs := map[string]map[int]bool{}       // scenario → GOMAXPROCS values
	cells := map[[4]string]results.Summary{} // scenario, row key, strategy, unit
	rowKey := func(n results.Name) string { return n.Variant() + "\x00" + strconv.Itoa(n.Procs) }
	for _, s := range analysis.Summarize(rs) {
		if counts.IsCountUnit(s.Unit) {
			continue // the Counts section shows them, with their spread
		}
		n := results.ParseName(s.Name)
		if !seen["c"+n.Scenario] {
			seen["c"+n.Scenario] = true
			scenarios = append(scenarios, n.Scenario)
			procs[n.Scenario] = map[int]bool{}
		}
		if !seen["s"+n.Strategy] {
			seen["s"+n.Strategy] = true
			strategies = append(strategies, n.Strategy)
		}
		procs[n.Scenario][n.Procs] = true
		k := rowKey(n)
		if !seen["v"+n.Scenario+"\x00"+k] {
			seen["v"+n.Scenario+"\x00"+k] = true
			rows[n.Scenario] = append(rows[n.Scenario], row{n, n.Variant()})
		}
		if !seen["u"+n.Scenario+"\x00"+s.Unit] {
			seen["u"+n.Scenario+"\x00"+s.Unit] = true
			units[n.Scenario] = append(units[n.Scenario], s.Unit)
		}
		cells[[4]string{n.Scenario, k, n.Strategy, s.Unit}] = s
	}
	for _, sc := range scenarios {
		mixed := len(procs[sc]) > 1
		if mixed || suite.Lookup(sc).OwnProcs {
			fmt.Fprintf(b, "## %s\n\n", sc)
		} else {
			for p := range procs[sc] {
				fmt.Fprintf(b, "## %s (GOMAXPROCS=%d)\n\n", sc, p)
			}
		}
		if d := suite.Lookup(sc).Description; d != "" { // what one op is, per variant
			fmt.Fprintf(b, "What is measured: %s.\n\n", d)
		}
		for _, u := range units[sc] {
			var cols []string
			for _, st := range strategies {
				for _, r := range rows[sc] {
					if _, ok := cells[[4]string{sc, rowKey(r.n), st, u}]; ok {
						cols = append(cols, st)
						break
					}
				}
			}
			fmt.Fprintf(b, "| %s | %s |\n|---|%s\n", u, strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
			for _, r := range rows[sc] {
				label := r.v
				if mixed {
					label = strings.TrimSpace(label + " GOMAXPROCS=" + strconv.Itoa(r.n.Procs))
					if meta.Cores > 0 && r.n.Procs > meta.Cores {
						label += " (oversubscribed)"
					}
				}
				if label == "" {
					label = "(all)"
				}
				fmt.Fprintf(b, "| %s |", label)
				for _, st := range cols {
					s, ok := cells[[4]string{sc, rowKey(r.n), st, u}]
					if !ok {
						fmt.Fprintf(b, " |")
						continue
					}
					fmt.Fprintf(b, " %s |", reportCell(s))
				}
				fmt.Fprintln(b)
			}
			fmt.Fprintln(b)
		}
	}
	if len(meta.Attribution) > 0 {
		fmt.Fprintf(b, "## CPU attribution (from the -profile runs)\n\n| strategy | cpu-s |")
		for _, c := range results.AttributionCategories {
			fmt.Fprintf(b, " %s |", c)
		}
		fmt.Fprintf(b, "\n|---|---:|%s\n", strings.Repeat("---:|", len(results.AttributionCategories)))
		for _, a := range meta.Attribution {
			fmt.Fprintf(b, "| %s | %.2f |", a.Strategy, a.CPU)
			for _, c := range results.AttributionCategories {
				fmt.Fprintf(b, " %.1f%% |", 100*a.Share[c])
			}
			fmt.Fprintln(b)
		}
		fmt.Fprintln(b)
	}
	if svgs := svgPlots(meta.Plots); len(svgs) > 0 {
		fmt.Fprintf(b, "## Plots\n\n")
		for _, p := range svgs {
			fmt.Fprintf(b, "![%s](%s)\n\n", strings.TrimSuffix(filepath.Base(p), ".svg"), p)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
