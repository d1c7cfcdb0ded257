package harness

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// ReportMeta is what report.md says about the run besides the results.
type ReportMeta struct {
	Config      []Config      // bench.txt's file-level configuration
	Throttled   string        // "yes", "no" or "unknown": did the firmware throttle during the run
	Partial     string        // why the run is incomplete, "" when complete
	Attribution []Attribution // per strategy, with -profile
	Plots       []string      // plot files, relative to the report's directory
}

// WriteReport writes report.md: the run's configuration, then per scenario a table of the
// median ns/op (± the 95% confidence interval as % of the median) of every sub-benchmark and
// strategy, a table per extra metric, the CPU attribution and the plots.
func WriteReport(w io.Writer, results []*benchfmt.Result, meta ReportMeta) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# deferbench report\n\n")
	if meta.Partial != "" {
		fmt.Fprintf(b, "**Partial run**: %s.\n\n", meta.Partial)
	}
	if meta.Throttled == "yes" {
		fmt.Fprintf(b, "**Throttled**: the firmware throttled the CPU during this run; its timings are not comparable.\n\n")
	}
	fmt.Fprintf(b, "| config | value |\n|---|---|\n")
	for _, c := range meta.Config {
		fmt.Fprintf(b, "| %s | %s |\n", c.Key, c.Value)
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "Medians over the repetitions, ± the 95%% confidence interval as %% of the median "+
		"(golang.org/x/perf/benchmath). `benchstat -col /strategy bench.txt` gives the same with significance tests.\n\n")

	var scenarios, strategies []string
	seen := map[string]bool{}
	rows := map[string][]string{}    // scenario → variants in order
	units := map[string][]string{}   // scenario → units in order
	cells := map[[4]string]Summary{} // scenario, variant, strategy, unit
	for _, s := range Summarize(results) {
		n := parseName(s.Name)
		if !seen["c"+n.scenario] {
			seen["c"+n.scenario] = true
			scenarios = append(scenarios, n.scenario)
		}
		if !seen["s"+n.strategy] {
			seen["s"+n.strategy] = true
			strategies = append(strategies, n.strategy)
		}
		v := n.variant()
		if !seen["v"+n.scenario+"\x00"+v] {
			seen["v"+n.scenario+"\x00"+v] = true
			rows[n.scenario] = append(rows[n.scenario], v)
		}
		if !seen["u"+n.scenario+"\x00"+s.Unit] {
			seen["u"+n.scenario+"\x00"+s.Unit] = true
			units[n.scenario] = append(units[n.scenario], s.Unit)
		}
		cells[[4]string{n.scenario, v, n.strategy, s.Unit}] = s
	}
	for _, sc := range scenarios {
		fmt.Fprintf(b, "## %s\n\n", sc)
		for _, u := range units[sc] {
			var cols []string
			for _, st := range strategies {
				for _, v := range rows[sc] {
					if _, ok := cells[[4]string{sc, v, st, u}]; ok {
						cols = append(cols, st)
						break
					}
				}
			}
			fmt.Fprintf(b, "| %s | %s |\n|---|%s\n", u, strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
			for _, v := range rows[sc] {
				label := v
				if label == "" {
					label = "(all)"
				}
				fmt.Fprintf(b, "| %s |", label)
				for _, st := range cols {
					s, ok := cells[[4]string{sc, v, st, u}]
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
		for _, c := range AttributionCategories {
			fmt.Fprintf(b, " %s |", c)
		}
		fmt.Fprintf(b, "\n|---|---:|%s\n", strings.Repeat("---:|", len(AttributionCategories)))
		for _, a := range meta.Attribution {
			fmt.Fprintf(b, "| %s | %.2f |", a.Strategy, a.CPU)
			for _, c := range AttributionCategories {
				fmt.Fprintf(b, " %.1f%% |", 100*a.Share[c])
			}
			fmt.Fprintln(b)
		}
		fmt.Fprintln(b)
	}
	var svgs []string
	for _, p := range meta.Plots {
		if strings.HasSuffix(p, ".svg") {
			svgs = append(svgs, p)
		}
	}
	if len(svgs) > 0 {
		fmt.Fprintf(b, "## Plots\n\n")
		for _, p := range svgs {
			fmt.Fprintf(b, "![%s](%s)\n\n", strings.TrimSuffix(filepath.Base(p), ".svg"), filepath.ToSlash(p))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func reportCell(s Summary) string {
	if s.Median == 0 {
		return "0"
	}
	pct := 100 * math.Max(s.Median-s.Lo, s.Hi-s.Median) / math.Abs(s.Median)
	if s.NoCI {
		return fmt.Sprintf("%.4g", s.Median)
	}
	return fmt.Sprintf("%.4g ±%.0f%%", s.Median, pct)
}
