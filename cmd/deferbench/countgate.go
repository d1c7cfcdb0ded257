package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"golang.org/x/perf/benchfmt"
)

// splitCountFail takes the conditions on count units (instr/op>1%) out of a -fail value:
// they are gated by counts.Gate against the measured spread, the rest by the time tier's
// test. A bad count condition is a usage error naming it.
func splitCountFail(cmd, fail string) (rest string, ts []counts.Threshold, err error) {
	c, rest := counts.SplitThresholds(fail)
	if c == "" {
		return fail, nil, nil
	}
	ts, err = counts.ParseThresholds(c)
	if err != nil {
		return "", nil, usagef("%s: -fail: %v", cmd, err)
	}
	return rest, ts, nil
}

// countGate applies the count thresholds ts to the count rows of old and new
// (counts.RowsFromResults: the spread is over each side's repetitions or rounds): a row worse
// than max(threshold, old spread + new spread) fails. It writes one line per failed or
// improved row and a summary line on stderr, and returns an error wrapping
// analysis.ErrGateFailed when a row failed, else one wrapping analysis.ErrGateInconclusive
// (exit status 3) when a row was counted once on both sides (no spread to judge it against) or
// no row was judged (none is on both sides: another ISA, other scenarios) or a side did not
// finish (results.Partial: interrupted, or go test output with a failure). Rows are matched by
// name and ISA (an emulated ISA's rows, isa: pi4, are named [pi4]). A threshold on a unit
// neither side has is a usage error.
//
// With unreadable (NEW had lines skipped as malformed), a row of OLD's that NEW lacks is
// never taken for a subset run (counts.Gate).
func countGate(e *env, cmd string, ts []counts.Threshold, old, new []*benchfmt.Result, unreadable bool) error {
	if len(ts) == 0 {
		return nil
	}
	oldRows, newRows := counts.RowsFromResults(old), counts.RowsFromResults(new)
	for _, t := range ts {
		if !hasUnit(oldRows, t.Unit) && !hasUnit(newRows, t.Unit) {
			return usagef("%s: -fail: condition %q: neither run has %s: count with deferbench run -measure instructions (docs/counts.md)", cmd, t.Text, t.Unit)
		}
	}
	vs := counts.Gate(oldRows, newRows, ts, unreadable)
	var pass, fail, better, missing, noSpread int
	var vanished []string // rows of OLD that NEW lacks from a scenario it counted
	for _, v := range vs {
		switch {
		case v.Status == counts.NoSpread:
			noSpread++
		case v.Status == counts.Fail:
			fail++
			fmt.Fprintf(e.stderr, "deferbench: %s: count gate: FAIL %s%s %s %s → %s (%+.2f%%, limit %.2f%%: max(%s, spreads %.2f%%))\n",
				cmd, isaTag(v.ISA), v.Name, v.Unit, results.Sig3(v.Old, false), results.Sig3(v.New, false), 100*v.Change, 100*v.Limit, v.Text, 100*v.Margin)
		case v.Status == counts.Missing:
			missing++
		case v.Status == counts.Vanished:
			vanished = append(vanished, isaTag(v.ISA)+v.Name)
		case v.Better:
			better++
			pass++
			fmt.Fprintf(e.stderr, "deferbench: %s: count gate: better %s%s %s %s → %s (%+.2f%%)\n",
				cmd, isaTag(v.ISA), v.Name, v.Unit, results.Sig3(v.Old, false), results.Sig3(v.New, false), 100*v.Change)
		default:
			pass++
		}
	}
	var texts []string
	for _, t := range ts {
		texts = append(texts, t.Text)
	}
	note := ""
	if missing > 0 {
		note = fmt.Sprintf(", %d on one side only (not gated)", missing)
	}
	if len(vanished) > 0 {
		note += fmt.Sprintf(", %d missing from NEW (not judged)", len(vanished))
	}
	if noSpread > 0 {
		// Not "N pass": a row without a spread was not judged.
		fmt.Fprintf(e.stderr, "deferbench: %s: count gate %s against the measured spread: inconclusive: %d of %d rows counted once on both sides, "+
			"no spread measured to judge them against (%s to 2 or more); %d judged: %d pass (%d better), %d fail%s\n",
			cmd, strings.Join(texts, ","), noSpread, len(vs)-missing, analysis.MoreSamplesOf(counts.InstrUnit), pass+fail, pass, better, fail, note)
	} else {
		fmt.Fprintf(e.stderr, "deferbench: %s: count gate %s against the measured spread: %d pass (%d better), %d fail%s\n",
			cmd, strings.Join(texts, ","), pass, better, fail, note)
	}
	if fail > 0 {
		return fmt.Errorf("%s: count %w: %d counted metrics worse beyond the -fail thresholds and their spread", cmd, analysis.ErrGateFailed, fail)
	}
	if n := len(vanished); n > 0 {
		return fmt.Errorf("%s: count %w: %d gated row(s) of OLD missing from NEW: %s (NEW counted their scenario and strategy, or skipped lines it could not read: stopped being counted, renamed, or unreadable; count them, or drop them from OLD if they were removed on purpose)",
			cmd, analysis.ErrGateInconclusive, n, results.FirstOf(vanished, 3))
	}
	if pass == 0 && noSpread == 0 {
		return fmt.Errorf("%s: count %w: no counted row is on both sides (%d on one side only: another ISA, scenario or strategy?), so nothing was judged", cmd, analysis.ErrGateInconclusive, missing)
	}
	if noSpread > 0 {
		return fmt.Errorf("%s: count %w: %d of %d gated rows were counted once on both sides, so no spread was measured to judge them against: %s to 2 or more",
			cmd, analysis.ErrGateInconclusive, noSpread, len(vs)-missing, analysis.MoreSamplesOf(counts.InstrUnit))
	}
	for _, side := range []struct {
		name string
		rs   []*benchfmt.Result
	}{{"OLD", old}, {"NEW", new}} {
		if p := results.Partial(side.rs); p != "" {
			return fmt.Errorf("%s: count %w: %s did not finish (%s): a gate passes only on complete runs, run it again to the end", cmd, analysis.ErrGateInconclusive, side.name, results.PartialText(p))
		}
	}
	return nil
}

// isaTag is "[pi4] " for an emulated ISA's row, "" for the host's.
func isaTag(isa string) string {
	if isa == "" {
		return ""
	}
	return "[" + isa + "] "
}

func hasUnit(rows []counts.Row, unit string) bool {
	for _, r := range rows {
		if _, ok := r.Get(unit); ok {
			return true
		}
	}
	return false
}

// abCountFail is ab's gate on counts when -measure has instructions and -fail is not given.
const abCountFail = "instr/op>0.5%"

// applyCountDefaults sets ab's defaults for a count-mode run m where the flags were not set:
// one round (counts do not move with the load, so alternating rounds buys nothing; -repeats
// gives the spread) when time is not measured, and a gate on instr/op added to -fail.
func applyCountDefaults(o *compareFlags, m rundir.Measure, set map[string]bool, rounds *int) {
	if !set["rounds"] && m.NoTime {
		*rounds = 1
	}
	if !set["fail"] {
		if m.NoTime {
			o.fail = abCountFail
		} else {
			o.fail += "," + abCountFail
		}
	}
}

// gateResult joins the time gate's outcome werr (write's error) with the count gate's cerr: a
// failure of either is the result (exit status 1), then any other error of write (an
// inconclusive time gate, exit status 3, or an output error), then cerr.
func gateResult(werr, cerr error) error {
	switch {
	case werr != nil && errors.Is(werr, analysis.ErrGateFailed):
		return werr
	case cerr != nil:
		return cerr
	}
	return werr
}
