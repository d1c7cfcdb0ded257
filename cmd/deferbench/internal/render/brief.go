package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
)

// paramDefault is the value a row without the parameter ran with: rows on the default world
// storage carry no storage parameter, and Spike's typed tier no tier parameter.
var paramDefault = map[string]string{"storage": defaultStorage, "tier": "typed"}

// requirement is one requirement of "Which to pick" with its variants (the rankings of one
// scenario and headline metric: mixes, sizes, storages) folded together.
type requirement struct {
	scenario string
	rows     []verdictRow
	label    string   // the requirement with the values its variants take
	variants []string // per row, the parameters that differ between the rows ("" for one row)
}

// foldPicks folds rows into one requirement per scenario and headline metric, in order.
func foldPicks(rows []verdictRow) []requirement {
	var out []requirement
	at := map[string]int{}
	for _, r := range rows {
		key := r.k.Row.Scenario + "\x00" + r.k.Headline.Unit
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, requirement{scenario: r.k.Row.Scenario})
		}
		out[i].rows = append(out[i].rows, r)
	}
	for i := range out {
		out[i].label, out[i].variants = foldLabel(out[i].rows)
	}
	return out
}

// foldLabel is the requirement's text with each {key} replaced by the values its rows take,
// the parameters outside the text that differ between the rows named after it ("tier typed,
// closure; storage slots, archetypes"), and per row the differing parameters, key=value.
func foldLabel(rows []verdictRow) (string, []string) {
	var keys []string
	vals := map[string][]string{}
	rowVals := make([]map[string]string, len(rows))
	for i, r := range rows {
		rowVals[i] = map[string]string{}
		for _, p := range r.k.Params {
			if !slices.Contains(keys, p.Key) {
				keys = append(keys, p.Key)
			}
			rowVals[i][p.Key] = p.Value
		}
		rowVals[i]["GOMAXPROCS"] = strconv.Itoa(r.k.Row.Procs)
	}
	keys = append(keys, "GOMAXPROCS")
	for i := range rows {
		for _, key := range keys {
			v, ok := rowVals[i][key]
			if !ok {
				v = paramDefault[key]
				if v == "" {
					v = "—"
				}
				rowVals[i][key] = v
			}
			if !slices.Contains(vals[key], v) {
				vals[key] = append(vals[key], v)
			}
		}
	}
	need := rows[0].k.Headline.Need
	var extra, differ []string
	for _, key := range keys {
		if strings.Contains(need, "{"+key+"}") {
			var shown []string
			for _, v := range vals[key] {
				shown = append(shown, results.FormatCount(v))
			}
			need = strings.ReplaceAll(need, "{"+key+"}", strings.Join(shown, ", "))
			if len(vals[key]) > 1 {
				differ = append(differ, key)
			}
			continue
		}
		if len(vals[key]) > 1 {
			extra = append(extra, key+" "+strings.Join(vals[key], ", "))
			differ = append(differ, key)
		}
	}
	if len(extra) > 0 {
		need += "; " + strings.Join(extra, "; ")
	}
	variants := make([]string, len(rows))
	for i := range rows {
		var parts []string
		for _, key := range differ {
			parts = append(parts, key+"="+rowVals[i][key])
		}
		variants[i] = strings.Join(parts, " ")
	}
	return need, variants
}

// meetsEvery is the strategies shown meeting the requirement in every variant, by name: an
// undecided variant is met by no one, so more noise can only take strategies out.
func (q requirement) meetsEvery() []string {
	var in []string
	for i, r := range q.rows {
		names := r.names
		if r.undecided != "" {
			names = nil
		}
		if i == 0 {
			in = slices.Clone(names)
			continue
		}
		in = slices.DeleteFunc(in, func(s string) bool { return !slices.Contains(names, s) })
	}
	slices.Sort(in)
	return in
}

// verdictOf is one variant's verdict in words: its strategies by name, or undecided and why.
func verdictOf(r verdictRow) string {
	switch r.undecided {
	case undecidedNoise:
		return "undecided (noise)"
	case undecidedRepetitions:
		return "undecided (too few repetitions)"
	}
	return verdictText(slices.Sorted(slices.Values(r.names)))
}

// byVariant says how the verdict goes across the variants: the same in all, or the most
// common one and, named, the variants that differ from it.
func (q requirement) byVariant() string {
	if len(q.rows) == 1 {
		v := verdictOf(q.rows[0])
		if r := q.rows[0]; len(r.names) > 1 && r.undecided == "" && r.k.Headline.Meets == nil {
			if strings.Contains(r.fig, "; each shown within") {
				v += fmt.Sprintf(" (each within %.0f%% of the best median)", 100*sameWithin)
			} else {
				v += " (noise cannot order them)"
			}
		}
		return v
	}
	var texts []string
	count := map[string]int{}
	for _, r := range q.rows {
		t := verdictOf(r)
		if count[t] == 0 {
			texts = append(texts, t)
		}
		count[t]++
	}
	mode := texts[0]
	for _, t := range texts {
		if count[t] > count[mode] {
			mode = t
		}
	}
	if len(texts) == 1 {
		return fmt.Sprintf("%s in all %d variants", mode, len(q.rows))
	}
	parts := []string{fmt.Sprintf("%s in %d of %d variants", mode, count[mode], len(q.rows))}
	for _, t := range texts {
		if t == mode {
			continue
		}
		var where []string
		for i, r := range q.rows {
			if verdictOf(r) == t {
				where = append(where, q.variants[i])
			}
		}
		parts = append(parts, strings.Join(where, ", ")+": "+t)
	}
	return strings.Join(parts, "; ")
}

// restsOn is what the variants' verdicts rest on, each distinct reason once.
func (q requirement) restsOn() string {
	var whys, out []string
	for i, r := range q.rows {
		parts := r.whys
		if r.k.Headline.Requires == nil || r.undecided != "" {
			parts = []string{r.why}
		}
		for _, w := range parts {
			// Clause by clause: "measured" once, not once per variant whose reason goes on
			// ("measured; no declared property involved; measured; left out: …").
			for _, c := range strings.Split(w, "; ") {
				if !slices.Contains(whys, c) {
					whys = append(whys, c)
				}
			}
		}
		if len(r.refused) > 0 && r.k.Headline.Requires != nil { // noise's exclusions: details.md
			at := ""
			if q.variants[i] != "" {
				at = " at " + q.variants[i]
			}
			out = append(out, "left out"+at+": "+strings.Join(r.refused, "; "))
		}
	}
	for _, r := range q.rows {
		if r.caveat != "" && !slices.Contains(out, r.caveat) {
			out = append(out, r.caveat)
		}
	}
	return strings.Join(append(whys, out...), "; ")
}

// costText is what the strategies that pay a cost pay, from the least to the most over the
// variants: "versioned 58.9 B to 325 B".
func (q requirement) costText() (payers []string, text string) {
	lo, hi := map[string]float64{}, map[string]float64{}
	unit := q.rows[0].k.Headline.Unit
	for _, r := range q.rows {
		for _, n := range r.names {
			for _, x := range r.k.Ranked {
				if x.Strategy != n {
					continue
				}
				if !slices.Contains(payers, n) {
					payers = append(payers, n)
					lo[n], hi[n] = math.Inf(1), math.Inf(-1)
				}
				lo[n], hi[n] = math.Min(lo[n], x.Summary.Median), math.Max(hi[n], x.Summary.Median)
			}
		}
	}
	slices.Sort(payers)
	var parts []string
	for _, n := range payers {
		t := results.FormatValue(lo[n], unit)
		if hi[n] != lo[n] {
			t += " to " + results.FormatValue(hi[n], unit)
		}
		parts = append(parts, n+" "+t)
	}
	text = strings.Join(parts, "; ")
	if len(q.rows) > 1 {
		text += fmt.Sprintf(" over the %d variants", len(q.rows))
	}
	return payers, text
}

// writePickFolded writes report.md's "Which to pick": one row per requirement, its variants
// folded in (named only where their verdicts differ), then the costs, a row each.
func writePickFolded(b *strings.Builder, reqs []requirement) {
	if len(reqs) == 0 {
		return
	}
	fmt.Fprintf(b, "## Which to pick\n\n")
	fmt.Fprintf(b, "One row per requirement, its variants folded in (each variant's outcome is a verdict, what the first lines count); strategies by name, since the order within a best group is noise. "+
		"Per variant, with the figures: [details.md](details.md#which-to-pick-per-variant).\n\n")
	fmt.Fprintf(b, "| requirement | meets it in every variant | by variant | rests on |\n|---|---|---|---|\n")
	for _, q := range reqs {
		if q.rows[0].k.Headline.Cost {
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", q.label, verdictText(q.meetsEvery()), mdEscape(q.byVariant()), mdEscape(q.restsOn()))
	}
	for _, q := range reqs {
		if !q.rows[0].k.Headline.Cost {
			continue
		}
		payers, text := q.costText()
		fmt.Fprintf(b, "| cost: %s | %s | %s | %s |\n", q.label, verdictText(payers), mdEscape(text), mdEscape(q.rows[0].why))
	}
	fmt.Fprintln(b)
}

// sureness is how sure a verdict is: level (firm, fair, tentative, undecided) and the reasons, the
// trust flags that bear on it first.
type sureness struct {
	level   int // 0 firm, 1 fair, 2 tentative, 3 undecided
	reasons []string
}

var levelWords = []string{"firm", "fair", "tentative", "undecided"}

func (s sureness) String() string {
	if len(s.reasons) == 0 {
		return levelWords[s.level]
	}
	return levelWords[s.level] + ": " + strings.Join(s.reasons, ", ")
}

// runFlags are the run-wide trust flags by name (Emulated, Throttled, Loaded), which bear on
// every timed verdict.
func runFlags(flags []string) []string {
	var out []string
	for _, f := range flags {
		for _, name := range []string{"Emulated", "Throttled", "Loaded"} {
			if strings.HasPrefix(f, "**"+name+"**") {
				out = append(out, name)
			}
		}
	}
	return out
}

// sure says how sure n's verdicts are, from the trust flags that bear on its rows and how
// many of them are undecided.
//
// A need whose every row is met within a bound (no allocation, one distinct state, retained-x
// under 2) is checked on every sample, none of them a time: the machine's load, the width of a
// median's interval and the want of one bear on none of its verdicts.
func (n need) sure(rd *reportData) sureness {
	var s sureness
	bounds := true
	for _, r := range n.rows {
		bounds = bounds && r.k.Headline.Meets != nil
	}
	if f := runFlags(rd.flags); len(f) > 0 && !bounds {
		s.level = 2
		s.reasons = append(s.reasons, f...)
	} else if !bounds && slices.ContainsFunc(rd.flags, func(f string) bool { return strings.HasPrefix(f, "**Load unknown**") }) {
		s.level = 1
		s.reasons = append(s.reasons, "Load unknown")
	}
	worst, noCI, over, ceiling, ties := 0.0, false, false, false, false
	undecided := map[string]int{}
	nu := 0
	for _, r := range n.rows {
		decisive := decisiveStrategies(r.k)
		for j, x := range r.k.Ranked {
			if bounds {
				break
			}
			if !decisive[j] {
				continue
			}
			if x.Summary.NoCI {
				noCI = true
			} else if x.Summary.Median != 0 {
				worst = math.Max(worst, analysis.Half(x.Summary.Median, x.Summary.Lo, x.Summary.Hi))
			}
		}
		if rd.cores > 0 && r.k.Row.Procs > rd.cores {
			over = true
		}
		if r.caveat != "" {
			ceiling = true
		}
		if r.undecided != "" {
			undecided[r.undecided]++
			nu++
		} else if r.k.Headline.Meets == nil && !r.k.Headline.Cost {
			// A best group noise cannot split, whether or not all of it meets the need: one
			// member left out for a strategy behind it still ties with those that meet.
			if g := r.k.Split(); len(g.Groups) > 0 && len(g.Groups[0]) > 1 && !r.k.AllTolerated(g.Groups[0]) {
				ties = true
			}
		}
	}
	if ceiling {
		s.level = max(s.level, 2)
		s.reasons = append(s.reasons, "Contention ceiling")
	}
	if worst > 0.10 {
		s.level = max(s.level, 1)
		s.reasons = append(s.reasons, fmt.Sprintf("Noisy (up to ±%.0f%%)", 100*worst))
	}
	if noCI {
		s.level = max(s.level, 1)
		s.reasons = append(s.reasons, "Too few repetitions")
	}
	if over {
		s.level = max(s.level, 1)
		s.reasons = append(s.reasons, "Oversubscribed")
	}
	if nu > 0 {
		var why []string
		if c := undecided[undecidedNoise]; c > 0 {
			why = append(why, fmt.Sprintf("%d by noise", c))
		}
		if c := undecided[undecidedRepetitions]; c > 0 {
			why = append(why, fmt.Sprintf("%d by too few repetitions", c))
		}
		if nu == len(n.rows) {
			s.level = 3
		} else {
			s.level = max(s.level, 2)
		}
		s.reasons = append(s.reasons, fmt.Sprintf("%d of %d undecided (%s)", nu, len(n.rows), strings.Join(why, ", ")))
	}
	if ties && s.level < 3 {
		s.level = max(s.level, 1)
		s.reasons = append(s.reasons, "ties noise cannot break")
	}
	return s
}

// repetitions is the most repetitions any ranked strategy of ks has.
func repetitions(ks []analysis.Ranking) int {
	n := 0
	for _, k := range ks {
		for _, r := range k.Ranked {
			n = max(n, len(r.Samples))
		}
	}
	return n
}

// surerCommand is the one command that would make the run's verdicts surer: the scenarios
// whose verdicts are not firm (all of the run's when every one is firm) again, with twice the
// repetitions and at least 10, where the trust flags say.
func surerCommand(rd *reportData, ns []need, sures []sureness) string {
	var scen []string
	for i, n := range ns {
		if sures[i].level > 0 && !slices.Contains(scen, n.scenario) {
			scen = append(scen, n.scenario)
		}
	}
	count := max(10, 2*repetitions(rd.ks))
	cmd := "deferbench run"
	allFirm := len(scen) == 0
	if allFirm {
		for _, n := range ns {
			scen = append(scen, n.scenario)
		}
	}
	// Every scenario with a requirement: the default suite, named by no flag.
	every := 0
	for _, s := range suite.Scenarios {
		if slices.ContainsFunc(s.Headlines, func(h suite.Headline) bool { return h.Need != "" && !h.Cost }) {
			every++
		}
	}
	if len(scen) < every {
		cmd += " -scenarios " + strings.Join(scen, ",")
	}
	cmd += " -count " + strconv.Itoa(count)
	where := "on an idle machine"
	flags := runFlags(rd.flags)
	switch {
	case slices.Contains(flags, "Emulated"):
		where = "on the board itself, not under an emulator"
	case slices.Contains(flags, "Throttled"):
		where = "on a cooled, idle machine"
	}
	what := "more repetitions narrow the intervals that left verdicts tied or undecided"
	if allFirm {
		what = "every verdict is firm; more repetitions only narrow the intervals"
	}
	return fmt.Sprintf("`%s` %s (%s)", cmd, where, what)
}

// writeBrief writes report.md's first screen: the pick per kind of need, how sure each is in
// a phrase tied to the trust flags, and the one command that would make it surer.
func writeBrief(b *strings.Builder, rd *reportData, reqs []requirement) {
	ns := needs(reqs)
	if len(ns) == 0 {
		return
	}
	sures := make([]sureness, len(ns))
	var all sureness
	for i, n := range ns {
		sures[i] = n.sure(rd)
		all.level = max(all.level, min(sures[i].level, 2))
	}
	// The run's phrase: its trust flags, and how many verdicts are undecided.
	for _, f := range rd.flags {
		name, _, ok := strings.Cut(strings.TrimPrefix(f, "**"), "**")
		if ok && strings.HasPrefix(f, "**") && !slices.Contains(all.reasons, name) {
			all.reasons = append(all.reasons, name)
			all.level = max(all.level, 1)
		}
	}
	if len(runFlags(rd.flags)) > 0 {
		all.level = max(all.level, 2)
	}
	lines := pickLines(rd.picks)
	nu := 0
	for _, l := range lines {
		if l.undecided {
			nu++
		}
	}
	if nu > 0 {
		all.reasons = append(all.reasons, fmt.Sprintf("%d of %d verdicts undecided", nu, len(lines)))
		all.level = max(all.level, 2)
		if tooFewDecided(len(lines)-nu, len(lines)) {
			all.level = 3 // pickSummary names no pick
		}
	}
	fmt.Fprintf(b, "- **Pick**: %s\n", pickSummary(lines))
	fmt.Fprintf(b, "- **How sure**: %s (the trust flags below).\n", all)
	fmt.Fprintf(b, "- **Surer**: %s.\n\n", surerCommand(rd, ns, sures))
	fmt.Fprintf(b, "| need | pick | how sure |\n|---|---|---|\n")
	for i, n := range ns {
		top, most := n.pick()
		pick := "undecided"
		switch {
		case len(top) > 0 && most == len(n.rows):
			pick = strings.Join(top, ", ")
			if len(n.rows) > 1 {
				pick += fmt.Sprintf(" (%s all %d verdicts)", meetVerb(len(top)), len(n.rows))
			}
		case len(top) > 0:
			pick = fmt.Sprintf("%s (%s %d of %d verdicts)", strings.Join(top, ", "), meetVerb(len(top)), most, len(n.rows))
		case sures[i].level < 3:
			pick = "none shown"
		default:
			if out := n.behind(); len(out) > 0 {
				// Noise leaves the best open, but not what every variant set behind it.
				pick = fmt.Sprintf("undecided; not %s (behind the best in every variant)", strings.Join(out, ", "))
			}
		}
		fmt.Fprintf(b, "| %s: %s | %s | %s |\n", n.scenario, strings.Join(n.heads, "; "), pick, mdEscape(sures[i].String()))
	}
	fmt.Fprintln(b)
}
