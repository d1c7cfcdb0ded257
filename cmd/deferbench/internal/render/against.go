package render

import (
	"fmt"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// againstHead names reference j of ranking k with its row and median: "Ark's
// collect-then-apply (ark, storage=archetypes: 4.61 ns/op)".
func againstHead(k analysis.Ranking, j int) string {
	ref := k.Against[j]
	return fmt.Sprintf("%s (%s, %s: %s)", ref.Label, ref.Strategy, ref.Row.Variant,
		reportCell(withUnit(ref.Summary, k.Headline.Unit)))
}

// againstText is where each strategy of ranking k stands against reference j: its ratio in
// k's unit with the 95% CI, best first, then, where both were counted, the ratio of
// instructions per op: "cmdbuffer 1.01× (0.92–1.10), versioned 1.15× (1.02–1.30); counted:
// cmdbuffer 1.36×, versioned 1.86× its instr/op".
func againstText(k analysis.Ranking, j int, x analysis.CountIndex) string {
	var times, instrs []string
	ref := k.Against[j]
	refCount, counted := x.Instr(ref.Row, ref.Strategy)
	for _, r := range k.Ranked {
		if r.HasAgainst[j] {
			times = append(times, r.Strategy+" "+r.VsAgainst[j].Text())
		} else {
			times = append(times, r.Strategy+" —")
		}
		if m, ok := x.Instr(k.Row, r.Strategy); ok && counted {
			instrs = append(instrs, fmt.Sprintf("%s %s×", r.Strategy, results.Sig3(m.Median/refCount.Median, false)))
		}
	}
	s := strings.Join(times, ", ")
	if len(instrs) > 0 {
		s += "; counted: " + strings.Join(instrs, ", ") + " its " + counts.InstrUnit
	}
	return s
}
