package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// pickLine is one requirement of "Which to pick" as pickSummary reads it: the strategies that
// meet it, or undecided (no strategy shown) and why: undecidedRepetitions when the U test could
// not judge the best group, undecidedNoise when noise joined most strategies in it.
type pickLine struct {
	need      string
	names     []string
	undecided bool
	why       string
}

// The causes of an undecided requirement.
const (
	undecidedNoise       = "noise"
	undecidedRepetitions = "repetitions"
)

// lowestCandidates returns the strategies of k that may meet its "lowest" (or "highest")
// need: the best group g.Groups[0], then every other ranked strategy shown within sameWithin
// of the best median (its ratio's 95% interval). A strategy the test sets apart from the best
// by less than that is as much evidence as one noise leaves beside it: were it left out, more
// noise, which joins it to the best group, would put it in (a reference run did: widened ×3,
// handrolled, 1.03× cmdbuffer and apart from it as measured, met "lowest stage plus commit
// cost" beside it). nil without groups.
func lowestCandidates(k analysis.Ranking, g analysis.Grouping) []int {
	if len(g.Groups) == 0 {
		return nil
	}
	out := slices.Clone(g.Groups[0])
	best := out[0]
	for j, r := range k.Ranked {
		if r.Unranked != "" || slices.Contains(out, j) {
			continue
		}
		if ok, _ := k.Within(best, j, sameWithin); ok {
			out = append(out, j)
		}
	}
	return out
}

// unproven returns, for each candidate cand (lowestCandidates) whose place is no evidence of
// meeting the need, why: for a member of the best group other than the best median, that its
// ratio to the best is not shown within sameWithin ("not shown within 10% of X"), or a ranked
// strategy not shown within sameWithin of the best, in the group or outside it, that it is
// not separated from ("not separated from X"); "" for every candidate when noise joined most
// strategies (the best group holds more than half of the ranked ones, or all of them). A
// candidate's place, a lone best's included, is evidence when the best group holds at most
// half the strategies, it is separated from every ranked strategy not shown within sameWithin
// of the best and, unless it has the best median, it is shown within sameWithin of it
// (members of a best group equal within the unit's tolerance are evidence too). More noise
// only removes separations and widens intervals, so it only takes strategies out of "meets",
// never puts them in.
func unproven(k analysis.Ranking, g analysis.Grouping, cand []int) map[string]string {
	if len(g.Groups) == 0 || len(cand) == 0 {
		return nil
	}
	// Members equal within the unit's tolerance are evidence; a group of one is not "all
	// equal" in that sense: a lone best is held to the strategies not shown close to it like
	// any candidate (groups do not chain, so one in a later group may not be separated from
	// it: versioned at 105 ns ±44% beside a lone best at 100).
	tolerated := len(g.Groups[0]) > 1 && k.AllTolerated(g.Groups[0])
	if tolerated && len(cand) == len(g.Groups[0]) {
		return nil
	}
	out := map[string]string{}
	outside := 0
	for j, r := range k.Ranked {
		if r.Unranked == "" && !slices.Contains(g.Groups[0], j) {
			outside++
		}
	}
	best := g.Groups[0][0]
	near := func(j int) bool { // shown within sameWithin of the best median
		ok, _ := k.Within(best, j, sameWithin)
		return j == best || ok
	}
	member := func(i int) bool { return tolerated && slices.Contains(g.Groups[0], i) }
	for _, i := range cand[1:] {
		if member(i) {
			continue
		}
		if ok, far := k.Within(best, i, sameWithin); !ok {
			reach := "no interval"
			if far > 0 {
				reach = fmt.Sprintf("its ratio's 95%% CI reaches %.2f×", far)
			}
			out[k.Ranked[i].Strategy] = fmt.Sprintf("not shown within %.0f%% of %s, %s", 100*sameWithin, k.Ranked[best].Strategy, reach)
		}
	}
	// A candidate must be separated from every ranked strategy not shown within sameWithin
	// of the best, in the group or outside it. Were it tested against the strategies outside
	// the group only, more noise, which joins them to the group, could clear a member it had
	// kept out; a strategy shown that close to the best is no evidence against a candidate.
	for _, i := range cand {
		if _, seen := out[k.Ranked[i].Strategy]; seen || member(i) {
			continue
		}
		for j, r := range k.Ranked {
			if j != i && r.Unranked == "" && !near(j) && !k.Separated(i, j) {
				out[k.Ranked[i].Strategy] = fmt.Sprintf("not separated from %s, which is not shown within %.0f%% of %s", r.Strategy, 100*sameWithin, k.Ranked[best].Strategy)
				break
			}
		}
	}
	// Noise joined most strategies when the group holds more than half of the ranked ones
	// (or nothing is outside it): none stands out. The rule reads the group's size, not the
	// members left standing, which more noise could shrink into a majority of one.
	if outside == 0 || 2*len(g.Groups[0]) > rankedCount(k) {
		for _, i := range cand {
			out[k.Ranked[i].Strategy] = ""
		}
	}
	return out
}

// sameWithin is how close to the best median a member of the best group must be shown (its
// ratio's 95% interval) to meet a "lowest" requirement beside it: the width of interval the
// report calls Noisy.
const sameWithin = 0.10

// rankedCount is the number of k's strategies that were ranked (not listed as unranked).
func rankedCount(k analysis.Ranking) int {
	n := 0
	for _, r := range k.Ranked {
		if r.Unranked == "" {
			n++
		}
	}
	return n
}

// pickSummary is the line above "Which to pick"'s table, computed from rows (the
// requirements, costs left out): the strategies that meet every requirement decided, or else
// the ones that meet the most and which they miss. An undecided requirement counts neither
// for nor against any strategy: the line says how many there are and why. With half of the
// requirements or fewer decided, it names no pick. "" without requirements.
func pickSummary(rows []pickLine) string {
	if len(rows) == 0 {
		return ""
	}
	count := map[string]int{}
	var order []string
	decided, undecided := 0, 0
	because := map[string]int{}
	for _, r := range rows {
		if r.undecided {
			undecided++
			because[r.why]++
			continue
		}
		decided++
		for _, n := range r.names {
			if count[n] == 0 {
				order = append(order, n)
			}
			count[n]++
		}
	}
	tail := ""
	if undecided > 0 {
		tail = fmt.Sprintf(" %s undecided, counted neither for nor against any strategy: %s.", results.Plural(undecided, "more verdict"), undecidedCauses(because))
	}
	if decided == 0 {
		return fmt.Sprintf("No verdict is decided in this run: all %d undecided, %s.", undecided, undecidedCauses(because))
	}
	most := 0
	for _, n := range order {
		most = max(most, count[n])
	}
	var top []string
	for _, n := range order {
		if count[n] == most {
			top = append(top, n)
		}
	}
	sort.Strings(top)
	verb := meetVerb(len(top))
	scope := "measured"
	if undecided > 0 {
		scope = "decided"
	}
	switch {
	case most == 0:
		return fmt.Sprintf("No strategy is shown to meet any of the %d verdicts %s here.", decided, scope) + tail
	case tooFewDecided(decided, len(rows)):
		// A pick from a minority of the requirements would read as a verdict on all of them.
		which := fmt.Sprintf("%d of them", most)
		switch {
		case decided == 1:
			which = "it"
		case most == decided:
			which = fmt.Sprintf("all %d", most)
		}
		return fmt.Sprintf("No pick yet: only %d of the %d verdicts %s decided in this run (%s %s %s).",
			decided, len(rows), map[bool]string{true: "is", false: "are"}[decided == 1], strings.Join(top, ", "), verb, which) + tail
	case most == decided:
		return fmt.Sprintf("**%s %s every requirement %s here** (%s; costs not counted).", strings.Join(top, ", "), verb, scope, results.Plural(decided, "verdict")) + tail
	}
	line := fmt.Sprintf("No strategy meets every requirement %s here: %s %s %d of the %d verdicts", scope, strings.Join(top, ", "), verb, most, decided)
	if len(top) == 1 {
		var missed []string
		for _, r := range rows {
			if !r.undecided && !slices.Contains(r.names, top[0]) {
				missed = append(missed, r.need)
			}
		}
		if len(missed) <= 3 {
			line += " (not: " + strings.Join(missed, "; ") + ")"
		}
	}
	return line + "." + tail
}

// tooFewDecided reports whether decided of n requirements are too few to name a pick: half
// of them or fewer (a pick speaks for a majority of the verdicts). More noise leaves more requirements undecided, so it can only take a pick away.
func tooFewDecided(decided, n int) bool { return 2*decided <= n }

// undecidedCauses says why requirements were undecided and what would decide them, from the
// count of each cause.
func undecidedCauses(because map[string]int) string {
	var parts []string
	if n := because[undecidedNoise]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d where noise joined most strategies in the best group (repeat on a quiet machine, or raise -count)", n))
	}
	if n := because[undecidedRepetitions]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d with too few repetitions for the U test to judge (raise -count to 6 or more)", n))
	}
	return strings.Join(parts, "; ")
}

// meetVerb is "meets" for one strategy, "meet" for several: the verb of a requirement met,
// whether by a lowest cost (a best group) or within a bound.
func meetVerb(strategies int) string {
	if strategies > 1 {
		return "meet"
	}
	return "meets"
}

// decisiveStrategies returns the strategies of k whose figures a "lowest" (or "highest")
// verdict rests on: the best group, the others shown close to its best (lowestCandidates),
// the next group, which they must be set apart from, and every strategy within 2× of the
// best median. How sure a verdict is reads their
// noise, not that of a strategy many times slower (lazyguarded's ±31% at 80× the best said
// nothing about "hybrid is lowest"). More noise joins groups, so it brings more strategies in,
// never fewer. All of them where k has no groups.
func decisiveStrategies(k analysis.Ranking) map[int]bool {
	out := map[int]bool{}
	g := k.Split()
	if len(g.Groups) == 0 || k.Headline.Meets != nil {
		for j := range k.Ranked {
			out[j] = true
		}
		return out
	}
	for _, j := range lowestCandidates(k, g) {
		out[j] = true
	}
	if len(g.Groups) > 1 {
		for _, j := range g.Groups[1] {
			out[j] = true
		}
	}
	// And every strategy whose median lies within 2× of the best's: the candidates are held
	// to each strategy not shown close, and noise can take one out of "close" or out of the
	// next group; medians stay, so this part never shrinks with noise.
	best := k.Ranked[g.Groups[0][0]].Summary.Median
	for j, r := range k.Ranked {
		m := r.Summary.Median
		if r.Unranked == "" && best > 0 && m > 0 && m/best <= 2 && best/m <= 2 {
			out[j] = true
		}
	}
	return out
}
