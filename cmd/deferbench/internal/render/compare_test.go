package render

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"golang.org/x/perf/benchfmt"
)

// TestGateHolm: forty timing rows gated at once, as a default ab run gates. One row is 8%
// slower in 10 of 12 rounds (p ≈ 0.005 on its own: a false alarm that a gate without a
// correction for many rows raises in many A/A runs); one is 20% slower in every round
// (p = 0.0005); the rest are noise. After Holm's adjustment over the 40 tested rows only the
// real regression fails, and the gate says it adjusted and what it spared.
func TestGateHolm(t *testing.T) {
	const rounds = 12
	var old, new []*benchfmt.Result
	add := func(name string, f func(i int) float64) {
		var o, n []float64
		for i := range rounds {
			base := 100 + float64(i*7%13)
			o, n = append(o, base), append(n, base*f(i))
		}
		old = append(old, cfgResults("", name, "ns/op", o...)...)
		new = append(new, cfgResults("", name, "ns/op", n...)...)
	}
	add("Regressed", func(int) float64 { return 1.2 })
	add("Chance", func(i int) float64 {
		if i == 3 || i == 8 {
			return 0.99
		}
		return 1.08
	})
	for k := range 38 {
		add(fmt.Sprintf("Noise%d", k), func(i int) float64 { return 1 + 0.03*float64((i+k)%3-1) })
	}
	gate, _ := analysis.ParseThresholds("sec/op>5%")
	c := analysis.CompareRuns(old, new, analysis.CompareOptions{Paired: true, Thresholds: gate})
	rows := map[string]analysis.Row{}
	for _, r := range c.Rows {
		rows[r.Name] = r
	}
	chance, reg := rows["Chance"], rows["Regressed"]
	if !(chance.P < 0.05 && chance.Change > 0.05 && chance.Verdict == analysis.Worse) {
		t.Fatalf("test data: Chance is %s %+.1f%% at p %.4f; want worse beyond 5%% at p < 0.05 on its own", chance.Verdict, 100*chance.Change, chance.P)
	}
	if chance.Gate != "pass" || !(chance.PHolm >= 0.05) {
		t.Errorf("Chance: gate %s at Holm p %.4f; want pass", chance.Gate, chance.PHolm)
	}
	if reg.Gate != "fail" || !(reg.PHolm < 0.05) || math.Abs(reg.PHolm-40*reg.P) > 1e-12 {
		t.Errorf("Regressed: gate %s, p %.5f, Holm p %.5f; want fail at 40×p", reg.Gate, reg.P, reg.PHolm)
	}
	if c.Tested != 40 || c.Spared != 1 || c.Unreachable != 0 || len(c.Failed()) != 1 {
		t.Errorf("tested %d, spared %d, unreachable %d, failed %d; want 40, 1, 0, 1", c.Tested, c.Spared, c.Unreachable, len(c.Failed()))
	}
	// The spared row says so on its line, in both tables: its own p reads significant.
	for _, format := range []string{"text", "markdown"} {
		var b strings.Builder
		if err := WriteCompare(&b, format, &CompareDoc{Comparison: c, Fail: "sec/op>5%"}); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.Contains(l, "Chance") && !strings.Contains(l, "only at its own p (Holm-adjusted p=") {
				t.Errorf("%s: the spared row does not say why it passes: %s", format, l)
			}
		}
	}

	// With 10 rounds no row of 40 can reach 0.05/40: the gate must say so, not pass quietly.
	c = analysis.CompareRuns(trimRounds(old, rounds, 10), trimRounds(new, rounds, 10), analysis.CompareOptions{Paired: true, Thresholds: gate})
	if c.Tested == 0 || c.Unreachable != c.Tested || len(c.Failed()) != 0 {
		t.Errorf("10 rounds: tested %d, unreachable %d, failed %d; want every tested row unreachable, none failed", c.Tested, c.Unreachable, len(c.Failed()))
	}
	d := &CompareDoc{Comparison: c, Fail: "sec/op>5%"}
	var b strings.Builder
	if err := WriteCompare(&b, "text", d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no tested row could fail") {
		t.Errorf("10 rounds: the gate line does not say no row could fail:\n%s", b.String())
	}
}

// trimRounds keeps the first keep of every benchmark's per rounds results.
func trimRounds(rs []*benchfmt.Result, per, keep int) []*benchfmt.Result {
	var out []*benchfmt.Result
	for i, r := range rs {
		if i%per < keep {
			out = append(out, r)
		}
	}
	return out
}

// cfgResults builds results named name with the given values of unit (one result each).
func cfgResults(config string, name, unit string, vals ...float64) []*benchfmt.Result {
	var b strings.Builder
	b.WriteString(config)
	for _, v := range vals {
		fmt.Fprintf(&b, "Benchmark%s 100 %v %s\n", name, v, unit)
	}
	r := benchfmt.NewReader(strings.NewReader(b.String()), "x")
	var rs []*benchfmt.Result
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			rs = append(rs, res.Clone())
		}
	}
	return rs
}

// TestFmtChangeHuge: a change column stays a few characters however large the change is
// (1e308 ns/op against 100 printed a 309-digit percentage).
func TestFmtChangeHuge(t *testing.T) {
	for _, c := range []struct {
		change float64
		want   string
	}{{0.0523, "+5.23%"}, {-0.5, "-50.00%"}, {9.99, "+999.00%"}, {1e306, "+1e+308%"}, {12345, "+1.23e+06%"}} {
		r := analysis.Row{Significant: true, Change: c.change}
		r.Old.Median = 1
		if got := fmtChange(r); got != c.want {
			t.Errorf("change %v: %q, want %q", c.change, got, c.want)
		}
	}
}
