package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/deferral"
)

// verdictRow is one ranking's row of "Which to pick": the strategies shown meeting its
// requirement (or, for a cost, paying it), the figure that shows it and what it rests on.
type verdictRow struct {
	k     analysis.Ranking
	names []string // in the ranking's order
	fig   string
	why   string
	// undecided is why no strategy is shown (undecidedNoise, undecidedRepetitions), "" when
	// the requirement is decided.
	undecided string
	sv        storageVerdict
	// whys and refused are what why is made of for a headline with a declared property:
	// per strategy shown, the property's words; per strategy left out, why.
	whys, refused []string
	caveat        string // a trust flag that voids the scenario's figures, "" when none
}

// verdictRows computes "Which to pick" per ranking with a requirement: the strategies that
// meet it in this run, the figure that shows it and the declared property it rests on, the
// storage note appended to the figure.
//
// caveats, by scenario, is appended to the figure of each of its rows (a trust flag that
// voids that scenario's figures).
func verdictRows(ks []analysis.Ranking, traits map[string]deferral.Capabilities, caveats map[string]string) []verdictRow {
	var rows []verdictRow
	for _, k := range ks {
		h := k.Headline
		if h.Need == "" {
			continue
		}
		var meet []analysis.Ranked
		var cand []int // the best group, and for a lowest need the strategies shown close to its best
		g := k.Split()
		if h.Meets != nil {
			for _, r := range k.Ranked {
				if h.Meets(r.Samples) {
					meet = append(meet, r)
				}
			}
		} else if len(g.Groups) > 0 {
			cand = g.Groups[0]
			if !h.Cost {
				cand = lowestCandidates(k, g)
			}
			for _, i := range cand {
				meet = append(meet, k.Ranked[i])
			}
		}
		// By name: the order within a best group is noise, and listing it by median would
		// invite picking the first.
		slices.SortStableFunc(meet, func(a, b analysis.Ranked) int { return strings.Compare(a.Strategy, b.Strategy) })
		var names, figs, whys []string
		var refused []string
		var alikeOut []string // candidates refused because strategies that read alike are not candidates
		alike := alikeOutside(k, meet, traits)
		var noise map[string]string // best-group members whose place is noise
		if h.Meets == nil && !h.Cost {
			noise = unproven(k, g, cand)
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
					alikeOut = append(alikeOut, r.Strategy+" not shown apart from "+out+", which read the world the same way")
					continue
				}
				if _, ok := noise[r.Strategy]; !ok {
					// Only a strategy that meets the need is what the row rests on: one
					// left out by noise below is named there alone.
					whys = addWhy(whys, r.Strategy, why)
				}
			}
			if by, ok := noise[r.Strategy]; ok {
				if by != "" {
					refused = append(refused, r.Strategy+" (not shown to meet it: "+by+")")
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
		untested := h.Meets == nil && len(g.Untested) > 0 && g.Untested[0]
		// Every candidate refused for noise, or for strategies that read the world alike
		// standing outside: the need is undecided, not decided against everyone.
		joined := (len(noise) > 0 || len(alikeOut) > 0) && len(names) == 0 && !untested
		if h.Meets == nil && len(names) > 1 && !joined {
			// Every pair of the best group is inseparable (Groups), so this holds for each.
			apart := false // a strategy shown close to the best but set apart from the best group
			for _, r := range meet {
				if i := slices.IndexFunc(k.Ranked, func(x analysis.Ranked) bool { return x.Strategy == r.Strategy }); !slices.Contains(g.Groups[0], i) && slices.Contains(names, r.Strategy) {
					apart = true
				}
			}
			switch {
			case apart:
				fig += fmt.Sprintf("; each shown within %.0f%% of the best median", 100*sameWithin)
			case k.AllTolerated(g.Groups[0]):
				fig += fmt.Sprintf("; equal within %g %s", k.Tol, h.Unit)
			default:
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
			if 2*len(g.Groups[0]) > rankedCount(k) || len(g.Groups[0]) == rankedCount(k) {
				fig = fmt.Sprintf("%s: undecided, noise cannot tell %s apart (%d of the %d strategies in the best group)",
					rowLabel(k), strings.Join(slices.Sorted(slices.Values(in)), ", "), len(g.Groups[0]), rankedCount(k))
			} else {
				// A small best group whose members are each not separated from a strategy
				// well behind: the reasons are what noise leaves open.
				var why []string
				for _, n := range slices.Sorted(maps.Keys(noise)) {
					if noise[n] != "" {
						why = append(why, n+" "+noise[n])
					}
				}
				why = append(why, alikeOut...)
				fig = fmt.Sprintf("%s: undecided, noise leaves the best open: %s", rowLabel(k), strings.Join(why, "; "))
			}
			names, whys, refused = nil, nil, nil
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
			if strings.HasPrefix(note, "need >= ") {
				// benchmath's own words: the U test's least sample count, which the
				// report's advice (6, for a 95% CI of each median as well) is not.
				note += "; raise -count to 6 or more, which also gives each median a 95% CI"
			}
			v := results.FormatValue(k.Ranked[0].Summary.Median, h.Unit)
			if h.Unit != "" && !results.UnitIsTime(h.Unit) && !results.UnitIsBytes(h.Unit) {
				v += " " + h.Unit
			}
			fig = fmt.Sprintf("%s: undecided, the U test gave no verdict (%s); %s median %s %s",
				rowLabel(k), note, best, k.Ranked[0].Strategy, v)
		}
		// What the row rests on, once an undecided verdict has dropped its names: the
		// declared properties of the strategies that meet it, and who was left out and why.
		why := "measured; no declared property involved"
		if h.Requires == nil && len(refused) > 0 {
			// A best median left out needs its reason beside the row: a reader sees the
			// strategy first in Findings and not here.
			why = "measured; left out: " + strings.Join(refused, "; ")
		} else if h.Requires != nil && len(names) == 0 && len(refused) == 0 {
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
		caveat := caveats[k.Row.Scenario]
		if caveat != "" {
			fig += "; " + caveat
		}
		if h.Cost {
			why = "a cost, not a requirement: the strategies that pay it, and what"
		}
		cause := ""
		switch {
		case untested:
			cause = undecidedRepetitions
		case joined:
			cause = undecidedNoise
		}
		rows = append(rows, verdictRow{k: k, names: names, fig: fig, why: why, undecided: cause,
			sv: newStorageVerdict(k, names, untested || joined), whys: whys, refused: refused, caveat: caveat})
	}
	var vs []storageVerdict
	for _, r := range rows {
		vs = append(vs, r.sv)
	}
	byStorage := storageVerdicts(vs)
	for i := range rows {
		if note := byStorage.note(rows[i].sv); note != "" {
			rows[i].fig += "; " + note
		}
	}
	return rows
}

// pickLines are rows' requirements (costs left out) as pickSummary reads them.
func pickLines(rows []verdictRow) []pickLine {
	var met []pickLine
	for _, r := range rows {
		if !r.k.Headline.Cost {
			met = append(met, pickLine{need: r.k.Need, names: r.names, undecided: r.undecided != "", why: r.undecided})
		}
	}
	return met
}

// writePickTable writes "Which to pick" per variant: the summary line, the storage line and
// a row per ranking with a requirement (details.md).
func writePickTable(b *strings.Builder, rows []verdictRow) {
	if len(rows) == 0 {
		return
	}
	var vs []storageVerdict
	for _, r := range rows {
		vs = append(vs, r.sv)
	}
	byStorage := storageVerdicts(vs)
	fmt.Fprintf(b, "## Which to pick, per variant\n\n")
	if line := pickSummary(pickLines(rows)); line != "" {
		fmt.Fprintf(b, "%s\n\n", line)
	}
	if line := byStorage.summary(vs); line != "" {
		fmt.Fprintf(b, "%s\n\n", line)
	}
	fmt.Fprintf(b, "| requirement | strategies that meet it in this run | figure | rests on |\n|---|---|---|---|\n")
	for _, r := range rows {
		names := verdictText(r.names)
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", r.k.Need, names, mdEscape(r.fig), mdEscape(r.why))
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
