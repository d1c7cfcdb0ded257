package analysis

import (
	"fmt"
	"slices"
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
// as "gos"), which change nothing, naming the nearest known key for each where one is close
// ("machines": did you mean machine?); "" when every key is known (machine and * always are).
func UnknownIgnore(keys []string, runs ...[]*benchfmt.Result) string {
	have := map[string]bool{"machine": true, "*": true}
	all := []string{"machine", "*"}
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
	var unknown, near []string
	for _, k := range keys {
		if !have[k] {
			unknown = append(unknown, k)
			if n := nearest(k, all); n != "" && !slices.Contains(near, n) {
				near = append(near, n)
			}
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	mean := ""
	if len(near) > 0 {
		mean = "; did you mean " + strings.Join(near, ",") + "?"
	}
	return fmt.Sprintf("-ignore %s: neither run has such a config key, so it changes nothing%s (keys: %s)", strings.Join(unknown, ","), mean, strings.Join(all, ", "))
}

// nearest returns the key of keys closest to k by edit distance, when it is within a third
// of k's length (at least 1): a typo's likely meaning; "" when none is that close.
func nearest(k string, keys []string) string {
	best, bestD := "", max(1, len(k)/3)+1
	for _, c := range keys {
		if d := editDistance(strings.ToLower(k), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
