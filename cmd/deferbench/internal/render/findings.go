package render

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/deferral"
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
			why := "no /proc/stat, or an env.json of an older deferbench"
			if strings.Contains(meta.Partial, "killed") { // no second capture to measure against
				why = "the run was killed before its closing capture"
			}
			return fmt.Sprintf("**Loaded**: the 1-minute load average before the run was %s, above the %d cores: other work was running as it started, "+
				"and the timings may carry its noise (the CPU time other work took during the run was not measured: %s).", f[0], cores, why)
		}
	}
	return ""
}

// otherWorkLine is report.md's sentence on the measured share of other work; "" when not
// measured.
func otherWorkLine(ow *OtherWork) string {
	if ow == nil {
		return ""
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

// writeFindings writes the trust flags, "Which to pick" and the rankings.
func writeFindings(b *strings.Builder, rs []*benchfmt.Result, meta ReportMeta) {
	d := analysis.NewRun(rs)
	cores, coresFrom := d.Cores(meta.Cores)
	ks := d.Rankings(cores)
	for _, f := range trustFlags(d, meta, ks, cores, coresFrom) {
		fmt.Fprintf(b, "%s\n\n", f)
	}
	traits := analysis.Capabilities(rs)
	caveats := map[string]string{}
	if worst, at := d.Ceiling(cores); worst < analysis.CeilingMin {
		caveats["Contention"] = fmt.Sprintf("the noop control reached only %s efficiency at producers = GOMAXPROCS = %d: "+
			"these figures measure the machine (Contention ceiling)", results.Sig3(worst, false), at)
	}
	writePick(b, ks, traits, caveats)
	cx := analysis.NewCountIndex(rs)
	writePickCounts(b, cx, ks)

	fmt.Fprintf(b, "## Findings\n\n")
	np, nu, pw, uw := analysis.RatioMethods(ks)
	fmt.Fprintf(b, "Computed from this run's bench.txt alone. Per headline metric the strategies are ranked best first by their median; "+
		"`≈` joins strategies that noise cannot separate, so their order within a group is noise. Two strategies are separated only when two kinds of evidence agree: "+
		"the 95%% CI of their ratio excludes 1, and a test at alpha %.2g says so too (the Mann-Whitney U test, golang.org/x/perf/benchmath; or, for ratios formed per repetition, the Wilcoxon signed-rank test on them); "+
		"a test whose ratio interval holds 1 leaves them together, and the group column says so. A difference within the unit's tolerance (1 B per anything, 0.01 allocs/op) never separates; "+
		"a count whose samples do not vary is compared exactly, the rule compare uses. "+
		"A strategy separable from any member of the current group starts a new one (inseparable neighbours never chain a fast strategy and a slow one into a group). "+
		"The group column says which comparison placed each strategy. "+
		"`?` joins strategies the test could not judge (too few repetitions), which are not ranked. "+
		"× best and × baseline are the ratio of the strategy's median to the best strategy's and to baseline's (so they follow the ranking), with a 95%% CI of the ratio. "+
		"The runner interleaves repetitions (repetition i of every strategy runs back to back before repetition i+1), so a ratio can be formed per repetition: "+
		"*paired* takes the CI of those per-repetition ratios; *unpaired* (Hodges-Lehmann) takes the interval over all cross ratios that inverts the U test; either is widened to hold the ratio of the medians where the two disagree. "+
		"Each scenario uses paired ratios unless their intervals are wider over its ratios (a ratio falls back to the other where the chosen one has no interval; such cells are marked). "+
		"This run: %d ratios paired, %d unpaired; median CI half-width %s paired against %s unpaired over the same ratios.\n\n",
		analysis.FindingsAlpha, np, nu, pctOrNone(pw), pctOrNone(uw))
	var vs []storageVerdict
	for _, k := range ks {
		names, undecided := bestGroup(k)
		vs = append(vs, newStorageVerdict(k, names, undecided))
	}
	byStorage := storageVerdicts(vs)
	for i, k := range ks {
		writeRanking(b, k, cores)
		if note := byStorage.note(vs[i]); note != "" {
			fmt.Fprintf(b, "Storage: %s.\n\n", note)
		}
		writeCountNote(b, cx, k)
	}
}

func pctOrNone(f float64) string {
	if math.IsNaN(f) {
		return "none (too few repetitions)"
	}
	return fmt.Sprintf("±%.1f%%", 100*f)
}

// groupText is "**a ≈ b**, then c, then d ≈ e": groups best first (Groups); "?" joins
// strategies the U test could not judge (too few repetitions).
func groupText(k analysis.Ranking) string {
	g := k.Split()
	var b strings.Builder
	for gi, grp := range g.Groups {
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
		if gi == 0 {
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
		if gi == 0 {
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

// writePick writes "Which to pick": per requirement a headline answers, the strategies that
// meet it in this run, the figure that shows it and the declared property it rests on.
//
// caveats, by scenario, is appended to the figure of each of its rows (a trust flag that
// voids that scenario's figures).
func writePick(b *strings.Builder, ks []analysis.Ranking, traits map[string]deferral.Capabilities, caveats map[string]string) {
	var rows [][4]string
	var met []pickLine // per requirement (not cost), the strategies that meet it
	var vs []storageVerdict
	for _, k := range ks {
		h := k.Headline
		if h.Need == "" {
			continue
		}
		var meet []analysis.Ranked
		g := k.Split()
		if h.Meets != nil {
			for _, r := range k.Ranked {
				if h.Meets(r.Samples) {
					meet = append(meet, r)
				}
			}
		} else if len(g.Groups) > 0 {
			for _, i := range g.Groups[0] {
				meet = append(meet, k.Ranked[i])
			}
		}
		var names, figs, whys []string
		var refused []string
		alike := alikeOutside(k, meet, traits)
		var noise map[string]string // best-group members whose place is noise
		if h.Meets == nil && !h.Cost {
			noise = unproven(k, g)
		}
		for _, r := range meet {
			if h.Requires != nil {
				t, ok := traits[r.Strategy]
				if !ok {
					continue
				}
				yes, why := h.Requires(t)
				if !yes {
					refused = append(refused, r.Strategy+" ("+why+")")
					continue
				}
				if out := alike[r.Strategy]; out != "" && h.Meets == nil {
					refused = append(refused, r.Strategy+" (in the best group by noise alone: "+out+", which read the world the same way, are not)")
					continue
				}
				whys = addWhy(whys, r.Strategy, why)
			}
			if by, ok := noise[r.Strategy]; ok {
				if by != "" {
					refused = append(refused, r.Strategy+" (in the best group by noise alone: not separated from "+by+")")
				}
				continue
			}
			names = append(names, r.Strategy)
			figs = append(figs, r.Strategy+" "+results.FormatValue(r.Summary.Median, h.Unit))
		}
		fig := rowLabel(k) + ": " + strings.Join(figs, ", ")
		if len(names) == 0 {
			fig = rowLabel(k) + ": no strategy meets it in this run"
		}
		if k.Baseline != nil {
			fig += " (baseline " + results.FormatValue(k.Baseline.Median, h.Unit) + ")"
		}
		if h.Unit != "" && !strings.Contains(fig, h.Unit) && !results.UnitIsTime(h.Unit) && !results.UnitIsBytes(h.Unit) {
			fig += " " + h.Unit
		}
		why := "measured; no declared property involved"
		if h.Requires != nil && len(names) == 0 && len(refused) == 0 {
			why = "—"
		} else if h.Requires != nil {
			why = strings.Join(whys, "; ")
			if len(refused) > 0 {
				if why != "" {
					why += "; "
				}
				why += "left out: " + strings.Join(refused, "; ")
			}
		}
		untested := h.Meets == nil && len(g.Untested) > 0 && g.Untested[0]
		joined := len(noise) > 0 && len(names) == 0 && !untested
		if h.Meets == nil && len(names) > 1 && !joined {
			// Every pair of the best group is inseparable (Groups), so this holds for each.
			if k.AllTolerated(g.Groups[0]) {
				fig += fmt.Sprintf("; equal within %g %s", k.Tol, h.Unit)
			} else {
				fig += "; noise cannot separate them"
			}
		}
		if joined {
			// Noise put most strategies in the best group: being in it is no evidence of
			// meeting the need, so the requirement is undecided, for no one and against no one.
			var in []string
			for _, i := range g.Groups[0] {
				in = append(in, k.Ranked[i].Strategy)
			}
			names, whys, refused = nil, nil, nil
			fig = fmt.Sprintf("%s: undecided, noise cannot tell %s apart (%d of the %d strategies in the best group, or not separated from the rest)",
				rowLabel(k), strings.Join(in, ", "), len(g.Groups[0]), rankedCount(k))
		}
		if untested {
			// The U test could not judge the best group against the next: no strategy is
			// shown to meet the need; the medians alone are noise.
			names, whys, refused = nil, nil, nil
			best := "lowest"
			if h.Higher {
				best = "highest"
			}
			note := g.Note[g.Groups[1][0]]
			v := results.FormatValue(k.Ranked[0].Summary.Median, h.Unit)
			if h.Unit != "" && !results.UnitIsTime(h.Unit) && !results.UnitIsBytes(h.Unit) {
				v += " " + h.Unit
			}
			fig = fmt.Sprintf("%s: undecided, the U test gave no verdict (%s); %s median %s %s",
				rowLabel(k), note, best, k.Ranked[0].Strategy, v)
		}
		if c := caveats[k.Row.Scenario]; c != "" {
			fig += "; " + c
		}
		if h.Cost {
			why = "a cost, not a requirement: the strategies that pay it, and what"
		}
		rows = append(rows, [4]string{k.Need, strings.Join(names, ", "), fig, why})
		vs = append(vs, newStorageVerdict(k, names, untested || joined))
		if !h.Cost {
			why := ""
			switch {
			case untested:
				why = undecidedRepetitions
			case joined:
				why = undecidedNoise
			}
			met = append(met, pickLine{need: k.Need, names: names, undecided: why != "", why: why})
		}
	}
	if len(rows) == 0 {
		return
	}
	byStorage := storageVerdicts(vs)
	for i := range rows {
		if note := byStorage.note(vs[i]); note != "" {
			rows[i][2] += "; " + note
		}
	}
	fmt.Fprintf(b, "## Which to pick\n\n")
	if line := pickSummary(met); line != "" {
		fmt.Fprintf(b, "%s\n\n", line)
	}
	if line := byStorage.summary(vs); line != "" {
		fmt.Fprintf(b, "%s\n\n", line)
	}
	fmt.Fprintf(b, "| requirement | strategies that meet it in this run | figure | rests on |\n|---|---|---|---|\n")
	for _, r := range rows {
		names := r[1]
		if names == "" {
			names = "none shown"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", r[0], names, mdEscape(r[2]), mdEscape(r[3]))
	}
	fmt.Fprintln(b)
}

// alikeOutside returns, for each strategy of meet, the ranked strategies outside meet that
// declare the same reads (deferral.Capabilities.Reads): strategies that read the world the
// same way are treated alike, so one of them is not picked on noise while the others are
// measured worse. "" for a strategy with none.
func alikeOutside(k analysis.Ranking, meet []analysis.Ranked, traits map[string]deferral.Capabilities) map[string]string {
	in := map[string]bool{}
	for _, r := range meet {
		in[r.Strategy] = true
	}
	out := map[string]string{}
	for _, r := range meet {
		t, ok := traits[r.Strategy]
		if !ok || t.Reads == "" {
			continue
		}
		var same []string
		for _, o := range k.Ranked {
			if to, ok := traits[o.Strategy]; ok && !in[o.Strategy] && to.Reads == t.Reads {
				same = append(same, o.Strategy)
			}
		}
		out[r.Strategy] = strings.Join(same, ", ")
	}
	return out
}

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
