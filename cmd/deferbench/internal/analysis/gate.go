package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

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

// uTestMinP is the smallest two-sided p-value the Mann-Whitney U test can give for samples
// of n1 and n2 values without ties: 2 / C(n1+n2, n1), the two most extreme orderings.
func uTestMinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Min(1, 2*math.Exp(lg(n1)+lg(n2)-lg(n1+n2)))
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
		if r.Gate == GateFail && adj >= c.Alpha {
			r.Gate, r.Spared = GatePass, true
			c.Spared++
		}
		if float64(m)*minP(r) >= c.Alpha && r.Gate == GatePass && r.Verdict != Better {
			// No outcome of this row could have failed the gate: it was not judged.
			r.Gate = GateInconclusive
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
		row.Gate = GatePass
		if row.Verdict == NoVerdict {
			row.Gate = GateInconclusive
			return
		}
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
			row.Gate = GateFail
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

// increase is the signed change a row's verdict follows: with Method signed-rank the median
// of the per-round ratios (the medians of the two sides can move the other way), else the
// difference of the medians.
func increase(r Row) float64 {
	if r.Method == MethodPaired {
		return r.Change
	}
	return r.Diff
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
	// Gate: GateFail, GatePass or GateInconclusive when a threshold applies to Unit, else "".
	Gate      string `json:"gate,omitempty"`
	Threshold string `json:"threshold,omitempty"`
	// PHolm is P adjusted by Holm's method over the gate's tested rows (see
	// RunComparison.Tested); NaN for a row the gate did not test.
	PHolm float64 `json:"-"`
	// Spared: worse beyond the threshold and significant at its own P, but not at PHolm, so
	// the gate passes it (Gate is GatePass); the tables say so on the row.
	Spared bool `json:"spared,omitempty"`
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
	// NewSkipped is how many lines of NEW were skipped as not well-formed benchmark lines:
	// any of OLD's gated benchmarks could be among them, so none missing from NEW is taken
	// for a subset run (RunComparison.Vanished).
	NewSkipped int
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
	// Unmatched are the -fail conditions ("distinct-states>0") whose unit no compared row
	// has: a gated metric that matched nothing leaves the gate inconclusive, never passed.
	Unmatched []string
	// Vanished names the benchmarks OLD has a gated metric of and NEW lacks at every
	// GOMAXPROCS, though NEW ran their scenario and their strategy under the same
	// configuration: a benchmark that stopped running, was renamed, or whose every line NEW
	// could not read. Each leaves the gate inconclusive, never passed. (A scenario or a
	// strategy NEW did not run at all is a subset run, -scenarios or -strategies, and a
	// GOMAXPROCS its machine does not reach its sweep: noted, not gated.)
	Vanished []string
	// Unfinished names the sides whose run did not finish ("NEW (go test failed at
	// bench.txt:40: --- FAIL: BenchmarkX)"): an interrupted run, go test output with a
	// failure or a panic. The benchmarks such a run lacks went unjudged, and a crash can hide
	// a regression: a gate over it is inconclusive, never passed. The caller sets it.
	Unfinished []string
}

// Gate results, of a Row and of a whole comparison (RunComparison.Gate).
const (
	GatePass = "pass" // judged, and not worse beyond the threshold
	GateFail = "fail" // worse beyond the threshold, and significant after the adjustment
	// GateInconclusive: the gate could not judge the row: it has no verdict (too few
	// samples, a test that could not run), or no outcome of its test could have failed the
	// gate. A comparison is inconclusive when no row fails and some gated row is.
	GateInconclusive = "inconclusive"
	GateNone         = "none" // no threshold given
)

// Errors of RunComparison.GateErr.
var (
	ErrGateFailed       = errors.New("gate failed")
	ErrGateInconclusive = errors.New("gate inconclusive")
)

// Failed returns the rows that fail the gate.
func (c *RunComparison) Failed() []Row { return c.gated(GateFail) }

// Inconclusive returns the gated rows the gate could not judge (GateInconclusive).
func (c *RunComparison) Inconclusive() []Row { return c.gated(GateInconclusive) }

// Gated returns how many rows a threshold applied to.
func (c *RunComparison) Gated() int {
	n := 0
	for _, r := range c.Rows {
		if r.Gate != "" {
			n++
		}
	}
	return n
}

func (c *RunComparison) gated(result string) []Row {
	var out []Row
	for _, r := range c.Rows {
		if r.Gate == result {
			out = append(out, r)
		}
	}
	return out
}

// Gate returns the gate's result over every row: GateNone when gated is false (no
// threshold given), GateFail when a row fails, else GateInconclusive when a gated row could
// not be judged, a gated metric matched no row (Unmatched), a gated benchmark of OLD is
// missing from NEW (Vanished) or a side did not finish (Unfinished), else GatePass. A pass therefore means every gated metric matched and every
// gated row of two complete runs was judged.
func (c *RunComparison) Gate(gated bool) string {
	switch {
	case !gated:
		return GateNone
	case len(c.Failed()) > 0:
		return GateFail
	case len(c.Inconclusive()) > 0 || len(c.Unmatched) > 0 || len(c.Vanished) > 0 || len(c.Unfinished) > 0:
		return GateInconclusive
	}
	return GatePass
}

// MoreSamples names the fix for too few samples, per command that takes the samples:
// deferbench compare reads what deferbench run or go test wrote, deferbench ab runs rounds;
// a counted unit's samples are a row's repeated counts.
const MoreSamples = "raise -count (deferbench run, go test) or -rounds (deferbench ab); -repeats for counted units such as instr/op"

// MoreSamplesOf is MoreSamples for one unit: a count tier unit (instr/op, …) takes its
// samples from -repeats, a timed one from -count or -rounds.
func MoreSamplesOf(unit string) string {
	if counts.IsCountUnit(unit) {
		return "raise -repeats (deferbench run or ab, with -measure instructions)"
	}
	return "raise -count (deferbench run, go test) or -rounds (deferbench ab)"
}

// GateErr returns nil when the gate passed (or gated is false), an error wrapping
// ErrGateFailed when a row failed, and one wrapping ErrGateInconclusive when no row failed
// but some gated row could not be judged; the message counts the rows.
func (c *RunComparison) GateErr(gated bool) error {
	switch c.Gate(gated) {
	case GateFail:
		return fmt.Errorf("%w: %s worse beyond the -fail thresholds (of %d gated)", ErrGateFailed, metrics(len(c.Failed())), c.Gated())
	case GateInconclusive:
		if n := len(c.Inconclusive()); n > 0 {
			return fmt.Errorf("%w: %s of %d gated could not be judged (too few samples), none failed%s: %s", ErrGateInconclusive, metrics(n), c.Gated(), c.UnmatchedClause(), MoreSamples)
		}
		return fmt.Errorf("%w: none of %d gated failed%s", ErrGateInconclusive, c.Gated(), c.UnmatchedClause())
	}
	return nil
}

// UnmatchedClause names the gated metrics that matched no row and the sides that did not
// finish, as clauses ("" for none): "; -fail distinct-states>0 matched no row (a run without
// that benchmark, or other names: check -ignore, -ignore-procs)", "; NEW (…) did not finish:
// run it again to the end".
func (c *RunComparison) UnmatchedClause() string {
	s := ""
	if len(c.Unmatched) > 0 {
		s = fmt.Sprintf("; -fail %s matched no row (a run without those benchmarks, or names that differ: check the run and -ignore, -ignore-procs)", strings.Join(c.Unmatched, ","))
	}
	if n := len(c.Vanished); n > 0 {
		s += fmt.Sprintf("; %d gated benchmark(s) of OLD missing from NEW: %s (NEW ran their scenario and strategy, or skipped lines it could not read: stopped running, renamed, or unreadable; run them, or drop them from OLD if they were removed on purpose)",
			n, results.FirstOf(c.Vanished, 3))
	}
	if len(c.Unfinished) > 0 {
		s += fmt.Sprintf("; %s did not finish: a gate passes only on complete runs, run it again to the end", strings.Join(c.Unfinished, " and "))
	}
	return s
}

func metrics(n int) string {
	if n == 1 {
		return "1 metric"
	}
	return fmt.Sprintf("%d metrics", n)
}
