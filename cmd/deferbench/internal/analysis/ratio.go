package analysis

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchmath"
)

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

// hull returns the smallest interval holding both methods' 95% intervals (each widened to
// hold the ratio of the medians, as use widens the one shown), and ok false when neither
// method gives one. A separation or a "shown within" read from the hull holds by either
// method: which one a scenario shows (use) depends on the intervals' widths, which noise
// changes, so a verdict read from the method shown could appear with more noise when the
// choice flips to the method that happens to separate.
func (r Ratio) hull() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, e := range []estimate{r.paired, r.unpaired} {
		if !e.ok || !e.ci {
			continue
		}
		lo, hi, ok = math.Min(lo, math.Min(e.lo, r.ofMedians)), math.Max(hi, math.Max(e.hi, r.ofMedians)), true
	}
	return lo, hi, ok
}

// disputeText says which 95% interval of r kept a significant test from separating two
// strategies (pairVerdict.confirm reads both methods'): the one shown when it holds 1, else
// the other method's, named ("but the paired ratio's 95% CI 1.43× (0.97–1.60) holds 1"), or
// that there is none. Quoting the shown interval alone would print one that excludes 1.
func (r Ratio) disputeText() string {
	holds := func(x Ratio) bool { return !x.NoCI && x.Lo <= 1 && x.Hi >= 1 }
	if holds(r) {
		return "but the ratio's 95% CI " + r.Text() + " holds 1"
	}
	for _, m := range []string{"paired", "unpaired"} {
		if m == r.Method {
			continue
		}
		o := r
		o.use(m)
		if o.Method == m && holds(o) {
			return "but the " + m + " ratio's 95% CI " + o.Text() + " holds 1"
		}
	}
	if r.NoCI {
		return "but the ratio has no 95% CI"
	}
	return "but the ratio's 95% CI " + r.Text() + " holds 1" // a ratio set by hand
}

// Paired returns r as the paired method gives it (the interval widened to hold the ratio of
// the medians, as use does), whichever method r shows; r itself when that method gives none.
func (r Ratio) Paired() Ratio {
	if !r.paired.ok {
		return r
	}
	p := r
	p.use("paired")
	return p
}

// pairedExcludes reports whether the paired method gives an interval (widened to hold the
// ratio of the medians) that excludes 1.
func (r Ratio) pairedExcludes() bool {
	e := r.paired
	if !e.ok || !e.ci {
		return false
	}
	lo, hi := math.Min(e.lo, r.ofMedians), math.Max(e.hi, r.ofMedians)
	return lo > 1 || hi < 1
}

// Half is a CI's half-width as a fraction of its center: the larger side.
func Half(c, lo, hi float64) float64 {
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
		r.UnpairedHalf = Half(u.c, u.lo, u.hi)
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
				r.PairedHalf = Half(p.c, p.lo, p.hi)
			}
			r.paired = p
		}
	}
	r.use("unpaired")
	return r, true
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

// FillParams replaces {key} in s by the value of key in ps.
func FillParams(s string, ps []results.Param) string {
	for _, p := range ps {
		s = strings.ReplaceAll(s, "{"+p.Key+"}", results.FormatCount(p.Value))
	}
	return s
}

// Text is "1.81× (1.75–1.90)" or "1.81× (no CI)".
func (r Ratio) Text() string {
	if r.Method == "identity" {
		return "1×"
	}
	c := results.Sig3(r.Center, false) + "×"
	if r.NoCI {
		return c + " (no CI)"
	}
	return c + " (" + bound(r.Lo) + "–" + bound(r.Hi) + ")"
}

// bound is an interval's end in three significant digits, or more (up to 8 decimals) when
// three would print 1.00 for an end that is not 1: whether it excludes 1 is what a reader
// checks.
func bound(x float64) string {
	s := results.Sig3(x, false)
	for d := 3; x != 1 && d <= 8; d++ {
		if v, err := strconv.ParseFloat(s, 64); err != nil || v != 1 {
			break
		}
		s = strconv.FormatFloat(x, 'f', d, 64)
	}
	return s
}
