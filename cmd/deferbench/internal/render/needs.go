package render

// This file holds the first screen's kinds of need: a scenario's requirements, the
// strategies meeting most of their verdicts, and what an undecided need still rules out.

import (
	"slices"
	"strings"
)

// need is one kind of need of the first screen: a scenario's requirements and their verdicts.
type need struct {
	scenario string
	heads    []string // each requirement's words, without its variants
	rows     []verdictRow
}

// needs groups the requirements (costs left out) by scenario, in order.
func needs(reqs []requirement) []need {
	var out []need
	for _, q := range reqs {
		if q.rows[0].k.Headline.Cost {
			continue
		}
		if len(out) == 0 || out[len(out)-1].scenario != q.scenario {
			out = append(out, need{scenario: q.scenario})
		}
		n := &out[len(out)-1]
		n.heads = append(n.heads, needHead(q.rows[0].k.Headline.Need))
		n.rows = append(n.rows, q.rows...)
	}
	return out
}

// needHead is a requirement's words before its first parameter or parenthesis: "lowest frame
// time" of "lowest frame time at {entities} entities".
func needHead(s string) string {
	for _, cut := range []string{" (", " at {", " on {"} {
		if i := strings.Index(s, cut); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// pick is the strategies that meet the most of n's verdicts, by name, and how many they meet;
// nil when none meets any.
func (n need) pick() ([]string, int) {
	count := map[string]int{}
	for _, r := range n.rows {
		if r.undecided != "" {
			continue
		}
		for _, s := range r.names {
			count[s]++
		}
	}
	most := 0
	for _, c := range count {
		most = max(most, c)
	}
	if most == 0 {
		return nil, 0
	}
	var top []string
	for s, c := range count {
		if c == most {
			top = append(top, s)
		}
	}
	slices.Sort(top)
	return top, most
}

// behind returns, for a need every row of which noise left undecided by joining most
// strategies in the best group, the strategies that every row separates from each member of
// that group (the test and the ratio's interval agree), sorted: what the need still rules
// out. None for a need with a row undecided otherwise (a small best group whose members
// noise does not set apart from strategies behind: those are not ruled out).
func (n need) behind() []string {
	count := map[string]int{}
	for _, r := range n.rows {
		g := r.k.Split()
		if len(g.Groups) == 0 {
			return nil
		}
		best := g.Groups[0]
		if all := rankedCount(r.k); r.undecided != undecidedNoise || (2*len(best) <= all && len(best) != all) {
			return nil
		}
		for i, x := range r.k.Ranked {
			if x.Unranked != "" || slices.Contains(best, i) {
				continue
			}
			if !slices.ContainsFunc(best, func(b int) bool { return !r.k.Separated(b, i) }) {
				count[x.Strategy]++
			}
		}
	}
	var out []string
	for s, c := range count {
		if c == len(n.rows) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}
