package render

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
)

// loadedFlag is the Loaded trust flag, "" when the run is not flagged: by the measured share
// of other work (and steal) when meta has it, above [LoadedAbove]; else by a 1-minute load
// average above the cores before the run. The load average after the run is never used: it
// counts the run's own threads.
func loadedFlag(meta ReportMeta, cores int) string {
	if ow := meta.OtherWork; ow != nil {
		if ow.Other+ow.Steal <= LoadedAbove {
			return ""
		}
		// Whole percents, the total the sum of its shown parts.
		other, steal := math.Round(100*ow.Other), math.Round(100*ow.Steal)
		what := fmt.Sprintf("other processes used %.0f%% of %s during the run", other, cpuTime(ow.CPUs))
		if steal > 0 {
			what = fmt.Sprintf("other work took %.0f%% of %s during the run: other processes %.0f%%, and the hypervisor %.0f%% as steal",
				other+steal, cpuTime(ow.CPUs), other, steal)
		}
		return fmt.Sprintf("**Loaded**: %s (the machine's busy time less this run's own CPU time; flagged above %s): "+
			"the timings carry that work's noise. Repeat on a quiet machine.", what, pct0(LoadedAbove))
	}
	if f := strings.Fields(meta.LoadBefore); len(f) > 0 && cores > 0 {
		if x, err := strconv.ParseFloat(f[0], 64); err == nil && x > float64(cores) {
			why := meta.NoOtherWork
			switch {
			case strings.Contains(meta.Partial, "killed"): // no second capture to measure against
				why = "the run was killed before its closing capture"
			case why == "":
				why = "no /proc/stat, or an env.json of an older deferbench"
			}
			return fmt.Sprintf("**Loaded**: the 1-minute load average before the run was %s, above the %d cores: other work was running as it started, "+
				"and the timings may carry its noise (the CPU time other work took during the run was not measured: %s).", f[0], cores, why)
		}
	}
	return ""
}

// otherWorkLine is report.md's sentence on the measured share of other work; "" when not
// measured.
func otherWorkLine(meta ReportMeta) string {
	ow := meta.OtherWork
	if ow == nil {
		if meta.NoOtherWork == "" {
			return ""
		}
		return fmt.Sprintf("Other work during the run: not measured (%s).", meta.NoOtherWork)
	}
	during := "during the run"
	if ow.Seconds > 0 {
		during = fmt.Sprintf("during the run (%s)", time.Duration(ow.Seconds*float64(time.Second)).Round(time.Second))
	}
	other, steal := math.Round(100*ow.Other), math.Round(100*ow.Steal)
	return fmt.Sprintf("Other work %s: %.0f%% of %s, of which steal %.0f%% (the machine's busy time less this run's own CPU time; the Loaded flag is raised above %s).",
		during, other+steal, cpuTime(ow.CPUs), steal, pct0(LoadedAbove))
}

func pct0(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// cpuTime names the CPU time of n CPUs: "the 2 CPUs' time".
func cpuTime(n int) string {
	switch {
	case n == 1:
		return "the 1 CPU's time"
	case n < 1:
		return "the machine's CPU time"
	}
	return fmt.Sprintf("the %d CPUs' time", n)
}

// trustFlags are the report's first lines: reasons not to trust this run's timings.
func trustFlags(d *analysis.Run, meta ReportMeta, ks []analysis.Ranking, cores int, coresFrom string) []string {
	var flags []string
	cfg := map[string]string{}
	for _, c := range meta.Config {
		cfg[c.Key] = c.Value
	}
	if cfg["emulated"] == "yes" {
		flags = append(flags, fmt.Sprintf("**Emulated**: this %s binary ran under a user-mode emulator (qemu-user) on a %s host; "+
			"its timings say nothing about any real %s CPU and must not be compared. Run it on the board.", cfg["goarch"], orDash(cfg["cpu"]), cfg["goarch"]))
	}
	if meta.Throttled == "yes" {
		flags = append(flags, "**Throttled**: the firmware throttled the CPU during this run; its timings are not comparable.")
	}
	if f := loadedFlag(meta, cores); f != "" {
		flags = append(flags, f)
	} else if meta.OtherWork == nil && meta.LoadBefore == "" && meta.NoOtherWork != "" && len(ks) > 0 {
		flags = append(flags, fmt.Sprintf("**Load unknown**: neither the CPU time other work took during the run nor the load before it was recorded (%s): "+
			"the timings may carry other work's noise unseen, so no timed verdict reads firm. deferbench run records both in env.json.", meta.NoOtherWork))
	}
	var noisy []string
	worst, worstAt := 0.0, ""
	for _, k := range ks {
		for _, r := range k.Ranked {
			if r.Summary.Median == 0 {
				continue
			}
			h := analysis.Half(r.Summary.Median, r.Summary.Lo, r.Summary.Hi)
			if r.Summary.NoCI {
				continue
			}
			if h > 0.10 {
				at := fmt.Sprintf("%s %s %s", r.Strategy, rowLabel(k), k.Headline.Unit)
				noisy = append(noisy, at)
				if h > worst {
					worst, worstAt = h, at
				}
			}
		}
	}
	if len(noisy) > 0 {
		ex := noisy
		if len(ex) > 3 {
			ex = ex[:3]
		}
		// The widest one is named: the tables print any CI above ±100% as ±>100%, so
		// without its name the figure could not be found in the report.
		flags = append(flags, fmt.Sprintf("**Noisy**: %d headline medians have a 95%% CI wider than ±10%% (up to ±%.0f%%, %s; e.g. %s): "+
			"repeat on a quiet machine, or raise -count.", len(noisy), 100*worst, worstAt, strings.Join(ex, "; ")))
	}
	if f := ceilingFlag(d, cores); f != "" {
		flags = append(flags, f)
	}
	if best, st, p, procs := d.EfficiencyMax(cores); best > analysis.EfficiencyMaxOK {
		flags = append(flags, fmt.Sprintf("**Efficiency above 1**: %s at producers = %d, GOMAXPROCS = %d reads efficiency %s, "+
			"above the ideal 1 (throughput(P) / (min(P, GOMAXPROCS) × throughput(1))): the single-producer reference rounds "+
			"beside its rounds ran slower than the rounds they are the reference of (the machine took the CPU from them, "+
			"or too few rounds), so this run's efficiency figures are not to be trusted; compare cmds/s, or repeat on a quiet machine without -quick.",
			st, p, procs, results.Sig3(best, false)))
	}
	if noCI := analysis.CountNoCI(ks); noCI > 0 {
		flags = append(flags, fmt.Sprintf("**Too few repetitions**: %d headline medians have no confidence interval (6 repetitions needed); "+
			"rankings from this run are not tested for significance. Raise -count.", noCI))
	}
	var over []string
	seenP := map[int]bool{}
	for p := range d.ProcsSeen {
		if cores > 0 && p > cores && !seenP[p] {
			seenP[p] = true
			over = append(over, strconv.Itoa(p))
		}
	}
	if len(over) > 0 {
		sort.Slice(over, func(i, j int) bool { a, _ := strconv.Atoi(over[i]); b, _ := strconv.Atoi(over[j]); return a < b })
		flags = append(flags, fmt.Sprintf("**Oversubscribed**: rows at GOMAXPROCS=%s exceed NumCPU=%d: they measure goroutines "+
			"time-sharing cores, not scaling (labelled \"oversubscribed\" in the tables and plots).", strings.Join(over, ","), cores))
	}
	if strings.HasPrefix(coresFrom, "guessed") && len(over) == 0 {
		flags = append(flags, fmt.Sprintf("NumCPU is %s: %d.", coresFrom, cores))
	}
	return flags
}

// ceilingFlag is the trust flag for a run whose Contention noop control (producers that touch
// no memory) falls below CeilingMin efficiency at P = GOMAXPROCS ≤ NumCPU (P > 1; at P = 1
// efficiency is 1 by definition); "" when it reaches it everywhere or did not run.
func ceilingFlag(d *analysis.Run, cores int) string {
	worst, at := d.Ceiling(cores)
	if !(worst < analysis.CeilingMin) {
		return ""
	}
	return fmt.Sprintf("**Contention ceiling**: the noop control (producers that touch no memory) reached efficiency %s at "+
		"producers = GOMAXPROCS = %d (NumCPU %d), below %.2g: the machine or the harness, not the strategies, capped this run's "+
		"parallelism, so its Contention figures (efficiency and cmds/s) measure the machine. Repeat on an idle machine with real cores.",
		results.Sig3(worst, false), at, cores, analysis.CeilingMin)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// rowLabel names a ranking's row: "Stage cmd=typed".
func rowLabel(k analysis.Ranking) string {
	s := k.Row.Scenario
	if k.Row.Variant != "" {
		s += " " + k.Row.Variant
	}
	return s
}

// reportData is what report.md and details.md are both computed from.
type reportData struct {
	d         *analysis.Run
	cores     int
	coresFrom string
	ks        []analysis.Ranking
	flags     []string // the trust flags, in full
	picks     []verdictRow
	cx        analysis.CountIndex
	method    string // methodLink of the report
}

func newReportData(rs []*benchfmt.Result, meta ReportMeta) *reportData {
	d := analysis.NewRun(rs)
	cores, coresFrom := d.Cores(meta.Cores)
	ks := d.Rankings(cores)
	caveats := map[string]string{}
	if worst, at := d.Ceiling(cores); worst < analysis.CeilingMin {
		caveats["Contention"] = fmt.Sprintf("the noop control reached only %s efficiency at producers = GOMAXPROCS = %d: "+
			"these figures measure the machine (Contention ceiling)", results.Sig3(worst, false), at)
	}
	return &reportData{d: d, cores: cores, coresFrom: coresFrom, ks: ks, method: methodLink(meta),
		flags: trustFlags(d, meta, ks, cores, coresFrom),
		picks: verdictRows(ks, analysis.Capabilities(rs), caveats),
		cx:    analysis.NewCountIndex(rs)}
}

// methodLink points at the text that says how the rankings and verdicts are reached: a link
// to meta.MethodDoc where the report's directory lies in a deferbench checkout, else the
// file's name in deferbench's source, unlinked (a relative link would point nowhere).
func methodLink(meta ReportMeta) string {
	if meta.MethodDoc == "" {
		return "docs/method.md of deferbench's source, section \"How the report ranks and decides\""
	}
	return "[docs/method.md](" + filepath.ToSlash(meta.MethodDoc) + "#how-the-report-ranks-and-decides)"
}

// ratioLine is this run's use of paired and unpaired ratios, in one sentence.
func ratioLine(ks []analysis.Ranking) string {
	np, nu, pw, uw := analysis.RatioMethods(ks)
	head := fmt.Sprintf("This run: %d ratios paired, %d unpaired", np, nu)
	if math.IsNaN(pw) || math.IsNaN(uw) {
		// No ratio has both intervals (fewer than 6 repetitions leave ratios without one):
		// there are no widths to set side by side.
		return head + "; no ratio has both a paired and an unpaired 95% CI to compare their widths (that takes 6 repetitions or more)."
	}
	return fmt.Sprintf("%s; median CI half-width ±%.1f%% paired against ±%.1f%% unpaired over the same ratios.", head, 100*pw, 100*uw)
}

// writeFindingsDetails writes details.md's Findings: per headline metric the ranking with
// ratio CIs, the group each strategy is in and why, the storage and count notes.
func writeFindingsDetails(b *strings.Builder, rd *reportData) {
	fmt.Fprintf(b, "## Findings\n\n")
	fmt.Fprintf(b, "Per headline metric the strategies ranked best first by their median; `≈` joins strategies noise cannot separate "+
		"(their order within a group is noise), `?` those the test could not judge; the group column says which comparison placed each. "+
		"× best and × baseline are ratios of medians with a 95%% CI, paired per repetition or unpaired (Hodges-Lehmann) as the line under each heading says. "+
		"How the groups are formed: %s. %s\n\n", rd.method, ratioLine(rd.ks))
	var vs []storageVerdict
	for _, k := range rd.ks {
		names, undecided := bestGroup(k)
		vs = append(vs, newStorageVerdict(k, names, undecided))
	}
	byStorage := storageVerdicts(vs)
	for i, k := range rd.ks {
		writeRanking(b, k, rd.cores)
		if note := byStorage.note(vs[i]); note != "" {
			fmt.Fprintf(b, "Storage: %s.\n\n", note)
		}
		writeCountNote(b, rd.cx, k)
		for j := range k.Against {
			fmt.Fprintf(b, "Against %s: %s.\n\n", againstHead(k, j), againstText(k, j, rd.cx))
		}
	}
}

// writeFindingsBrief writes report.md's Findings: one line per headline metric, its groups
// best first, the members of each group by name (noise cannot order them).
func writeFindingsBrief(b *strings.Builder, rd *reportData) {
	if len(rd.ks) == 0 {
		return
	}
	fmt.Fprintf(b, "## Findings\n\n")
	fmt.Fprintf(b, "Per headline metric, groups of strategies best first; `≈` joins those noise cannot separate, listed by name; "+
		"`?` marks where too few repetitions left the test without a verdict. Medians, ratios and the comparison behind each group: "+
		"[details.md](details.md#findings); the method: %s.\n\n", rd.method)
	for _, k := range rd.ks {
		better := "lower is better"
		if k.Headline.Higher {
			better = "higher is better"
		}
		fmt.Fprintf(b, "- %s, %s (%s): %s\n", rowLabel(k), k.Headline.Unit, better, groupTextByName(k))
		for j := range k.Against {
			fmt.Fprintf(b, "  - against %s: %s\n", againstHead(k, j), againstText(k, j, rd.cx))
		}
	}
	fmt.Fprintln(b)
}

// groupText is "**a ≈ b**, then c, then d ≈ e": groups best first (Groups); "?" joins
// strategies the U test could not judge (too few repetitions).
func groupText(k analysis.Ranking) string { return groupTextOrder(k, false) }

// groupTextByName is groupText with each group's members by name.
func groupTextByName(k analysis.Ranking) string { return groupTextOrder(k, true) }

func groupTextOrder(k analysis.Ranking, byName bool) string {
	g := k.Split()
	// The first group is bold as the best only where a test separated it from the next: a
	// "?" after it (too few repetitions) leaves its order to the medians alone, which a
	// reader must not take for a pick.
	bold := len(g.Groups) < 2 || !g.Untested[0]
	var b strings.Builder
	for gi, grp := range g.Groups {
		if byName {
			grp = slices.Clone(grp)
			slices.SortStableFunc(grp, func(x, y int) int {
				// The unranked stay after the ranked ones.
				if ux, uy := k.Ranked[x].Unranked != "", k.Ranked[y].Unranked != ""; ux != uy {
					if ux {
						return 1
					}
					return -1
				}
				return strings.Compare(k.Ranked[x].Strategy, k.Ranked[y].Strategy)
			})
		}
		if gi > 0 {
			switch {
			case k.Ranked[grp[0]].Unranked != "":
				fmt.Fprintf(&b, "; not ranked (under a tenth of the best %s): ", k.Headline.Within)
			case g.Untested[gi-1]:
				b.WriteString(" ? ")
			default:
				b.WriteString(", then ")
			}
		}
		if gi == 0 && bold {
			b.WriteString("**")
		}
		for n, i := range grp {
			switch {
			case n > 0 && k.Ranked[i].Unranked != "":
				b.WriteString(", ")
			case n > 0:
				b.WriteString(" ≈ ")
			}
			b.WriteString(k.Ranked[i].Strategy)
		}
		if gi == 0 && bold {
			b.WriteString("**")
		}
	}
	return b.String()
}

func writeRanking(b *strings.Builder, k analysis.Ranking, cores int) {
	better := "lower is better"
	if k.Headline.Higher {
		better = "higher is better"
	}
	procs := fmt.Sprintf("GOMAXPROCS=%d", k.Row.Procs)
	if suite.Lookup(k.Row.Scenario).OwnProcs {
		procs = "GOMAXPROCS set by the scenario"
	} else if cores > 0 && k.Row.Procs > cores {
		procs += ", oversubscribed"
	}
	fmt.Fprintf(b, "### %s: %s (%s; %s)\n\n", rowLabel(k), k.Headline.Unit, procs, better)
	fmt.Fprintf(b, "%s. Ratios %s.\n\n", groupText(k), k.Method)
	hasBase := k.Baseline != nil
	fmt.Fprintf(b, "| strategy | median | × best (95%% CI) |")
	if hasBase {
		fmt.Fprintf(b, " × baseline (95%% CI) |")
	}
	fmt.Fprintf(b, " group |\n|---|---:|---:|%s---|\n", map[bool]string{true: "---:|"}[hasBase])
	cell := func(r analysis.Ratio, ok bool) string {
		if !ok {
			return "—"
		}
		s := r.Text()
		if r.Method != k.Method && r.Method != "identity" {
			s += " (" + r.Method + ")"
		}
		return s
	}
	g := k.Split()
	for i, r := range k.Ranked {
		fmt.Fprintf(b, "| %s | %s | %s |", r.Strategy, reportCell(withUnit(r.Summary, k.Headline.Unit)), cell(r.VsBest, r.HasBest))
		if hasBase {
			fmt.Fprintf(b, " %s |", cell(r.VsBaseline, r.HasBaseline))
		}
		fmt.Fprintf(b, " %s |\n", mdEscape(g.Why[i]))
	}
	if hasBase {
		fmt.Fprintf(b, "| *baseline* | %s | | | |\n", reportCell(withUnit(*k.Baseline, k.Headline.Unit)))
	}
	fmt.Fprintln(b)
}

func withUnit(s results.Summary, u string) results.Summary { s.Unit = u; return s }

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// addWhy adds "strategy: why" to whys, joining strategies with the same why.
func addWhy(whys []string, strategy, why string) []string {
	for i, w := range whys {
		if names, rest, ok := strings.Cut(w, ": "); ok && rest == why {
			whys[i] = names + ", " + strategy + ": " + why
			return whys
		}
	}
	return append(whys, strategy+": "+why)
}

// reportCell is a table cell: the median in human units ± its CI as % of the median.
func reportCell(s results.Summary) string {
	m := results.FormatValue(s.Median, s.Unit)
	if s.NoCI || s.Median == 0 {
		return m
	}
	return m + " " + ciPercent(s)
}

// ciPercent is the 95% CI as ± % of the median: "±3%", "±0.4%", "±>100%" when the interval
// is wider than the median itself.
func ciPercent(s results.Summary) string {
	pct := 100 * math.Max(s.Median-s.Lo, s.Hi-s.Median) / math.Abs(s.Median)
	switch {
	case pct > 100:
		return "±>100%"
	case pct < 1:
		return fmt.Sprintf("±%.1f%%", pct)
	}
	return fmt.Sprintf("±%.0f%%", pct)
}
