package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// annotationKeys are configuration keys that describe how a run went or what was measured,
// not the machine or its settings: results that differ only in these are compared.
var annotationKeys = map[string]bool{
	results.PartialKey: true,
	"deferbench":       true, // the version under test: two builds are what an A/B compares
	"throttled":        true, // noted instead (see CompareRuns)
	"under-voltage":    true,
}

// MachineKeys are the configuration keys that describe a machine by nature (and so always
// differ between two machines); "-ignore machine" stands for them. emulated is not one of
// them: an emulated run is never compared with a real one unless named.
var MachineKeys = []string{"goarch", "cpu", "host-model", "kernel", "governor", "lse-atomics", "page-size"}

// Threshold is one gate condition: a metric in Unit that gets worse by more than Value
// (a fraction when Relative, else an absolute amount in the unit as written in the file, ns
// for sec/op) fails the gate.
type Threshold struct {
	Unit     string  `json:"unit"`
	Value    float64 `json:"value"`
	Relative bool    `json:"relative"`
	Text     string  `json:"text"` // as given: "sec/op>5%"
}

// ParseThresholds parses a gate: comma-separated unit>N% (relative) or unit>N (absolute)
// conditions, e.g. "sec/op>5%,allocs/op>0,B/op>0". sec/op and ns/op name the same metric.
func ParseThresholds(s string) ([]Threshold, error) {
	var out []Threshold
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("empty condition in %q (want unit>N%% or unit>N, e.g. sec/op>5%%,allocs/op>0)", s)
		}
		u, v, ok := strings.Cut(f, ">")
		u, v = strings.TrimSpace(u), strings.TrimSpace(v)
		if !ok || u == "" || strings.ContainsAny(u, " <>=") {
			return nil, fmt.Errorf("condition %q: want unit>N%% or unit>N, e.g. sec/op>5%%", f)
		}
		t := Threshold{Unit: results.CanonUnit(u), Text: f}
		if num, pct := strings.CutSuffix(v, "%"); pct {
			t.Relative, v = true, num
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fmt.Errorf("condition %q: want a finite number ≥ 0 after >, got %q", f, v)
		}
		if t.Relative {
			x /= 100
		}
		t.Value = x
		if seen[t.Unit] {
			return nil, fmt.Errorf("condition %q: a second threshold for %s", f, u)
		}
		seen[t.Unit] = true
		out = append(out, t)
	}
	return out, nil
}

// Verdicts of a Row.
const (
	Worse     = "worse"
	Better    = "better"
	Unchanged = "unchanged" // no significant change, or one within the unit's tolerance
	NoVerdict = "unknown"   // too few samples to tell, or all values equal in a test
)

// Methods of a Row.
const (
	MethodUTest  = "u-test"      // Mann-Whitney U test on the two samples
	MethodPaired = "signed-rank" // Wilcoxon signed-rank test on per-round log ratios
	MethodExact  = "exact"       // deterministic counts whose samples all agree
)

// Row is one metric of one benchmark compared between two runs.
type Row struct {
	Name   string          `json:"name"`
	Unit   string          `json:"unit"`
	Config string          `json:"config,omitempty"` // the configuration, when the runs hold several
	Old    results.Summary `json:"old"`
	New    results.Summary `json:"new"`
	// Change is the relative change of the median, New/Old − 1 (with Method signed-rank: the
	// median of the per-round ratios − 1); NaN when Old's median is 0.
	Change float64 `json:"-"`
	// Ratio, with Method signed-rank: the median per-round ratio New/Old and its 95% CI.
	Ratio *results.Summary `json:"ratio,omitempty"`
	Diff  float64          `json:"diff"` // New.Median − Old.Median, in Unit
	// P is the test's p-value; NaN with Method exact.
	P           float64 `json:"-"`
	Method      string  `json:"method"`
	Significant bool    `json:"significant"`
	Verdict     string  `json:"verdict"`
	Note        string  `json:"note,omitempty"` // why there is no verdict
	// Gate: "fail" or "pass" when a threshold applies to Unit, else "".
	Gate      string `json:"gate,omitempty"`
	Threshold string `json:"threshold,omitempty"`
	// PHolm is P adjusted by Holm's method over the gate's tested rows (see
	// RunComparison.Tested); NaN for a row the gate did not test.
	PHolm float64 `json:"-"`
}

// CompareOptions says how CompareRuns compares.
type CompareOptions struct {
	Alpha float64 // significance level, 0 means 0.05
	// Ignore lists configuration keys along which results are compared although their values
	// differ ("machine" stands for MachineKeys).
	Ignore []string
	// Paired pairs the i-th sample of a metric in old with the i-th in new (rounds of an A/B
	// run) and tests the per-round ratios; a metric whose sample counts differ falls back to
	// the U test.
	Paired     bool
	Thresholds []Threshold
}

// RunComparison is the outcome of CompareRuns.
type RunComparison struct {
	Rows []Row
	// Notes are what the caller should say on stderr: configurations kept apart, pooled
	// configurations the user asked for, throttled runs, thresholds matching no row.
	Notes []string
	// Differ are the configuration keys whose values differ between or inside the runs and
	// were kept apart; Hint is the -ignore value that would compare across them.
	Differ []string
	Hint   string
	// Labels name the sides by the configuration value that tells them apart, when the user
	// compares across machines (-ignore): "amd64" vs "arm64", or the boards' models.
	OldLabel, NewLabel string
	Alpha              float64
	Method             string
	// Tested is how many gated rows were judged by a test (not exact counts): the family
	// over which the gate's p-values are Holm-adjusted. Unreachable is how many of them
	// could not fail the gate at any outcome, because their smallest possible p-value times
	// the family size is at least Alpha; Spared is how many were worse beyond their threshold
	// and significant on their own, but not after the adjustment.
	Tested, Unreachable, Spared int
}

// Failed returns the rows that fail the gate.
func (c *RunComparison) Failed() []Row {
	var out []Row
	for _, r := range c.Rows {
		if r.Gate == "fail" {
			out = append(out, r)
		}
	}
	return out
}

// ExpandIgnore turns an -ignore list into the set of keys, expanding "machine"; "*" ignores
// every key (expectations that hold on any machine).
func ExpandIgnore(keys []string) map[string]bool {
	out := map[string]bool{}
	for _, k := range keys {
		if k == "machine" {
			for _, m := range MachineKeys {
				out[m] = true
			}
			continue
		}
		out[k] = true
	}
	return out
}

// config is the identity of a result: its configuration minus annotations and ignored keys.
type config struct {
	id   string
	vals map[string]string
}

func configOf(r *benchfmt.Result, ignore map[string]bool) config {
	vals := map[string]string{}
	for _, c := range r.Config {
		if annotationKeys[c.Key] || results.IsCapabilityKey(c.Key) || ignore[c.Key] || ignore["*"] || len(c.Value) == 0 {
			continue
		}
		vals[c.Key] = string(c.Value)
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + vals[k] + "\x00")
	}
	return config{b.String(), vals}
}

// fullConfig is every non-annotation key of r, for labels and notes.
func fullConfig(rs []*benchfmt.Result) map[string][]string {
	out := map[string][]string{}
	for _, r := range rs {
		for _, c := range r.Config {
			if len(c.Value) == 0 || annotationKeys[c.Key] || results.IsCapabilityKey(c.Key) {
				continue
			}
			v := string(c.Value)
			if !contains(out[c.Key], v) {
				out[c.Key] = append(out[c.Key], v)
			}
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// gkey identifies one metric of one benchmark under one configuration.
type gkey struct{ cfg, name, unit string }

type sideData struct {
	order []gkey
	vals  map[gkey][]float64
	cfgs  map[string]config
}

func gather(rs []*benchfmt.Result, ignore map[string]bool) sideData {
	d := sideData{vals: map[gkey][]float64{}, cfgs: map[string]config{}}
	for _, r := range rs {
		c := configOf(r, ignore)
		d.cfgs[c.id] = c
		for _, v := range r.Values {
			x, u := results.UnitValue(v)
			k := gkey{c.id, string(r.Name), u}
			if _, ok := d.vals[k]; !ok {
				d.order = append(d.order, k)
			}
			d.vals[k] = append(d.vals[k], x)
		}
	}
	return d
}

// differing returns the keys whose values differ among cfgs (a missing key counts as a value).
func differing(cfgs ...config) []string {
	keys := map[string]bool{}
	for _, c := range cfgs {
		for k := range c.vals {
			keys[k] = true
		}
	}
	var out []string
	for k := range keys {
		v, ok := cfgs[0].vals[k]
		for _, c := range cfgs[1:] {
			if w, ok2 := c.vals[k]; ok2 != ok || w != v {
				out = append(out, k)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func valuesOf(key string, cfgs []config) string {
	var vs []string
	for _, c := range cfgs {
		v, ok := c.vals[key]
		if !ok {
			v = "(none)"
		}
		if !contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, " / ")
}

func sortedCfgs(m map[string]config) []config {
	out := make([]config, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// CompareRuns compares every metric present in both old and new under the same
// configuration. Results whose configurations differ (cpu, goarch, host-model, kernel,
// emulated, … every key except the annotations partial, deferbench, throttled and
// under-voltage), between the runs or inside one, are kept apart and named in Notes and
// Differ, unless opt.Ignore names the keys. Deterministic counts (allocs/op, B/op,
// distinct-states) whose samples all agree within Tolerance are compared exactly; the
// rest with the Mann-Whitney U test, or with opt.Paired the Wilcoxon signed-rank test
// on per-round ratios, at opt.Alpha. Each row gets a verdict and, when a threshold names its
// unit, a gate result. The inputs must have passed CheckResult (ReadResults checks).
func CompareRuns(old, new []*benchfmt.Result, opt CompareOptions) *RunComparison {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	ignore := ExpandIgnore(opt.Ignore)
	od, nd := gather(old, ignore), gather(new, ignore)
	c := &RunComparison{Alpha: opt.Alpha, Method: MethodUTest}
	if opt.Paired {
		c.Method = MethodPaired
	}

	// Configurations kept apart.
	all := map[string]config{}
	for id, cf := range od.cfgs {
		all[id] = cf
	}
	for id, cf := range nd.cfgs {
		all[id] = cf
	}
	if len(all) > 1 {
		// OLD's configurations first, so that "OLD and NEW differ in kernel (a / b)" names
		// OLD's value first.
		cfgs := sortedCfgs(od.cfgs)
		for _, cf := range sortedCfgs(nd.cfgs) {
			if _, ok := od.cfgs[cf.id]; !ok {
				cfgs = append(cfgs, cf)
			}
		}
		c.Differ = differing(cfgs...)
		var parts []string
		for _, k := range c.Differ {
			parts = append(parts, fmt.Sprintf("%s (%s)", k, valuesOf(k, cfgs)))
		}
		where := "OLD and NEW differ in"
		switch {
		case len(od.cfgs) > 1 && len(nd.cfgs) > 1:
			where = "OLD and NEW each mix results that differ in"
		case len(od.cfgs) > 1:
			where = "OLD mixes results that differ in"
		case len(nd.cfgs) > 1:
			where = "NEW mixes results that differ in"
		}
		hint := append([]string{}, opt.Ignore...)
		if machineOnly(c.Differ) {
			hint = append(hint, "machine")
		} else {
			hint = append(hint, c.Differ...)
		}
		c.Hint = strings.Join(hint, ",")
		c.Notes = append(c.Notes, fmt.Sprintf("%s %s: kept apart, never pooled; to compare across them, add -ignore %s",
			where, strings.Join(parts, ", "), c.Hint))
	}
	// Configurations pooled on request: say what was pooled inside one run.
	for _, in := range []struct {
		name string
		rs   []*benchfmt.Result
	}{{"OLD", old}, {"NEW", new}} {
		var mixed []string
		for k, vs := range fullConfig(in.rs) {
			if (ignore[k] || ignore["*"]) && len(vs) > 1 {
				mixed = append(mixed, fmt.Sprintf("%s (%s)", k, strings.Join(vs, " / ")))
			}
		}
		sort.Strings(mixed)
		if len(mixed) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s mixes results that differ in %s: pooled, as -ignore asks", in.name, strings.Join(mixed, ", ")))
		}
		if th := annotation(in.rs, "throttled"); th == "yes" {
			c.Notes = append(c.Notes, in.name+" was throttled during its run (throttled: yes): its timings are suspect")
		}
	}
	c.OldLabel, c.NewLabel = sideLabels(old, new, ignore)

	multi := len(all) > 1
	for _, k := range od.order {
		nv, ok := nd.vals[k]
		if !ok {
			continue
		}
		row := compareRow(k.name, k.unit, od.vals[k], nv, opt)
		if multi {
			row.Config = configLabel(all[k.cfg], c.Differ)
		}
		gate(&row, opt.Thresholds)
		c.Rows = append(c.Rows, row)
	}
	c.holm()
	for _, t := range opt.Thresholds {
		found := false
		for _, r := range c.Rows {
			if r.Unit == t.Unit {
				found = true
				break
			}
		}
		if !found && len(c.Rows) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("-fail %s: no compared metric is in %s", t.Text, t.Unit))
		}
	}
	return c
}

// annotation returns the value of annotation key in rs ("" when absent).
func annotation(rs []*benchfmt.Result, key string) string {
	for _, r := range rs {
		for _, c := range r.Config {
			if c.Key == key && len(c.Value) > 0 {
				return string(c.Value)
			}
		}
	}
	return ""
}

// sideLabels names the two sides by the ignored key that tells them apart, preferring
// goarch, then host-model, then cpu; "" when none does.
func sideLabels(old, new []*benchfmt.Result, ignore map[string]bool) (string, string) {
	of, nf := fullConfig(old), fullConfig(new)
	for _, k := range []string{"goarch", "host-model", "cpu"} {
		if !(ignore[k] || ignore["*"]) || len(of[k]) != 1 || len(nf[k]) != 1 || of[k][0] == nf[k][0] {
			continue
		}
		return of[k][0], nf[k][0]
	}
	return "", ""
}

func configLabel(c config, keys []string) string {
	var parts []string
	for _, k := range keys {
		v, ok := c.vals[k]
		if !ok {
			v = "(none)"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// agree reports whether all of xs lie within tol of each other.
func agree(xs []float64, tol float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return hi-lo <= tol
}

func summarize(name, unit string, xs []float64) results.Summary {
	s := newSample(xs, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	row := results.Summary{Name: name, Unit: unit, N: len(xs), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
	if math.IsInf(row.Lo, 0) || math.IsNaN(row.Lo) || math.IsInf(row.Hi, 0) || math.IsNaN(row.Hi) {
		row.Lo, row.Hi, row.NoCI = row.Median, row.Median, true
	}
	return row
}

func compareRow(name, unit string, ov, nv []float64, opt CompareOptions) Row {
	row := Row{Name: name, Unit: unit, Old: summarize(name, unit, ov), New: summarize(name, unit, nv), P: math.NaN(), Change: math.NaN()}
	row.Diff = row.New.Median - row.Old.Median
	if row.Old.Median != 0 {
		row.Change = row.New.Median/row.Old.Median - 1
	}
	tol := results.Tolerance(unit)
	switch {
	case results.Deterministic(unit) && agree(ov, tol) && agree(nv, tol):
		row.Method = MethodExact
		row.Significant = math.Abs(row.Diff) > tol
	case opt.Paired && len(ov) == len(nv) && allPositive(ov) && allPositive(nv):
		row.Method = MethodPaired
		ratios := make([]float64, len(ov))
		logs := make([]float64, len(ov))
		for i := range ov {
			ratios[i] = nv[i] / ov[i]
			logs[i] = math.Log(ratios[i])
		}
		rs := summarize(name, unit, ratios)
		row.Ratio = &rs
		row.Change = rs.Median - 1
		p, n := SignedRankP(logs)
		row.P = p
		if signedRankMinP(n) > opt.Alpha {
			row.Note = fmt.Sprintf("need ≥ %d rounds with a difference to detect one at alpha %v", signedRankNeed(opt.Alpha), opt.Alpha)
		}
		row.Significant = p < opt.Alpha
	default:
		row.Method = MethodUTest
		th := benchmath.DefaultThresholds
		th.CompareAlpha = opt.Alpha
		cmp := benchmath.AssumeNothing.Compare(newSample(ov, &th), newSample(nv, &th))
		row.P = uTestP(cmp.P)
		if len(cmp.Warnings) > 0 && errors.Is(cmp.Warnings[0], stats.ErrSamplesEqual) {
			break // every value on both sides the same: no change, nothing to test
		}
		if len(cmp.Warnings) > 0 {
			row.Note = cmp.Warnings[0].Error()
		} else if minP := uTestMinP(len(ov), len(nv)); cmp.P >= opt.Alpha && minP > opt.Alpha {
			// benchmath warns only when both sides are small; 6 samples against 1 cannot
			// show a difference either (smallest p 2/7), so "unchanged" would be a guess.
			row.Note = fmt.Sprintf("%d+%d samples cannot show a difference at alpha %v (smallest possible p %.2g): raise -count", len(ov), len(nv), opt.Alpha, minP)
		}
		row.Significant = cmp.P < cmp.Alpha && len(cmp.Warnings) == 0
	}
	if row.Significant && math.Abs(row.Diff) <= tol {
		row.Significant = false // a real but amortised change: below the unit's resolution
	}
	switch {
	case row.Note != "":
		row.Verdict = NoVerdict
	case !row.Significant:
		row.Verdict = Unchanged
	case (increase(row) > 0) != results.HigherIsBetter(unit):
		row.Verdict = Worse
	default:
		row.Verdict = Better
	}
	return row
}

// uTestMinP is the smallest two-sided p-value the Mann-Whitney U test can give for samples
// of n1 and n2 values without ties: 2 / C(n1+n2, n1), the two most extreme orderings.
func uTestMinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Min(1, 2*math.Exp(lg(n1)+lg(n2)-lg(n1+n2)))
}

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return true
}

// holm adjusts the gate for testing many rows at once (Holm 1979, the step-down Bonferroni
// method): a row that a test judged worse beyond its threshold fails the gate only when its
// Holm-adjusted p-value, over every gated row judged by a test, is below Alpha. The chance
// that an unchanged build fails the gate is then at most Alpha, however many rows are gated;
// without it, 40 timing rows at alpha 0.05 each fail on noise in many runs. Rows compared
// exactly (counts whose samples agree) are not tests and are not adjusted.
func (c *RunComparison) holm() {
	var idx []int
	for i := range c.Rows {
		r := &c.Rows[i]
		r.PHolm = math.NaN()
		if r.Gate != "" && r.Method != MethodExact && r.Verdict != NoVerdict && !math.IsNaN(r.P) {
			idx = append(idx, i)
		}
	}
	m := len(idx)
	c.Tested = m
	sort.SliceStable(idx, func(a, b int) bool { return c.Rows[idx[a]].P < c.Rows[idx[b]].P })
	adj := 0.0
	for k, i := range idx {
		r := &c.Rows[i]
		adj = math.Max(adj, math.Min(1, float64(m-k)*r.P))
		r.PHolm = adj
		if float64(m)*minP(r) >= c.Alpha {
			c.Unreachable++
		}
		if r.Gate == "fail" && adj >= c.Alpha {
			r.Gate = "pass"
			c.Spared++
		}
	}
}

// minP is the smallest p-value row's test could have given at its sample sizes.
func minP(r *Row) float64 {
	if r.Method == MethodPaired {
		return signedRankMinP(r.Old.N)
	}
	return uTestMinP(r.Old.N, r.New.N)
}

// gate applies the threshold for row's unit, if any.
func gate(row *Row, ts []Threshold) {
	for _, t := range ts {
		if t.Unit != row.Unit {
			continue
		}
		row.Threshold = t.Text
		row.Gate = "pass"
		if row.Verdict != Worse {
			return
		}
		worse := math.Abs(row.Diff)
		if t.Relative {
			if row.Old.Median != 0 {
				worse = math.Abs(row.Change)
			} else {
				worse = math.Inf(1) // 0 → non-zero: beyond any relative threshold
			}
		}
		if worse > t.Value {
			row.Gate = "fail"
		}
		return
	}
}

// SignedRankP returns the two-sided p-value of the Wilcoxon signed-rank test that the
// differences d are centred on 0, and the number of non-zero differences it used. Zero
// differences are dropped and ties get their average rank; the p-value is exact (the
// permutation distribution of the signs, ties included) up to 50 differences and from the
// normal approximation with tie and continuity corrections beyond. With no non-zero
// difference p is 1.
func SignedRankP(d []float64) (p float64, n int) {
	type v struct {
		abs float64
		pos bool
	}
	var xs []v
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			xs = append(xs, v{math.Abs(x), x > 0})
		}
	}
	n = len(xs)
	if n == 0 {
		return 1, 0
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].abs < xs[j].abs })
	ranks2 := make([]int, n) // doubled ranks: integers even with ties
	tie := 0.0
	for i := 0; i < n; {
		j := i
		for j < n && xs[j].abs == xs[i].abs {
			j++
		}
		for k := i; k < j; k++ {
			ranks2[k] = i + 1 + j
		}
		if t := float64(j - i); t > 1 {
			tie += t*t*t - t
		}
		i = j
	}
	w2 := 0
	for i, x := range xs {
		if x.pos {
			w2 += ranks2[i]
		}
	}
	if n <= 50 {
		total := n * (n + 1)
		cnt := make([]float64, total+1)
		cnt[0] = 1
		for _, r := range ranks2 {
			for s := total; s >= r; s-- {
				cnt[s] += cnt[s-r]
			}
		}
		var le, ge float64
		for s, k := range cnt {
			if s <= w2 {
				le += k
			}
			if s >= w2 {
				ge += k
			}
		}
		return math.Min(1, 2*math.Min(le, ge)/math.Ldexp(1, n)), n
	}
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	sd := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tie/48)
	z := float64(w2)/2 - mean
	if sd == 0 {
		return 1, n
	}
	z = (math.Abs(z) - 0.5) / sd
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2)), n
}

// uTestP is a two-sided p-value of benchmath's Mann-Whitney U test, at most 1: with ties,
// its exact two-sided p doubles a one-sided tail that already holds more than half the
// distribution (6 samples against 5 of them: p = 1.013).
func uTestP(p float64) float64 { return math.Min(p, 1) }

// signedRankMinP is the smallest two-sided p-value the signed-rank test reaches with n
// differences: all of one sign.
func signedRankMinP(n int) float64 { return math.Min(1, 2*math.Ldexp(1, -n)) }

// signedRankNeed is the fewest differences with which the signed-rank test can reach alpha.
func signedRankNeed(alpha float64) int {
	n := 1
	for signedRankMinP(n) > alpha && n < 64 {
		n++
	}
	return n
}

// machineOnly reports whether every key is one of MachineKeys.
func machineOnly(keys []string) bool {
	for _, k := range keys {
		if !contains(MachineKeys, k) {
			return false
		}
	}
	return len(keys) > 0
}

// increase is the signed change a row's verdict follows: with Method signed-rank the median
// of the per-round ratios (the medians of the two sides can move the other way), else the
// difference of the medians.
func increase(r Row) float64 {
	if r.Method == MethodPaired {
		return r.Change
	}
	return r.Diff
}
