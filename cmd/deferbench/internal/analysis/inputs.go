package analysis

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// CheckThresholdUnits refuses a threshold whose unit no result of the runs has (a typo such
// as "SEC/OP>5%" or "allocs>0"): such a gate could never fail. Any unit a result carries
// can be gated (ns/op, allocs/op, cmds/s, a count tier's instr/op); the error lists them.
func CheckThresholdUnits(ts []Threshold, runs ...[]*benchfmt.Result) error {
	have := map[string]bool{}
	var units []string
	for _, rs := range runs {
		for _, r := range rs {
			for _, v := range r.Values {
				// The rows carry the unit as the file writes it (MB/s), which the reader
				// tidies (B/s): both name the metric. Time is listed as sec/op.
				u := v.Unit
				if v.OrigUnit != "" && v.Unit != "sec/op" {
					u = v.OrigUnit
				}
				have[v.OrigUnit] = true
				if !have[u] {
					have[u] = true
					units = append(units, u)
				}
				have[v.Unit] = true
				if v.Unit == "sec/op" {
					have["ns/op"] = true // the reader's name for ns/op; thresholds use ns/op
				}
			}
		}
	}
	for _, t := range ts {
		if !have[t.Unit] {
			return fmt.Errorf("condition %q: neither run has a metric in %s (units: %s)", t.Text, t.Unit, strings.Join(units, ", "))
		}
	}
	return nil
}

// UnknownIgnore is a note on the -ignore keys that no result of the runs has (a typo such
// as "gos"), which change nothing; "" when every key is known (machine and * always are).
func UnknownIgnore(keys []string, runs ...[]*benchfmt.Result) string {
	have := map[string]bool{"machine": true, "*": true}
	var all []string
	for _, rs := range runs {
		for _, r := range rs {
			for _, c := range r.Config {
				if !have[c.Key] {
					have[c.Key] = true
					all = append(all, c.Key)
				}
			}
		}
	}
	var unknown []string
	for _, k := range keys {
		if !have[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	if len(all) == 0 {
		all = []string{"none"}
	}
	return fmt.Sprintf("-ignore %s: neither run has such a config key, so it changes nothing (keys: %s)", strings.Join(unknown, ","), strings.Join(all, ", "))
}
