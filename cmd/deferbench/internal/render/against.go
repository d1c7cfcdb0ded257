package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// againstHead names reference j of ranking k, where it ran and its median: "Ark's
// collect-then-apply (archetypes, Ark's only storage) at 4.61 ns ±3%".
func againstHead(k analysis.Ranking, j int) string {
	ref := k.Against[j]
	where := ref.Where
	if where == "" {
		where = ref.Row.Variant
	}
	return fmt.Sprintf("%s (%s) at %s", ref.Label, where, reportCell(withUnit(ref.Summary, k.Headline.Unit)))
}

// againstText is where each strategy of ranking k stands against reference j: its ratio in
// k's unit with the 95% CI, in ranking order (best first), then, where both were counted, its
// ratio of instructions per op, fewest first: "cmdbuffer 1.01× (0.92–1.10), versioned 1.15×
// (1.02–1.30); instructions per op: cmdbuffer 1.36×, versioned 1.86×". When no ratio has an
// interval (too few repetitions) the ratios are given bare and that is said once.
func againstText(k analysis.Ranking, j int, x analysis.CountIndex) string {
	anyCI := false
	for _, r := range k.Ranked {
		anyCI = anyCI || r.HasAgainst[j] && !r.VsAgainst[j].NoCI
	}
	var times []string
	for _, r := range k.Ranked {
		switch {
		case !r.HasAgainst[j]:
			times = append(times, r.Strategy+" —")
		case anyCI:
			times = append(times, r.Strategy+" "+r.VsAgainst[j].Text())
		default:
			times = append(times, r.Strategy+" "+results.Sig3(r.VsAgainst[j].Center, false)+"×")
		}
	}
	s := strings.Join(times, ", ")
	if !anyCI {
		s += " (no CI: too few repetitions)"
	}
	type counted struct {
		strategy string
		ratio    float64
	}
	var cs []counted
	ref := k.Against[j]
	if refCount, ok := x.Instr(ref.Row, ref.Strategy); ok {
		for _, r := range k.Ranked {
			if m, ok := x.Instr(k.Row, r.Strategy); ok {
				cs = append(cs, counted{r.Strategy, m.Median / refCount.Median})
			}
		}
	}
	if len(cs) > 0 {
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].ratio < cs[b].ratio })
		parts := make([]string, len(cs))
		for i, c := range cs {
			parts[i] = fmt.Sprintf("%s %s×", c.strategy, results.Sig3(c.ratio, false))
		}
		s += "; instructions per op: " + strings.Join(parts, ", ")
	}
	return s
}
