package harness

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// ReportMeta is what report.md says about the run besides the results.
type ReportMeta struct {
	Config      []Config      // bench.txt's file-level configuration
	Throttled   string        // "yes", "no" or "unknown": did the firmware throttle during the run
	Partial     string        // why the run is incomplete (the PartialKey config value), "" when complete
	Attribution []Attribution // per strategy, with -profile
	Plots       []string      // plot files, relative to the report's directory
	// Cores is the run's NumCPU (env.json); 0 when unknown.
	Cores int
	// LoadBefore is the load average before the run ("1.2 0.8 0.5"); "" when unknown. It
	// decides the Loaded flag only when OtherWork is nil. The load average after a run is
	// not used: it counts the run's own threads (up to 2×NumCPU busy goroutines), so it is
	// above NumCPU on an idle machine.
	LoadBefore string
	// OtherWork is the measured share of the machine's CPU time that other work took
	// during the run; nil when not measured (no /proc/stat, or an env.json written by an
	// older deferbench).
	OtherWork *OtherWork
}

// OtherWork is how much of the machine's CPU time work other than the run took while it
// ran, measured from the machine's busy time less the run's own CPU time (Linux
// /proc/stat and /proc/self/stat). Shares are fractions (0 to 1) of all CPUs' time.
type OtherWork struct {
	CPUs    int     // the machine's CPUs
	Seconds float64 // the run's wall time in seconds; 0 when unknown
	Other   float64 // other processes, kernel threads and interrupts
	Steal   float64 // time the hypervisor gave the CPUs to other guests (steal)
}

// LoadedAbove is the share of the machine's CPU time (other work plus steal) above which
// report.md flags a run as Loaded: 0.10, a tenth of all CPUs' time.
const LoadedAbove = 0.10

// WriteReport writes report.md: the run's configuration, then per scenario a table of the
// median (in human units: ns, µs, ms; B, KiB; k, M) ± the 95% confidence interval as % of
// the median of every sub-benchmark and strategy, a table per extra metric, the CPU
// attribution and the plots (each SVG linked once). Rows name their GOMAXPROCS where a
// scenario ran at several (a name without a -N suffix ran at GOMAXPROCS=1); where all its
// rows share one, the scenario's heading names it.
func WriteReport(w io.Writer, results []*benchfmt.Result, meta ReportMeta) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# deferbench report\n\n")
	if meta.Partial != "" {
		fmt.Fprintf(b, "**%s**\n\n", PartialText(meta.Partial))
	}
	writeFindings(b, results, meta)
	fmt.Fprintf(b, "## Configuration\n\n")
	if len(meta.Config) > 0 {
		fmt.Fprintf(b, "| config | value |\n|---|---|\n")
		for _, c := range meta.Config {
			fmt.Fprintf(b, "| %s | %s |\n", c.Key, c.Value)
		}
		fmt.Fprintln(b)
	}
	if l := otherWorkLine(meta.OtherWork); l != "" {
		fmt.Fprintf(b, "%s\n\n", l)
	}
	fmt.Fprintf(b, "Medians over the repetitions, ± the 95%% confidence interval as %% of the median "+
		"(golang.org/x/perf/benchmath); a median without ± is zero (no relative interval) or had too few repetitions for an interval (6 needed). "+
		"`benchstat -col /strategy bench.txt` gives the same with significance tests.\n\n")

	var scenarios, strategies []string
	seen := map[string]bool{}
	type row struct {
		n parsedName
		v string // variant without GOMAXPROCS
	}
	rows := map[string][]row{}         // scenario → rows in order
	units := map[string][]string{}     // scenario → units in order
	procs := map[string]map[int]bool{} // scenario → GOMAXPROCS values
	cells := map[[4]string]Summary{}   // scenario, row key, strategy, unit
	rowKey := func(n parsedName) string { return n.variantNoProcs() + "\x00" + strconv.Itoa(n.procs) }
	for _, s := range Summarize(results) {
		n := parseName(s.Name)
		if !seen["c"+n.scenario] {
			seen["c"+n.scenario] = true
			scenarios = append(scenarios, n.scenario)
			procs[n.scenario] = map[int]bool{}
		}
		if !seen["s"+n.strategy] {
			seen["s"+n.strategy] = true
			strategies = append(strategies, n.strategy)
		}
		procs[n.scenario][n.procs] = true
		k := rowKey(n)
		if !seen["v"+n.scenario+"\x00"+k] {
			seen["v"+n.scenario+"\x00"+k] = true
			rows[n.scenario] = append(rows[n.scenario], row{n, n.variantNoProcs()})
		}
		if !seen["u"+n.scenario+"\x00"+s.Unit] {
			seen["u"+n.scenario+"\x00"+s.Unit] = true
			units[n.scenario] = append(units[n.scenario], s.Unit)
		}
		cells[[4]string{n.scenario, k, n.strategy, s.Unit}] = s
	}
	for _, sc := range scenarios {
		mixed := len(procs[sc]) > 1
		if mixed || scenarioDef(sc).OwnProcs {
			fmt.Fprintf(b, "## %s\n\n", sc)
		} else {
			for p := range procs[sc] {
				fmt.Fprintf(b, "## %s (GOMAXPROCS=%d)\n\n", sc, p)
			}
		}
		if d := scenarioDef(sc).Description; d != "" { // what one op is, per variant
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
					label = strings.TrimSpace(label + " GOMAXPROCS=" + strconv.Itoa(r.n.procs))
					if meta.Cores > 0 && r.n.procs > meta.Cores {
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
	linked := map[string]bool{}
	for _, p := range meta.Plots {
		p = filepath.ToSlash(p)
		if strings.HasSuffix(p, ".svg") && !linked[p] {
			linked[p] = true
			svgs = append(svgs, p)
		}
	}
	if len(svgs) > 0 {
		fmt.Fprintf(b, "## Plots\n\n")
		for _, p := range svgs {
			fmt.Fprintf(b, "![%s](%s)\n\n", strings.TrimSuffix(filepath.Base(p), ".svg"), p)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reportCell is a table cell: the median in human units ± its CI as % of the median.
func reportCell(s Summary) string {
	m := FormatValue(s.Median, s.Unit)
	if s.NoCI || s.Median == 0 {
		return m
	}
	return m + " " + ciPercent(s)
}

// ciPercent is the 95% CI as ± % of the median: "±3%", "±0.4%", "±>100%" when the interval
// is wider than the median itself.
func ciPercent(s Summary) string {
	pct := 100 * math.Max(s.Median-s.Lo, s.Hi-s.Median) / math.Abs(s.Median)
	switch {
	case pct > 100:
		return "±>100%"
	case pct < 1:
		return fmt.Sprintf("±%.1f%%", pct)
	}
	return fmt.Sprintf("±%.0f%%", pct)
}

var legacyPartial = regexp.MustCompile(`^(\d+) of (\d+)(?: benchmarks)?:?\s*(.*)$`)

// PartialText turns the value of bench.txt's PartialKey config into one short line:
// "partial: 3 of 315 benchmarks finished (interrupted)". It takes the value as it is ("3 of
// 315 benchmarks finished (interrupted)") and rewrites the older form "true (3 of 315
// benchmarks: interrupted)".
func PartialText(v string) string {
	v = strings.TrimSpace(v)
	if rest, ok := strings.CutPrefix(v, "true"); ok {
		v = strings.TrimSpace(rest)
		if strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") {
			v = v[1 : len(v)-1]
		}
	}
	if v == "" {
		return "partial"
	}
	if m := legacyPartial.FindStringSubmatch(v); m != nil && !strings.Contains(v, "finished") {
		v = m[1] + " of " + m[2] + " benchmarks finished"
		if m[3] != "" {
			v += " (" + m[3] + ")"
		}
	}
	return "partial: " + v
}

// FormatValue formats v, measured in unit, with three significant digits in human units:
// times (ns/op, *-ns, sec/op) as ns, µs, ms or s ("92.7 µs"); bytes (B/op, *-B/*) as B, KiB,
// MiB, GiB; efficiency as a plain number; other rates and counts with SI prefixes k, M, G
// ("50M").
func FormatValue(v float64, unit string) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprint(v)
	case unitIsTime(unit):
		if unit == "sec/op" {
			v *= 1e9
		}
		return scaled(v, 1000, []string{" ns", " µs", " ms", " s"})
	case unitIsBytes(unit):
		return scaled(v, 1024, []string{" B", " KiB", " MiB", " GiB", " TiB"})
	case unit == "efficiency":
		return sig3(v, false)
	}
	return scaled(v, 1000, []string{"", "k", "M", "G", "T"})
}

func unitIsTime(u string) bool {
	return u == "ns/op" || u == "sec/op" || strings.HasSuffix(u, "-ns") || strings.HasPrefix(u, "ns/")
}

func unitIsBytes(u string) bool { return strings.HasPrefix(u, "B/") || strings.Contains(u, "-B/") }

// scaled divides v by step until it is below step (or the suffixes run out) and formats it
// with three significant digits and the suffix.
func scaled(v, step float64, suffixes []string) string {
	i := 0
	for i < len(suffixes)-1 && math.Abs(v) >= step {
		v /= step
		i++
	}
	s := sig3(v, true)
	if i < len(suffixes)-1 && math.Abs(mustParse(s)) >= step { // rounded up to the next suffix
		v /= step
		i++
	}
	if i > 0 {
		s = sig3(v, false)
	}
	return s + suffixes[i]
}

func mustParse(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// sig3 formats v with three significant digits without an exponent for |v| ≥ 1e-9
// (92.7, 1.20, 0.250), at least 100 as an integer, and, when ints, a value that rounds to
// an integer as that integer (48.0002 → "48", not "48.0").
func sig3(v float64, ints bool) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a < 1e-9 || a >= 1e6: // beyond the suffixes: 5e+299 s, not 300 digits
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 100 || (ints && v == math.Trunc(v)):
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	d := 2 - int(math.Floor(math.Log10(a)))
	s := strconv.FormatFloat(v, 'f', d, 64)
	if r := mustParse(s); ints && r == math.Trunc(r) { // 48.0002 B/op → "48"
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	if d > 0 && strings.Contains(s, ".") { // 9.996 → "10.00": keep three digits
		if r := mustParse(s); math.Abs(r) >= math.Pow(10, float64(3-d)) {
			s = strconv.FormatFloat(v, 'f', d-1, 64)
		}
	}
	return s
}
