package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchmath"
)

// Ranked is one strategy in a ranking.
type Ranked struct {
	Strategy string
	Summary  results.Summary
	Samples  []float64
	// VsBest and VsBaseline are the ratios to the best strategy and to baseline; HasBest and
	// HasBaseline say whether they exist (a reference of zero has no ratio; baseline does
	// not run in every scenario).
	VsBest, VsBaseline   Ratio
	HasBest, HasBaseline bool
	// Unranked says why the strategy is listed but not ranked (suite.Headline.Within): "" for
	// a ranked one.
	Unranked string
	// VsAgainst[j] is the ratio to the ranking's Against[j]; HasAgainst[j] says it exists.
	VsAgainst  []Ratio
	HasAgainst []bool
}

// Reference is a row the strategies of a ranking are set against (suite.Against): a
// reference's strategy in another row of the scenario.
type Reference struct {
	Label    string
	Where    string
	Strategy string
	Row      RowID
	Summary  results.Summary
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
	// Ratio is the later strategy's metric over the earlier one's with its 95% CI (HasRatio:
	// it exists), by the scenario's method. A test's separation stands only when this
	// interval excludes 1 too; Disputed marks a test that separated them while it did not.
	Ratio    Ratio
	HasRatio bool
	Disputed bool
	// PairedP is the Wilcoxon signed-rank test's p on the per-repetition log ratios, when
	// the two ran interleaved (NaN otherwise): the test that agrees with a paired interval.
	PairedP  float64
	ByPaired bool // separated by the signed-rank test and the paired interval
}

// confirm keeps a U test's separation only when the ratio's 95% interval agrees: it has
// one, and it excludes 1. Exact comparisons of counts need no interval.
// A pair the U test cannot separate (drift between repetitions widens both samples) is
// separated when its paired interval excludes 1 and the signed-rank test on the same
// per-repetition ratios agrees.
func (v *pairVerdict) confirm(tol, diff float64) {
	if v.Exact {
		return
	}
	lo, hi, ok := v.Ratio.hull()
	if !ok { // a ratio set by hand, without the methods' estimates: its own interval
		lo, hi, ok = v.Ratio.Lo, v.Ratio.Hi, !v.Ratio.NoCI
	}
	excludes := v.HasRatio && !v.Ratio.NoCI && ok && (lo > 1 || hi < 1)
	switch {
	case v.Separated && !excludes:
		v.Separated, v.Disputed = false, true
	case !v.Separated && v.Ratio.pairedExcludes() && v.PairedP < FindingsAlpha && diff > tol:
		// Whichever method the scenario shows: the choice follows the intervals' widths,
		// which noise changes, and a separation must not come or go with it.
		v.Separated, v.ByPaired, v.Tolerated, v.Note = true, true, false, ""
	}
}

// Ranking is the strategies of one row ranked by one headline metric, best first.
type Ranking struct {
	Headline suite.Headline
	Row      RowID
	Params   []results.Param
	Ranked   []Ranked
	Baseline *results.Summary // baseline's value in this row, if it ran
	// Against are the scenario's references (suite.Against) that apply to this row and ran,
	// in declaration order.
	Against []Reference
	Need    string // suite.Headline.Need with the row's parameters filled in
	// Method is the ratio method chosen for the scenario: "paired" or "unpaired" (a ratio
	// falls back to the other where the chosen one gives no interval).
	Method string
	// pairs[i][j], i < j, compares Ranked[i] with Ranked[j].
	pairs [][]pairVerdict
	Tol   float64 // results.Tolerance(Headline.Unit): a difference within it is no difference
}

// Grouping is a ranking split into Groups: indexes into Ranked, best first; untested[g]
// says group g+1 starts where the U test gave no verdict (not a significant difference);
// why[i] says in words why Ranked[i] is in its group.
type Grouping struct {
	Groups   [][]int
	Untested []bool
	Why      []string
	Note     []string // for a group start after no verdict: the U test's reason
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

// Separated reports whether the test (and the ratio's interval) separated Ranked[i] from
// Ranked[j], in either order.
func (k Ranking) Separated(i, j int) bool { return k.pair(i, j).Separated }

// Within reports whether Ranked[j] is shown within frac of Ranked[i] (i < j, i the better):
// the 95% interval of their ratio lies within 1 + frac of it (at most 1 + frac times its
// value, or at least 1 / (1 + frac) for a higher-is-better metric). It also returns how far
// the interval reaches (its far end as a ratio ≥ 1), 0 without an interval. More noise
// widens the interval, so it only takes strategies out of Within.
func (k Ranking) Within(i, j int, frac float64) (bool, float64) {
	v := k.pair(i, j)
	if !v.HasRatio || v.Ratio.NoCI || v.Ratio.Lo <= 0 {
		return false, 0
	}
	lo, hi, ok := v.Ratio.hull() // by either method (hull)
	if !ok || lo <= 0 {
		lo, hi = v.Ratio.Lo, v.Ratio.Hi
	}
	far := hi // later over earlier: above 1 when lower is better
	if k.Headline.Higher {
		far = 1 / lo
	}
	return far <= 1+frac, far
}

// Split splits the ranking into groups of strategies that noise cannot separate, best
// first. Every pair inside a group is inseparable (a U test at FindingsAlpha, or, for counts
// and bytes, a difference within the unit's Tolerance): a strategy starts a new group when it
// is separable from any member of the current one, so inseparable neighbours never chain a
// fast strategy and a slow one together. Two strategies are separated only when the test
// and the 95% interval of their ratio agree: a significant test whose ratio interval holds 1
// (or has none) leaves them together, marked in Why.
// A group also ends where the U test gave no verdict (too few repetitions) between different
// medians: untested strategies are not grouped.
func (k Ranking) Split() Grouping {
	var g Grouping
	if len(k.Ranked) == 0 {
		return g
	}
	g.Why = make([]string, len(k.Ranked))
	g.Note = make([]string, len(k.Ranked))
	g.Why[0] = "best"
	cur := []int{0}
	tolText := fmt.Sprintf("%g %s", k.Tol, k.Headline.Unit)
	for i := 1; i < len(k.Ranked); i++ {
		r := k.Ranked[i]
		if r.Unranked != "" { // listed after the ranked ones, in a group of their own
			if k.Ranked[cur[0]].Unranked == "" {
				g.Groups = append(g.Groups, cur)
				g.Untested = append(g.Untested, false)
				cur = nil
			}
			cur = append(cur, i)
			g.Why[i] = r.Unranked
			continue
		}
		why, untested := "", false
		near, nearP := -1, math.Inf(1) // the member it is least clearly equal to
		for _, m := range cur {
			v := k.pair(m, i)
			// Medians within the unit's tolerance (29.2 and 29.6 heap-B/cmd) are no
			// difference a test must judge: too few repetitions leave them together.
			differ := math.Abs(k.Ranked[m].Summary.Median-r.Summary.Median) > k.Tol
			switch {
			case v.Separated && v.Exact && k.Tol == 0:
				why = fmt.Sprintf("apart from %s (samples do not vary)", k.Ranked[m].Strategy)
			case v.Separated && v.Exact:
				why = fmt.Sprintf("apart from %s by more than %s (samples vary less)", k.Ranked[m].Strategy, tolText)
			case v.Separated && v.ByPaired:
				why = fmt.Sprintf("separated from %s (paired ratio %s; signed-rank p=%.3f)", k.Ranked[m].Strategy, v.Ratio.Paired().Text(), v.PairedP)
			case v.Separated:
				why = fmt.Sprintf("separated from %s (p=%.3f, ratio %s)", k.Ranked[m].Strategy, v.P, v.Ratio.Text())
			case v.Note != "" && differ:
				why, untested = fmt.Sprintf("? %s (no verdict: %s)", k.Ranked[m].Strategy, v.Note), true
				g.Note[i] = v.Note
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
		if why != "" {
			g.Groups = append(g.Groups, cur)
			g.Untested = append(g.Untested, untested)
			cur = []int{i}
			g.Why[i] = why
			continue
		}
		cur = append(cur, i)
		v := k.pair(near, i)
		switch {
		case v.Exact && k.Tol == 0:
			g.Why[i] = fmt.Sprintf("≈ %s (equal; samples do not vary)", k.Ranked[near].Strategy)
		case v.Exact:
			g.Why[i] = fmt.Sprintf("≈ %s (within %s)", k.Ranked[near].Strategy, tolText)
		case v.Note != "" && k.Ranked[near].Summary.Median != r.Summary.Median:
			g.Why[i] = fmt.Sprintf("≈ %s (medians within %s; no test: %s)", k.Ranked[near].Strategy, tolText, v.Note)
		case v.Note != "":
			g.Why[i] = fmt.Sprintf("≈ %s (equal medians; no test: %s)", k.Ranked[near].Strategy, v.Note)
		case v.Tolerated: // the test separates them, the tolerance does not
			g.Why[i] = fmt.Sprintf("≈ %s (within %s, the unit's tolerance)", k.Ranked[near].Strategy, tolText)
		case v.Disputed: // the test separates them, the ratio's interval does not
			g.Why[i] = fmt.Sprintf("≈ %s (p=%.3f, %s)", k.Ranked[near].Strategy, v.P, v.Ratio.disputeText())
		default:
			g.Why[i] = fmt.Sprintf("≈ %s (p=%.3f)", k.Ranked[near].Strategy, v.P)
		}
		if len(cur) > 2 {
			g.Why[i] = "≈ each of its group; closest call " + strings.TrimPrefix(g.Why[i], "≈ ")
		}
	}
	g.Groups = append(g.Groups, cur)
	return g
}

// AllTolerated reports whether every pair of group g is equal by the unit's Tolerance (an
// exact comparison, or a significant difference within it) rather than by noise.
func (k Ranking) AllTolerated(g []int) bool {
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
	tol := results.Tolerance(unit)
	ma, mb := medianOf(a), medianOf(b)
	if results.Deterministic(unit) && agree(a, tol) && agree(b, tol) {
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
func (d *Run) rank(h suite.Headline, id RowID) (Ranking, bool) {
	k := Ranking{Headline: h, Row: id, Params: d.params[id]}
	var base []obs
	for _, st := range d.strategies[id] {
		os := d.samples[sampleKey{id, st, h.Unit}]
		if len(os) == 0 {
			continue
		}
		if st == suite.BaselineName {
			base = os
			s := summarizeValues(values(os))
			k.Baseline = &s
			continue
		}
		if suite.IsControl(st) {
			continue
		}
		k.Ranked = append(k.Ranked, Ranked{Strategy: st, Summary: summarizeValues(values(os)), Samples: values(os)})
	}
	if len(k.Ranked) == 0 {
		return k, false
	}
	if h.Within != "" {
		within := map[string]float64{}
		top := math.Inf(-1)
		for _, r := range k.Ranked {
			if os := d.samples[sampleKey{id, r.Strategy, h.Within}]; len(os) > 0 {
				within[r.Strategy] = medianOf(values(os))
				top = math.Max(top, within[r.Strategy])
			}
		}
		for i := range k.Ranked {
			r := &k.Ranked[i]
			if w, ok := within[r.Strategy]; ok && top > 0 && w < top/10 {
				r.Unranked = fmt.Sprintf("not ranked by %s: %s %s, %s× the best's %s", h.Unit,
					results.FormatValue(w, h.Within), h.Within, results.Sig3(w/top, false), results.FormatValue(top, h.Within))
			}
		}
	}
	sort.SliceStable(k.Ranked, func(i, j int) bool {
		if ui, uj := k.Ranked[i].Unranked != "", k.Ranked[j].Unranked != ""; ui != uj {
			return uj
		}
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
	d.setAgainst(&k, obsOf)
	k.Tol = results.Tolerance(h.Unit)
	k.pairs = make([][]pairVerdict, len(k.Ranked))
	for i := range k.Ranked {
		k.pairs[i] = make([]pairVerdict, len(k.Ranked))
		for j := i + 1; j < len(k.Ranked); j++ {
			v := compare(k.Ranked[i].Samples, k.Ranked[j].Samples, h.Unit, &th)
			v.PairedP = math.NaN()
			if !v.Exact {
				a, ref := obsOf(k.Ranked[j].Strategy), obsOf(k.Ranked[i].Strategy)
				v.Ratio, v.HasRatio = ratioOf(a, ref)
				if interleaved(a, ref) {
					logs := make([]float64, 0, len(a))
					for x := range a {
						if a[x].v > 0 && ref[x].v > 0 {
							logs = append(logs, math.Log(a[x].v/ref[x].v))
						}
					}
					if len(logs) == len(a) {
						v.PairedP, _ = SignedRankP(logs)
					}
				}
			}
			k.pairs[i][j] = v
		}
	}
	k.Need = strings.ReplaceAll(FillParams(h.Need, k.Params), "{GOMAXPROCS}", strconv.Itoa(id.Procs))
	// A row measured on archetype storage says so in its requirement: a verdict holds for the
	// storage it was measured on (rows without the parameter are on slots, the default).
	for _, p := range k.Params {
		if p.Key == "storage" && !strings.Contains(h.Need, "{storage}") {
			k.Need += " on " + p.Value + " storage"
		}
	}
	return k, true
}

func summarizeValues(v []float64) results.Summary {
	s := newSample(v, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	row := results.Summary{N: len(v), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
	if math.IsInf(row.Lo, 0) || math.IsNaN(row.Lo) || math.IsInf(row.Hi, 0) || math.IsNaN(row.Hi) {
		row.Lo, row.Hi, row.NoCI = row.Median, row.Median, true
	}
	return row
}

func CountNoCI(ks []Ranking) int {
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

// RatioMethods counts the ratios by method used and returns the median CI half-widths of
// the paired and unpaired methods over the ratios where both gave one.
func RatioMethods(ks []Ranking) (paired, unpaired int, pairedHalf, unpairedHalf float64) {
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

// Rankings ranks every headline of every scenario of d; cores is the run's NumCPU.
func (d *Run) Rankings(cores int) []Ranking {
	var out []Ranking
	for _, sc := range d.scenarios {
		var ks []Ranking
		for _, h := range suite.HeadlinesOf(sc) {
			for _, id := range d.selectRows(sc, h, cores) {
				if k, ok := d.rank(h, id); ok {
					ks = append(ks, k)
				}
			}
		}
		// One method per scenario: paired where its intervals are no wider (the median
		// half-width over the scenario's ratios that have both), else unpaired. Choosing
		// ratio by ratio would pick the luckier interval each time.
		_, _, ph, uh := RatioMethods(ks)
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
				for a := range r.VsAgainst {
					if r.HasAgainst[a] {
						r.VsAgainst[a].use(method)
					}
				}
			}
			for a := range ks[i].pairs {
				for b := a + 1; b < len(ks[i].pairs[a]); b++ {
					v := &ks[i].pairs[a][b]
					if v.HasRatio {
						v.Ratio.use(method)
					}
					v.confirm(ks[i].Tol, math.Abs(ks[i].Ranked[a].Summary.Median-ks[i].Ranked[b].Summary.Median))
				}
			}
		}
		out = append(out, ks...)
	}
	return out
}

// selectRows returns the rows of scenario sc that headline h ranks.
func (d *Run) selectRows(sc string, h suite.Headline, cores int) []RowID {
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
		var keep []RowID
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
			cands = append(cands, id.Procs)
		}
		p := pick(cands)
		var keep []RowID
		for _, id := range rows {
			if id.Procs == p {
				keep = append(keep, id)
			}
		}
		rows = keep
	}
	var out []RowID
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
