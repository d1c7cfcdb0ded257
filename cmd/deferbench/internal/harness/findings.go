package harness

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Headline is one metric the report's Findings rank the strategies by. A scenario declares
// its headlines (Scenario.Headlines); one that declares none is ranked by ns/op in every
// variant.
type Headline struct {
	// Unit is the metric's unit as bench.txt writes it: "ns/op", "allocs/op", "efficiency".
	Unit string
	// Higher: a higher value is better (efficiency, throughput); otherwise lower is.
	Higher bool
	// Where keeps the rows whose name has these key=value parameters; the value NumCPU
	// stands for the run's NumCPU (or, when no row has it, the largest value below it). Rows
	// left are ranked one by one.
	Where []Param
	// AtNumCPU keeps the rows at GOMAXPROCS = NumCPU (or the largest GOMAXPROCS below it).
	AtNumCPU bool
	// Need, when set, makes the headline answer a row of the report's "Which to pick": the
	// requirement a user has, with {key} replaced by the row's parameter ("lowest frame
	// time at {entities} entities") and {GOMAXPROCS} by the row's GOMAXPROCS.
	Need string
	// Meets, when set, decides from a strategy's samples whether it meets Need (all zero,
	// say); nil means the strategies of the best group: those noise cannot separate from the
	// best.
	Meets func(samples []float64) bool
	// Requires, when set, is the declared property Need rests on: whether the strategy's
	// traits have it, and the words that say so.
	Requires func(t Traits) (ok bool, why string)
}

// Traits is what a strategy declares about itself, read from an instance: the
// deferral.Capabilities it returns and how reads of its target relate to staging.
type Traits struct {
	Caps deferral.Capabilities
	// ReadsWaitForStaged: a read can wait behind staged writes (lazyguarded's ReadersWait
	// pipe). Other strategies' readers never wait for staging: they wait for a commit at a
	// sync point, or, with Capabilities.ReadsPreviousVersion, not even for that.
	ReadsWaitForStaged bool
	// Reads says in words how reads relate to staging and commit.
	Reads string
}

// Traits returns s's declared traits, from an instance over an empty world; ok is false for
// the baseline and for strategies not in the table.
func StrategyTraits(name string) (t Traits, ok bool) {
	for _, s := range Strategies {
		if s.Name != name || s.Factory == nil {
			continue
		}
		st := s.Factory(ecs.NewWorld())
		defer st.Close()
		t.Caps = st.Capabilities()
		t.Reads = "reads touch the world directly: staging never blocks them; they wait only for a commit at a sync point"
		if t.Caps.ReadsPreviousVersion {
			t.Reads = "declares ReadsPreviousVersion: reads see the last published version and never wait for staging or a commit"
		} else if g, ok := st.(interface {
			Guarded() *lazyguarded.Guarded[ecs.World]
		}); ok {
			if g.Guarded().Mode() == lazyguarded.ReadersWait {
				t.ReadsWaitForStaged = true
				t.Reads = "reads queue on the target's pipe behind parked writes (" + g.Guarded().Mode().String() + ")"
			} else {
				t.Reads = "reads pass parked writes and see the state before them (" + g.Guarded().Mode().String() + ", stale reads)"
			}
		}
		return t, true
	}
	return t, false
}

// isControl reports whether name is a row that measures the harness, not a strategy.
func isControl(name string) bool {
	for _, s := range Strategies {
		if s.Name == name {
			return controlOf(s) != ""
		}
	}
	return false
}

// headlinesOf returns the headlines of scenario sc: its declared ones, or ns/op per variant
// for a scenario without any (or not in the table: a bench.txt of another version).
func headlinesOf(sc string) []Headline {
	for _, s := range Scenarios {
		if s.Name == sc && len(s.Headlines) > 0 {
			return s.Headlines
		}
	}
	return []Headline{{Unit: "ns/op"}}
}

// obs is one sample: its value and the index of its result in the input, which tells the
// repetition order.
type obs struct {
	v   float64
	pos int
}

// rowID is one row of a scenario: its parameters (without the strategy) and GOMAXPROCS.
type rowID struct {
	scenario, variant string
	procs             int
}

// runData is a run's samples by row, strategy and unit.
type runData struct {
	scenarios  []string
	rows       map[string][]rowID    // scenario → rows, first-seen order
	params     map[rowID][]Param     // the row's parameters
	strategies map[rowID][]string    // strategies of a row, first-seen order
	samples    map[sampleKey][]obs   // in input order
	units      map[string]bool       // every unit seen
	procsSeen  map[int]int           // GOMAXPROCS → results
	byName     map[string]parsedName // full name → parsed
}

type sampleKey struct {
	row      rowID
	strategy string
	unit     string
}

func newRunData(results []*benchfmt.Result) *runData {
	d := &runData{rows: map[string][]rowID{}, params: map[rowID][]Param{}, strategies: map[rowID][]string{},
		samples: map[sampleKey][]obs{}, units: map[string]bool{}, procsSeen: map[int]int{}, byName: map[string]parsedName{}}
	seen := map[string]bool{}
	for i, r := range results {
		name := string(r.Name)
		n, ok := d.byName[name]
		if !ok {
			n = parseName(name)
			d.byName[name] = n
		}
		id := rowID{n.scenario, n.variantNoProcs(), n.procs}
		if !seen["c\x00"+n.scenario] {
			seen["c\x00"+n.scenario] = true
			d.scenarios = append(d.scenarios, n.scenario)
		}
		rk := fmt.Sprintf("r\x00%s\x00%s\x00%d", id.scenario, id.variant, id.procs)
		if !seen[rk] {
			seen[rk] = true
			d.rows[n.scenario] = append(d.rows[n.scenario], id)
			d.params[id] = n.params
		}
		if !seen[rk+"\x00"+n.strategy] {
			seen[rk+"\x00"+n.strategy] = true
			d.strategies[id] = append(d.strategies[id], n.strategy)
		}
		d.procsSeen[n.procs]++
		for _, v := range r.Values {
			x, u := unitValue(v)
			k := sampleKey{id, n.strategy, u}
			d.samples[k] = append(d.samples[k], obs{x, i})
			d.units[u] = true
		}
	}
	return d
}

func values(os []obs) []float64 {
	v := make([]float64, len(os))
	for i, o := range os {
		v[i] = o.v
	}
	return v
}

// Ratio is the ratio of one strategy's metric to a reference's (the best strategy's, or
// baseline's): Center is the ratio of their medians, Lo and Hi its 95% confidence interval
// by Method.
type Ratio struct {
	Center, Lo, Hi float64
	// NoCI: too few repetitions for an interval (Lo and Hi are then Center).
	NoCI bool
	// Method is "paired" (one ratio per repetition, whose median and CI are taken) or
	// "unpaired" (all cross ratios; Hodges-Lehmann estimate and its Mann-Whitney interval).
	Method string
	// PairedHalf and UnpairedHalf are the CI half-widths as a fraction of Center by each
	// method (NaN when the method gives none).
	PairedHalf, UnpairedHalf float64
	paired, unpaired         estimate
	ofMedians                float64 // median(a) / median(ref)
}

// estimate is one method's ratio and interval; ok: it exists; ci: it has an interval.
type estimate struct {
	c, lo, hi float64
	ok, ci    bool
}

// use sets r from the estimate of method, or of the other method when that one has none.
func (r *Ratio) use(method string) {
	e, other, m2 := r.paired, r.unpaired, "unpaired"
	if method != "paired" {
		e, other, method, m2 = r.unpaired, r.paired, "unpaired", "paired"
	}
	if !e.ok || (!e.ci && other.ci) {
		e, method = other, m2
	}
	r.Center, r.Lo, r.Hi, r.NoCI, r.Method = r.ofMedians, e.lo, e.hi, !e.ci, method
	if r.NoCI {
		r.Lo, r.Hi = r.Center, r.Center
	}
	// The interval comes from the method; the point is the ratio of the medians, the
	// quantity the ranking orders by, so a table's ratios never contradict its order (a
	// method's own center, the median of per-repetition or of cross ratios, can). The
	// interval is widened to hold the point where the two disagree.
	r.Lo, r.Hi = math.Min(r.Lo, r.Center), math.Max(r.Hi, r.Center)
}

// half is a CI's half-width as a fraction of its center: the larger side.
func half(c, lo, hi float64) float64 {
	if c == 0 || math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return math.NaN()
	}
	return math.Max(hi-c, c-lo) / math.Abs(c)
}

// interleaved reports whether a's and b's samples alternate repetition by repetition in the
// input (the runner runs every case once per repetition): each sample i of one comes
// before sample i+1 of the other. Then sample i of a and of b ran side by side and a
// per-repetition ratio cancels the drift both saw.
func interleaved(a, b []obs) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := 0; i+1 < len(a); i++ {
		if a[i].pos > b[i+1].pos || b[i].pos > a[i+1].pos {
			return false
		}
	}
	return true
}

// ratioOf estimates a/ref with a 95% CI by both methods: paired where a and ref are
// interleaved, and unpaired. It uses the unpaired one until rankings picks the method of
// the scenario. ok is false when the reference's median is zero (no ratio exists).
func ratioOf(a, ref []obs) (r Ratio, ok bool) {
	r = Ratio{PairedHalf: math.NaN(), UnpairedHalf: math.NaN()}
	rv := values(ref)
	sort.Float64s(rv)
	if len(rv) == 0 || median(rv) <= 0 {
		return r, false
	}
	// Unpaired: every cross ratio a_i/ref_j; their median is the Hodges-Lehmann estimate of
	// the ratio (on the log scale) and order statistics give the interval that inverts the
	// Mann-Whitney U test. The n×m ratios are not listed (60,000 samples a side would take
	// 29 GB): crossRatios finds each order statistic in O((n+m) log) time.
	av := values(a)
	sort.Float64s(av)
	var pos []float64
	for _, y := range rv {
		if y > 0 {
			pos = append(pos, y)
		}
	}
	cross := crossRatios{xs: av, ys: pos}
	u := estimate{c: cross.median(), ok: true}
	u.lo, u.hi, u.ci = hlInterval(cross, len(a), len(ref))
	if u.ci {
		r.UnpairedHalf = half(u.c, u.lo, u.hi)
	}
	r.unpaired = u
	r.ofMedians = median(av) / median(rv)
	if interleaved(a, ref) {
		var per []float64
		for i := range a {
			if ref[i].v > 0 {
				per = append(per, a[i].v/ref[i].v)
			}
		}
		if len(per) == len(a) {
			s := benchmath.AssumeNothing.Summary(newSample(per, &benchmath.DefaultThresholds), 0.95)
			p := estimate{c: s.Center, lo: s.Lo, hi: s.Hi, ok: true}
			p.ci = !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) && !math.IsNaN(s.Lo) && !math.IsNaN(s.Hi)
			if p.ci {
				r.PairedHalf = half(p.c, p.lo, p.hi)
			}
			r.paired = p
		}
	}
	r.use("unpaired")
	return r, true
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// hlInterval is the 95% interval of the Hodges-Lehmann estimate over the n×m cross ratios:
// the C-th smallest and C-th largest, C from the normal approximation of the Mann-Whitney U
// distribution. ok is false when the samples are too small for one, or when some ratios do
// not exist (a reference sample of zero).
func hlInterval(cross crossRatios, n, m int) (lo, hi float64, ok bool) {
	nm := float64(n) * float64(m)
	if cross.Len() != int64(n)*int64(m) {
		return 0, 0, false
	}
	c := int64(math.Floor(nm/2 - 1.959964*math.Sqrt(nm*float64(n+m+1)/12)))
	if c < 1 {
		return 0, 0, false
	}
	return cross.kth(c - 1), cross.kth(int64(n)*int64(m) - c), true
}

// crossRatios is the multiset of the ratios x/y of every x in xs and y in ys (both sorted
// ascending, xs ≥ 0 and ys > 0), without listing it: kth finds an order statistic by
// bisecting over the float64 values, counting the ratios at most a value in O(len(xs) +
// len(ys)) each time, so memory stays O(n+m) and time O((n+m)·64) per order statistic.
type crossRatios struct{ xs, ys []float64 }

// Len is the number of ratios. Counts are int64: 60,000 samples a side make 3.6e9 ratios,
// past a 32-bit int (GOARCH=arm).
func (c crossRatios) Len() int64 { return int64(len(c.xs)) * int64(len(c.ys)) }

// countLE counts the ratios ≤ t. As y grows, x/y shrinks (division rounds monotonically),
// so the x with x/y ≤ t are a prefix of xs that grows with y.
func (c crossRatios) countLE(t float64) int64 {
	var n int64
	i := 0
	for _, y := range c.ys {
		for i < len(c.xs) && c.xs[i]/y <= t {
			i++
		}
		n += int64(i)
	}
	return n
}

// kth is the k-th smallest ratio, from 0: the least t ≥ 0 with more than k ratios ≤ t,
// found over the ordered bit patterns of the non-negative float64s up to +Inf.
func (c crossRatios) kth(k int64) float64 {
	lo, hi := uint64(0), math.Float64bits(math.Inf(1))
	for lo < hi {
		mid := lo + (hi-lo)/2
		if c.countLE(math.Float64frombits(mid)) > k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return math.Float64frombits(lo)
}

// median is the median of the ratios (NaN when there are none).
func (c crossRatios) median() float64 {
	n := c.Len()
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return c.kth(n / 2)
	}
	return (c.kth(n/2-1) + c.kth(n/2)) / 2
}

// Ranked is one strategy in a ranking.
type Ranked struct {
	Strategy string
	Summary  Summary
	Samples  []float64
	// VsBest and VsBaseline are the ratios to the best strategy and to baseline; HasBest and
	// HasBaseline say whether they exist (a reference of zero has no ratio; baseline does
	// not run in every scenario).
	VsBest, VsBaseline   Ratio
	HasBest, HasBaseline bool
}

// pairVerdict is the comparison of two strategies of a ranking, by compare's rule: a
// Mann-Whitney U test, or, for a deterministic count (allocs/op, B/op, distinct-states) whose
// samples agree within the unit's Tolerance on both sides, an exact comparison of the
// medians; a difference within the tolerance never separates them.
type pairVerdict struct {
	P         float64 // the U test's p-value; NaN when compared exactly
	Exact     bool    // compared without a test
	Separated bool    // significant at FindingsAlpha and more than the tolerance apart
	Tolerated bool    // significant, but within the tolerance: equal
	Note      string  // why the U test gave no verdict, if it did not
}

// Ranking is the strategies of one row ranked by one headline metric, best first.
type Ranking struct {
	Headline Headline
	Row      rowID
	Params   []Param
	Ranked   []Ranked
	Baseline *Summary // baseline's value in this row, if it ran
	Need     string   // Headline.Need with the row's parameters filled in
	// Method is the ratio method chosen for the scenario: "paired" or "unpaired" (a ratio
	// falls back to the other where the chosen one gives no interval).
	Method string
	// pairs[i][j], i < j, compares Ranked[i] with Ranked[j].
	pairs [][]pairVerdict
	tol   float64 // Tolerance(Headline.Unit)
}

// Groups splits the ranking into groups of strategies that noise cannot separate, best
// first. Every pair inside a group is inseparable (a U test at FindingsAlpha, or, for counts
// and bytes, a difference within the unit's Tolerance): a strategy starts a new group when it
// is separable from any member of the current one, so inseparable neighbours never chain a
// fast strategy and a slow one together. The best group also ends where a strategy's ratio to
// the best has a 95% interval that excludes 1 (and the difference exceeds the tolerance).
// A group also ends where the U test gave no verdict (too few repetitions) between different
// medians: untested strategies are not grouped.
func (k Ranking) Groups() [][]Ranked {
	var gs [][]Ranked
	for _, g := range k.split().groups {
		var rs []Ranked
		for _, i := range g {
			rs = append(rs, k.Ranked[i])
		}
		gs = append(gs, rs)
	}
	return gs
}

// grouping is a ranking split into groups: indexes into Ranked, best first; untested[g]
// says group g+1 starts where the U test gave no verdict (not a significant difference);
// why[i] says in words why Ranked[i] is in its group.
type grouping struct {
	groups   [][]int
	untested []bool
	why      []string
	note     []string // for a group start after no verdict: the U test's reason
}

// pair is the verdict between Ranked[i] and Ranked[j], in either order.
func (k Ranking) pair(i, j int) pairVerdict {
	if i > j {
		i, j = j, i
	}
	if i < len(k.pairs) && j < len(k.pairs[i]) {
		return k.pairs[i][j]
	}
	return pairVerdict{P: math.NaN(), Note: "not compared"}
}

// split groups the ranking (see Groups).
func (k Ranking) split() grouping {
	var g grouping
	if len(k.Ranked) == 0 {
		return g
	}
	g.why = make([]string, len(k.Ranked))
	g.note = make([]string, len(k.Ranked))
	g.why[0] = "best"
	cur := []int{0}
	tolText := fmt.Sprintf("%g %s", k.tol, k.Headline.Unit)
	for i := 1; i < len(k.Ranked); i++ {
		r := k.Ranked[i]
		why, untested := "", false
		near, nearP := -1, math.Inf(1) // the member it is least clearly equal to
		for _, m := range cur {
			v := k.pair(m, i)
			differ := k.Ranked[m].Summary.Median != r.Summary.Median
			switch {
			case v.Separated && v.Exact && k.tol == 0:
				why = fmt.Sprintf("apart from %s (samples do not vary)", k.Ranked[m].Strategy)
			case v.Separated && v.Exact:
				why = fmt.Sprintf("apart from %s by more than %s (samples vary less)", k.Ranked[m].Strategy, tolText)
			case v.Separated:
				why = fmt.Sprintf("separated from %s (p=%.3f)", k.Ranked[m].Strategy, v.P)
			case v.Note != "" && differ:
				why, untested = fmt.Sprintf("? %s (no verdict: %s)", k.Ranked[m].Strategy, v.Note), true
				g.note[i] = v.Note
			}
			if why != "" {
				break
			}
			p := v.P
			if v.Exact || math.IsNaN(p) {
				p = 2 // exact equality or a tie: weaker than any p-value
			}
			if near < 0 || p < nearP {
				near, nearP = m, p
			}
		}
		if why == "" && cur[0] == 0 && r.HasBest && !r.VsBest.NoCI && (r.VsBest.Lo > 1 || r.VsBest.Hi < 1) &&
			math.Abs(r.Summary.Median-k.Ranked[0].Summary.Median) > k.tol {
			why = fmt.Sprintf("apart from the best: × best interval %s excludes 1", ratioText(r.VsBest))
		}
		if why != "" {
			g.groups = append(g.groups, cur)
			g.untested = append(g.untested, untested)
			cur = []int{i}
			g.why[i] = why
			continue
		}
		cur = append(cur, i)
		v := k.pair(near, i)
		switch {
		case v.Exact && k.tol == 0:
			g.why[i] = fmt.Sprintf("≈ %s (equal; samples do not vary)", k.Ranked[near].Strategy)
		case v.Exact:
			g.why[i] = fmt.Sprintf("≈ %s (within %s)", k.Ranked[near].Strategy, tolText)
		case v.Note != "":
			g.why[i] = fmt.Sprintf("≈ %s (equal medians; no test: %s)", k.Ranked[near].Strategy, v.Note)
		case v.Tolerated: // the test separates them, the tolerance does not
			g.why[i] = fmt.Sprintf("≈ %s (within %s, the unit's tolerance)", k.Ranked[near].Strategy, tolText)
		default:
			g.why[i] = fmt.Sprintf("≈ %s (p=%.3f)", k.Ranked[near].Strategy, v.P)
		}
		if len(cur) > 2 {
			g.why[i] = "≈ each of its group; closest call " + strings.TrimPrefix(g.why[i], "≈ ")
		}
	}
	g.groups = append(g.groups, cur)
	return g
}

// allTolerated reports whether every pair of group g is equal by the unit's Tolerance (an
// exact comparison, or a significant difference within it) rather than by noise.
func (k Ranking) allTolerated(g []int) bool {
	for a := range g {
		for b := a + 1; b < len(g); b++ {
			if v := k.pair(g[a], g[b]); !v.Exact && !v.Tolerated {
				return false
			}
		}
	}
	return true
}

// compare compares strategy samples a and b of unit by compare's rule (compareRow): exactly
// when unit is a deterministic count and both sides agree within its Tolerance, else by the
// U test; a difference within the tolerance (1 B per anything, 0.01 allocs/op) never
// separates them.
func compare(a, b []float64, unit string, th *benchmath.Thresholds) pairVerdict {
	tol := Tolerance(unit)
	ma, mb := medianOf(a), medianOf(b)
	if deterministic(unit) && agree(a, tol) && agree(b, tol) {
		return pairVerdict{P: math.NaN(), Exact: true, Separated: math.Abs(ma-mb) > tol}
	}
	c := benchmath.AssumeNothing.Compare(newSample(a, th), newSample(b, th))
	v := pairVerdict{P: uTestP(c.P)}
	if len(c.Warnings) > 0 {
		v.Note = c.Warnings[0].Error()
	}
	sig := c.P < c.Alpha && len(c.Warnings) == 0 && ma != mb
	v.Separated = sig && math.Abs(ma-mb) > tol
	v.Tolerated = sig && !v.Separated
	return v
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	return median(s)
}

// FindingsAlpha is the significance level of the Findings' U tests, as compare's default.
const FindingsAlpha = 0.05

// rank ranks the strategies of row id by h.
func (d *runData) rank(h Headline, id rowID) (Ranking, bool) {
	k := Ranking{Headline: h, Row: id, Params: d.params[id]}
	var base []obs
	for _, st := range d.strategies[id] {
		os := d.samples[sampleKey{id, st, h.Unit}]
		if len(os) == 0 {
			continue
		}
		if st == BaselineName {
			base = os
			s := summarizeValues(values(os))
			k.Baseline = &s
			continue
		}
		if isControl(st) {
			continue
		}
		k.Ranked = append(k.Ranked, Ranked{Strategy: st, Summary: summarizeValues(values(os)), Samples: values(os)})
	}
	if len(k.Ranked) == 0 {
		return k, false
	}
	sort.SliceStable(k.Ranked, func(i, j int) bool {
		a, b := k.Ranked[i].Summary.Median, k.Ranked[j].Summary.Median
		if h.Higher {
			return a > b
		}
		return a < b
	})
	obsOf := func(st string) []obs { return d.samples[sampleKey{id, st, h.Unit}] }
	best := obsOf(k.Ranked[0].Strategy)
	th := benchmath.DefaultThresholds
	th.CompareAlpha = FindingsAlpha
	for i := range k.Ranked {
		r := &k.Ranked[i]
		mine := obsOf(r.Strategy)
		if i == 0 {
			r.VsBest, r.HasBest = Ratio{Center: 1, Lo: 1, Hi: 1, NoCI: true, Method: "identity", PairedHalf: math.NaN(), UnpairedHalf: math.NaN()}, true
		} else {
			r.VsBest, r.HasBest = ratioOf(mine, best)
		}
		if base != nil {
			r.VsBaseline, r.HasBaseline = ratioOf(mine, base)
		}
	}
	k.tol = Tolerance(h.Unit)
	k.pairs = make([][]pairVerdict, len(k.Ranked))
	for i := range k.Ranked {
		k.pairs[i] = make([]pairVerdict, len(k.Ranked))
		for j := i + 1; j < len(k.Ranked); j++ {
			k.pairs[i][j] = compare(k.Ranked[i].Samples, k.Ranked[j].Samples, h.Unit, &th)
		}
	}
	k.Need = strings.ReplaceAll(fillParams(h.Need, k.Params), "{GOMAXPROCS}", strconv.Itoa(id.procs))
	return k, true
}

func summarizeValues(v []float64) Summary {
	s := newSample(v, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	row := Summary{N: len(v), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
	if math.IsInf(row.Lo, 0) || math.IsNaN(row.Lo) || math.IsInf(row.Hi, 0) || math.IsNaN(row.Hi) {
		row.Lo, row.Hi, row.NoCI = row.Median, row.Median, true
	}
	return row
}

// fillParams replaces {key} in s by the value of key in ps.
func fillParams(s string, ps []Param) string {
	for _, p := range ps {
		s = strings.ReplaceAll(s, "{"+p.Key+"}", FormatCount(p.Value))
	}
	return s
}

// FormatCount writes a whole-number parameter with SI prefixes ("1000000" → "1M"); other
// values unchanged.
func FormatCount(v string) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n != math.Trunc(n) || n < 1000 {
		return v
	}
	return tickLabel(n, "")
}

// rankings ranks every headline of every scenario of d; cores is the run's NumCPU.
func (d *runData) rankings(cores int) []Ranking {
	var out []Ranking
	for _, sc := range d.scenarios {
		var ks []Ranking
		for _, h := range headlinesOf(sc) {
			for _, id := range d.selectRows(sc, h, cores) {
				if k, ok := d.rank(h, id); ok {
					ks = append(ks, k)
				}
			}
		}
		// One method per scenario: paired where its intervals are no wider (the median
		// half-width over the scenario's ratios that have both), else unpaired. Choosing
		// ratio by ratio would pick the luckier interval each time.
		_, _, ph, uh := ratioMethods(ks)
		method := "unpaired"
		if ph <= uh {
			method = "paired"
		}
		for i := range ks {
			ks[i].Method = method
			for j := range ks[i].Ranked {
				r := &ks[i].Ranked[j]
				if r.HasBest && r.VsBest.Method != "identity" {
					r.VsBest.use(method)
				}
				if r.HasBaseline {
					r.VsBaseline.use(method)
				}
			}
		}
		out = append(out, ks...)
	}
	return out
}

// selectRows returns the rows of scenario sc that headline h ranks.
func (d *runData) selectRows(sc string, h Headline, cores int) []rowID {
	rows := d.rows[sc]
	pick := func(cands []int) int { // cores, else the largest below it, else the smallest
		sort.Ints(cands)
		best := -1
		for _, c := range cands {
			if c == cores {
				return c
			}
			if c < cores {
				best = c
			}
		}
		if best < 0 && len(cands) > 0 {
			best = cands[0]
		}
		return best
	}
	for _, w := range h.Where {
		want := w.Value
		if want == "NumCPU" {
			var cands []int
			for _, id := range rows {
				if n, err := strconv.Atoi(paramValue(d.params[id], w.Key)); err == nil {
					cands = append(cands, n)
				}
			}
			want = strconv.Itoa(pick(cands))
		}
		var keep []rowID
		for _, id := range rows {
			if paramValue(d.params[id], w.Key) == want {
				keep = append(keep, id)
			}
		}
		rows = keep
	}
	if h.AtNumCPU {
		var cands []int
		for _, id := range rows {
			cands = append(cands, id.procs)
		}
		p := pick(cands)
		var keep []rowID
		for _, id := range rows {
			if id.procs == p {
				keep = append(keep, id)
			}
		}
		rows = keep
	}
	var out []rowID
	for _, id := range rows {
		for _, st := range d.strategies[id] {
			if len(d.samples[sampleKey{id, st, h.Unit}]) > 0 {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

func paramValue(ps []Param, k string) string {
	for _, p := range ps {
		if p.Key == k {
			return p.Value
		}
	}
	return ""
}

// runCores is the run's NumCPU: meta's, else the GOMAXPROCS most results ran at (the runner
// defaults to it).
func (d *runData) runCores(meta ReportMeta) (int, string) {
	if meta.Cores > 0 {
		return meta.Cores, "env.json"
	}
	best, n := 0, -1
	for p, c := range d.procsSeen {
		if c > n || (c == n && p < best) {
			best, n = p, c
		}
	}
	return best, "guessed: the GOMAXPROCS most results ran at (no env.json)"
}

// loadedFlag is the Loaded trust flag, "" when the run is not flagged: by the measured share
// of other work (and steal) when meta has it, above [LoadedAbove]; else by a 1-minute load
// average above the cores before the run. The load average after the run is never used: it
// counts the run's own threads.
func loadedFlag(meta ReportMeta, cores int) string {
	if ow := meta.OtherWork; ow != nil {
		if ow.Other+ow.Steal <= LoadedAbove {
			return ""
		}
		// Whole percents, the total the sum of its shown parts.
		other, steal := math.Round(100*ow.Other), math.Round(100*ow.Steal)
		what := fmt.Sprintf("other processes used %.0f%% of %s during the run", other, cpuTime(ow.CPUs))
		if steal > 0 {
			what = fmt.Sprintf("other work took %.0f%% of %s during the run: other processes %.0f%%, and the hypervisor %.0f%% as steal",
				other+steal, cpuTime(ow.CPUs), other, steal)
		}
		return fmt.Sprintf("**Loaded**: %s (the machine's busy time less this run's own CPU time; flagged above %s): "+
			"the timings carry that work's noise. Repeat on a quiet machine.", what, pct0(LoadedAbove))
	}
	if f := strings.Fields(meta.LoadBefore); len(f) > 0 && cores > 0 {
		if x, err := strconv.ParseFloat(f[0], 64); err == nil && x > float64(cores) {
			return fmt.Sprintf("**Loaded**: the 1-minute load average before the run was %s, above the %d cores: other work was running as it started, "+
				"and the timings may carry its noise (the CPU time other work took during the run was not measured: no /proc/stat, or an env.json of an older deferbench).", f[0], cores)
		}
	}
	return ""
}

// otherWorkLine is report.md's sentence on the measured share of other work; "" when not
// measured.
func otherWorkLine(ow *OtherWork) string {
	if ow == nil {
		return ""
	}
	during := "during the run"
	if ow.Seconds > 0 {
		during = fmt.Sprintf("during the run (%s)", time.Duration(ow.Seconds*float64(time.Second)).Round(time.Second))
	}
	other, steal := math.Round(100*ow.Other), math.Round(100*ow.Steal)
	return fmt.Sprintf("Other work %s: %.0f%% of %s, of which steal %.0f%% (the machine's busy time less this run's own CPU time; the Loaded flag is raised above %s).",
		during, other+steal, cpuTime(ow.CPUs), steal, pct0(LoadedAbove))
}

func pct0(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// cpuTime names the CPU time of n CPUs: "the 2 CPUs' time".
func cpuTime(n int) string {
	switch {
	case n == 1:
		return "the 1 CPU's time"
	case n < 1:
		return "the machine's CPU time"
	}
	return fmt.Sprintf("the %d CPUs' time", n)
}

// trustFlags are the report's first lines: reasons not to trust this run's timings.
func (d *runData) trustFlags(meta ReportMeta, ks []Ranking, cores int, coresFrom string) []string {
	var flags []string
	cfg := map[string]string{}
	for _, c := range meta.Config {
		cfg[c.Key] = c.Value
	}
	if cfg["emulated"] == "yes" {
		flags = append(flags, fmt.Sprintf("**Emulated**: this %s binary ran under a user-mode emulator (qemu-user) on a %s host; "+
			"its timings say nothing about any real %s CPU and must not be compared. Run it on the board.", cfg["goarch"], orDash(cfg["cpu"]), cfg["goarch"]))
	}
	if meta.Throttled == "yes" {
		flags = append(flags, "**Throttled**: the firmware throttled the CPU during this run; its timings are not comparable.")
	}
	if f := loadedFlag(meta, cores); f != "" {
		flags = append(flags, f)
	}
	var noisy []string
	worst, worstAt := 0.0, ""
	for _, k := range ks {
		for _, r := range k.Ranked {
			if r.Summary.Median == 0 {
				continue
			}
			h := half(r.Summary.Median, r.Summary.Lo, r.Summary.Hi)
			if r.Summary.NoCI {
				continue
			}
			if h > 0.10 {
				at := fmt.Sprintf("%s %s %s", r.Strategy, rowLabel(k), k.Headline.Unit)
				noisy = append(noisy, at)
				if h > worst {
					worst, worstAt = h, at
				}
			}
		}
	}
	if len(noisy) > 0 {
		ex := noisy
		if len(ex) > 3 {
			ex = ex[:3]
		}
		// The widest one is named: the tables print any CI above ±100% as ±>100%, so
		// without its name the figure could not be found in the report.
		flags = append(flags, fmt.Sprintf("**Noisy**: %d headline medians have a 95%% CI wider than ±10%% (up to ±%.0f%%, %s; e.g. %s): "+
			"repeat on a quiet machine, or raise -count.", len(noisy), 100*worst, worstAt, strings.Join(ex, "; ")))
	}
	if f := d.ceilingFlag(cores); f != "" {
		flags = append(flags, f)
	}
	if noCI := countNoCI(ks); noCI > 0 {
		flags = append(flags, fmt.Sprintf("**Too few repetitions**: %d headline medians have no confidence interval (6 repetitions needed); "+
			"rankings from this run are not tested for significance. Raise -count.", noCI))
	}
	var over []string
	seenP := map[int]bool{}
	for p := range d.procsSeen {
		if cores > 0 && p > cores && !seenP[p] {
			seenP[p] = true
			over = append(over, strconv.Itoa(p))
		}
	}
	if len(over) > 0 {
		sort.Slice(over, func(i, j int) bool { a, _ := strconv.Atoi(over[i]); b, _ := strconv.Atoi(over[j]); return a < b })
		flags = append(flags, fmt.Sprintf("**Oversubscribed**: rows at GOMAXPROCS=%s exceed NumCPU=%d: they measure goroutines "+
			"time-sharing cores, not scaling (labelled \"oversubscribed\" in the tables and plots).", strings.Join(over, ","), cores))
	}
	if strings.HasPrefix(coresFrom, "guessed") && len(over) == 0 {
		flags = append(flags, fmt.Sprintf("NumCPU is %s: %d.", coresFrom, cores))
	}
	return flags
}

// ceilingMin is the least efficiency Contention's noop control must reach at P = GOMAXPROCS
// for the run's Contention figures to measure the strategies: below it the machine (other
// load, too few real cores, frequency scaling) or the harness caps every row.
const ceilingMin = 0.9

// ceilingFlag is the trust flag for a run whose Contention noop control (producers that touch
// no memory) falls below ceilingMin efficiency at P = GOMAXPROCS ≤ NumCPU (P > 1; at P = 1
// efficiency is 1 by definition); "" when it reaches it everywhere or did not run.
func (d *runData) ceilingFlag(cores int) string {
	worst, at := d.ceiling(cores)
	if !(worst < ceilingMin) {
		return ""
	}
	return fmt.Sprintf("**Contention ceiling**: the noop control (producers that touch no memory) reached efficiency %s at "+
		"producers = GOMAXPROCS = %d (NumCPU %d), below %.2g: the machine or the harness, not the strategies, capped this run's "+
		"parallelism, so its Contention figures (efficiency and cmds/s) measure the machine. Repeat on an idle machine with real cores.",
		sig3(worst, false), at, cores, ceilingMin)
}

// ceiling is the lowest median efficiency of the noop control at producers = GOMAXPROCS,
// 1 < P ≤ cores, and that P; +Inf when it did not run there.
func (d *runData) ceiling(cores int) (worst float64, at int) {
	worst = math.Inf(1)
	for _, id := range d.rows["Contention"] {
		p, err := strconv.Atoi(paramValue(d.params[id], "producers"))
		if err != nil || p != id.procs || p < 2 || (cores > 0 && p > cores) {
			continue
		}
		v := values(d.samples[sampleKey{id, NoopName, "efficiency"}])
		if len(v) == 0 {
			continue
		}
		sort.Float64s(v)
		if m := median(v); m < worst {
			worst, at = m, p
		}
	}
	return worst, at
}

func countNoCI(ks []Ranking) int {
	n := 0
	for _, k := range ks {
		for _, r := range k.Ranked {
			if r.Summary.NoCI && r.Summary.Median != 0 {
				n++
			}
		}
	}
	return n
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// rowLabel names a ranking's row: "Stage cmd=typed".
func rowLabel(k Ranking) string {
	s := k.Row.scenario
	if k.Row.variant != "" {
		s += " " + k.Row.variant
	}
	return s
}

// ratioText is "1.81× (1.75–1.90)" or "1.81× (no CI)".
func ratioText(r Ratio) string {
	if r.Method == "identity" {
		return "1×"
	}
	c := sig3(r.Center, false) + "×"
	if r.NoCI {
		return c + " (no CI)"
	}
	return c + " (" + sig3(r.Lo, false) + "–" + sig3(r.Hi, false) + ")"
}

// writeFindings writes the trust flags, "Which to pick" and the rankings.
func writeFindings(b *strings.Builder, results []*benchfmt.Result, meta ReportMeta) {
	d := newRunData(results)
	cores, coresFrom := d.runCores(meta)
	ks := d.rankings(cores)
	for _, f := range d.trustFlags(meta, ks, cores, coresFrom) {
		fmt.Fprintf(b, "%s\n\n", f)
	}
	traits := map[string]Traits{}
	for _, k := range ks {
		for _, r := range k.Ranked {
			if _, ok := traits[r.Strategy]; !ok {
				if t, ok := StrategyTraits(r.Strategy); ok {
					traits[r.Strategy] = t
				}
			}
		}
	}
	caveats := map[string]string{}
	if worst, at := d.ceiling(cores); worst < ceilingMin {
		caveats["Contention"] = fmt.Sprintf("the noop control reached only %s efficiency at producers = GOMAXPROCS = %d: "+
			"these figures measure the machine (Contention ceiling)", sig3(worst, false), at)
	}
	writePick(b, ks, traits, caveats)

	fmt.Fprintf(b, "## Findings\n\n")
	np, nu, pw, uw := ratioMethods(ks)
	fmt.Fprintf(b, "Computed from this run's bench.txt alone. Per headline metric the strategies are ranked best first by their median; "+
		"`≈` joins strategies that noise cannot separate, so their order within a group is noise: every pair in a group is inseparable by the Mann-Whitney U test (alpha %.2g, golang.org/x/perf/benchmath), "+
		"or differs by no more than the unit's tolerance (1 B per anything, 0.01 allocs/op; a count whose samples do not vary is compared exactly), the rule compare uses; "+
		"a strategy separable from any member of the current group starts a new one (inseparable neighbours never chain a fast strategy and a slow one into a group), "+
		"and the best group also excludes a strategy whose × best interval excludes 1. The group column says which comparison placed each strategy. "+
		"`?` joins strategies the test could not judge (too few repetitions), which are not ranked. "+
		"× best and × baseline are the ratio of the strategy's median to the best strategy's and to baseline's (so they follow the ranking), with a 95%% CI of the ratio. "+
		"The runner interleaves repetitions (repetition i of every strategy runs back to back before repetition i+1), so a ratio can be formed per repetition: "+
		"*paired* takes the CI of those per-repetition ratios; *unpaired* (Hodges-Lehmann) takes the interval over all cross ratios that inverts the U test; either is widened to hold the ratio of the medians where the two disagree. "+
		"Each scenario uses paired ratios unless their intervals are wider over its ratios (a ratio falls back to the other where the chosen one has no interval; such cells are marked). "+
		"This run: %d ratios paired, %d unpaired; median CI half-width %s paired against %s unpaired over the same ratios.\n\n",
		FindingsAlpha, np, nu, pctOrNone(pw), pctOrNone(uw))
	for _, k := range ks {
		writeRanking(b, k, cores)
	}
}

// ratioMethods counts the ratios by method used and returns the median CI half-widths of
// the paired and unpaired methods over the ratios where both gave one.
func ratioMethods(ks []Ranking) (paired, unpaired int, pairedHalf, unpairedHalf float64) {
	var ph, uh []float64
	add := func(r Ratio, ok bool) {
		if !ok || r.Method == "identity" {
			return
		}
		switch r.Method {
		case "paired":
			paired++
		case "unpaired":
			unpaired++
		}
		if !math.IsNaN(r.PairedHalf) && !math.IsNaN(r.UnpairedHalf) {
			ph = append(ph, r.PairedHalf)
			uh = append(uh, r.UnpairedHalf)
		}
	}
	for _, k := range ks {
		for _, r := range k.Ranked {
			add(r.VsBest, r.HasBest)
			add(r.VsBaseline, r.HasBaseline)
		}
	}
	if len(ph) == 0 {
		return paired, unpaired, math.NaN(), math.NaN()
	}
	sort.Float64s(ph)
	sort.Float64s(uh)
	return paired, unpaired, median(ph), median(uh)
}

func pctOrNone(f float64) string {
	if math.IsNaN(f) {
		return "none (too few repetitions)"
	}
	return fmt.Sprintf("±%.1f%%", 100*f)
}

// groupText is "**a ≈ b**, then c, then d ≈ e": groups best first (Groups); "?" joins
// strategies the U test could not judge (too few repetitions).
func groupText(k Ranking) string {
	g := k.split()
	var b strings.Builder
	for gi, grp := range g.groups {
		if gi > 0 {
			if g.untested[gi-1] {
				b.WriteString(" ? ")
			} else {
				b.WriteString(", then ")
			}
		}
		if gi == 0 {
			b.WriteString("**")
		}
		for n, i := range grp {
			if n > 0 {
				b.WriteString(" ≈ ")
			}
			b.WriteString(k.Ranked[i].Strategy)
		}
		if gi == 0 {
			b.WriteString("**")
		}
	}
	return b.String()
}

func writeRanking(b *strings.Builder, k Ranking, cores int) {
	better := "lower is better"
	if k.Headline.Higher {
		better = "higher is better"
	}
	procs := fmt.Sprintf("GOMAXPROCS=%d", k.Row.procs)
	if scenarioDef(k.Row.scenario).OwnProcs {
		procs = "GOMAXPROCS set by the scenario"
	} else if cores > 0 && k.Row.procs > cores {
		procs += ", oversubscribed"
	}
	fmt.Fprintf(b, "### %s: %s (%s; %s)\n\n", rowLabel(k), k.Headline.Unit, procs, better)
	fmt.Fprintf(b, "%s. Ratios %s.\n\n", groupText(k), k.Method)
	hasBase := k.Baseline != nil
	fmt.Fprintf(b, "| strategy | median | × best (95%% CI) |")
	if hasBase {
		fmt.Fprintf(b, " × baseline (95%% CI) |")
	}
	fmt.Fprintf(b, " group |\n|---|---:|---:|%s---|\n", map[bool]string{true: "---:|"}[hasBase])
	cell := func(r Ratio, ok bool) string {
		if !ok {
			return "—"
		}
		s := ratioText(r)
		if r.Method != k.Method && r.Method != "identity" {
			s += " (" + r.Method + ")"
		}
		return s
	}
	g := k.split()
	for i, r := range k.Ranked {
		fmt.Fprintf(b, "| %s | %s | %s |", r.Strategy, reportCell(withUnit(r.Summary, k.Headline.Unit)), cell(r.VsBest, r.HasBest))
		if hasBase {
			fmt.Fprintf(b, " %s |", cell(r.VsBaseline, r.HasBaseline))
		}
		fmt.Fprintf(b, " %s |\n", mdEscape(g.why[i]))
	}
	if hasBase {
		fmt.Fprintf(b, "| *baseline* | %s | | | |\n", reportCell(withUnit(*k.Baseline, k.Headline.Unit)))
	}
	fmt.Fprintln(b)
}

func withUnit(s Summary, u string) Summary { s.Unit = u; return s }

// writePick writes "Which to pick": per requirement a headline answers, the strategies that
// meet it in this run, the figure that shows it and the declared property it rests on.
//
// caveats, by scenario, is appended to the figure of each of its rows (a trust flag that
// voids that scenario's figures).
func writePick(b *strings.Builder, ks []Ranking, traits map[string]Traits, caveats map[string]string) {
	var rows [][4]string
	for _, k := range ks {
		h := k.Headline
		if h.Need == "" {
			continue
		}
		var meet []Ranked
		g := k.split()
		if h.Meets != nil {
			for _, r := range k.Ranked {
				if h.Meets(r.Samples) {
					meet = append(meet, r)
				}
			}
		} else if len(g.groups) > 0 {
			for _, i := range g.groups[0] {
				meet = append(meet, k.Ranked[i])
			}
		}
		var names, figs, whys []string
		var refused []string
		for _, r := range meet {
			if h.Requires != nil {
				t, ok := traits[r.Strategy]
				if !ok {
					continue
				}
				yes, why := h.Requires(t)
				if !yes {
					refused = append(refused, r.Strategy+" ("+why+")")
					continue
				}
				whys = addWhy(whys, r.Strategy, why)
			}
			names = append(names, r.Strategy)
			figs = append(figs, r.Strategy+" "+FormatValue(r.Summary.Median, h.Unit))
		}
		fig := rowLabel(k) + ": " + strings.Join(figs, ", ")
		if len(names) == 0 {
			fig = rowLabel(k) + ": no strategy meets it in this run"
		}
		if k.Baseline != nil {
			fig += " (baseline " + FormatValue(k.Baseline.Median, h.Unit) + ")"
		}
		if h.Unit != "" && !strings.Contains(fig, h.Unit) && !unitIsTime(h.Unit) && !unitIsBytes(h.Unit) {
			fig += " " + h.Unit
		}
		why := "measured; no declared property involved"
		if h.Requires != nil && len(names) == 0 && len(refused) == 0 {
			why = "—"
		} else if h.Requires != nil {
			why = strings.Join(whys, "; ")
			if len(refused) > 0 {
				if why != "" {
					why += "; "
				}
				why += "left out: " + strings.Join(refused, "; ")
			}
		}
		if h.Meets == nil && len(names) > 1 {
			// Every pair of the best group is inseparable (Groups), so this holds for each.
			if k.allTolerated(g.groups[0]) {
				fig += fmt.Sprintf("; equal within %g %s", k.tol, h.Unit)
			} else {
				fig += "; noise cannot separate them"
			}
		}
		if h.Meets == nil && len(g.untested) > 0 && g.untested[0] {
			// The U test could not judge the best group against the next: no strategy is
			// shown to meet the need; the medians alone are noise.
			names, whys, refused = nil, nil, nil
			best := "lowest"
			if h.Higher {
				best = "highest"
			}
			note := g.note[g.groups[1][0]]
			v := FormatValue(k.Ranked[0].Summary.Median, h.Unit)
			if h.Unit != "" && !unitIsTime(h.Unit) && !unitIsBytes(h.Unit) {
				v += " " + h.Unit
			}
			fig = fmt.Sprintf("%s: undecided, the U test gave no verdict (%s); %s median %s %s",
				rowLabel(k), note, best, k.Ranked[0].Strategy, v)
		}
		if c := caveats[k.Row.scenario]; c != "" {
			fig += "; " + c
		}
		rows = append(rows, [4]string{k.Need, strings.Join(names, ", "), fig, why})
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "## Which to pick\n\n| requirement | strategies that meet it in this run | figure | rests on |\n|---|---|---|---|\n")
	for _, r := range rows {
		names := r[1]
		if names == "" {
			names = "none shown"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", r[0], names, mdEscape(r[2]), mdEscape(r[3]))
	}
	fmt.Fprintln(b)
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// allBelow meets a need when every sample is below x (allocs/op: amortized growth of a
// buffer gives a few millionths).
func allBelow(x float64) func([]float64) bool {
	return func(v []float64) bool {
		for _, s := range v {
			if !(s < x) {
				return false
			}
		}
		return len(v) > 0
	}
}

// allEqual meets a need when every sample is x.
func allEqual(x float64) func([]float64) bool {
	return func(v []float64) bool {
		for _, s := range v {
			if s != x {
				return false
			}
		}
		return len(v) > 0
	}
}

// controlOf is the scenario a control row belongs to ("" for a strategy or the baseline).
func controlOf(s StrategyInfo) string { return s.ControlOf }

// addWhy adds "strategy: why" to whys, joining strategies with the same why.
func addWhy(whys []string, strategy, why string) []string {
	for i, w := range whys {
		if names, rest, ok := strings.Cut(w, ": "); ok && rest == why {
			whys[i] = names + ", " + strategy + ": " + why
			return whys
		}
	}
	return append(whys, strategy+": "+why)
}
