package results

import (
	"regexp"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Partial is the PartialKey configuration of results (why their run is incomplete), "" for
// a complete run.
func Partial(results []*benchfmt.Result) string {
	for _, r := range results {
		for _, c := range r.Config {
			if c.Key == PartialKey && len(c.Value) > 0 {
				return string(c.Value)
			}
		}
	}
	return ""
}

var legacyPartial = regexp.MustCompile(`^(\d+) of (\d+)(?: benchmarks)?:?\s*(.*)$`)

// PartialText turns the value of bench.txt's PartialKey config into one short line:
// "partial: 3 of 315 benchmarks finished (interrupted)". It takes the value as it is ("3 of
// 315 benchmarks finished (interrupted)") and rewrites the older form "true (3 of 315
// benchmarks: interrupted)".
func PartialText(v string) string {
	v = strings.TrimSpace(v)
	if rest, ok := strings.CutPrefix(v, "true"); ok {
		v = strings.TrimSpace(rest)
		if strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") {
			v = v[1 : len(v)-1]
		}
	}
	if v == "" {
		return "partial"
	}
	if m := legacyPartial.FindStringSubmatch(v); m != nil && !strings.Contains(v, "finished") {
		v = m[1] + " of " + m[2] + " benchmarks finished"
		if m[3] != "" {
			v += " (" + m[3] + ")"
		}
	}
	return "partial: " + v
}
