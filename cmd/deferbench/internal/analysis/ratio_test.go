package analysis

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestCrossRatios: the order statistics crossRatios finds without listing the ratios are
// exactly those of the sorted list of every x/y, ties, zeros and extreme values included.
func TestCrossRatios(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n, m := 1+rng.IntN(12), 1+rng.IntN(12)
		draw := func(k int, zero bool) []float64 {
			xs := make([]float64, k)
			for i := range xs {
				switch rng.IntN(6) {
				case 0:
					xs[i] = float64(rng.IntN(3)) // ties
				case 1:
					xs[i] = math.Ldexp(1+rng.Float64(), rng.IntN(2000)-1000) // extremes
				default:
					xs[i] = 10 + rng.Float64()*100
				}
				if !zero && xs[i] == 0 {
					xs[i] = 1
				}
			}
			sort.Float64s(xs)
			return xs
		}
		xs, ys := draw(n, true), draw(m, false)
		var all []float64
		for _, x := range xs {
			for _, y := range ys {
				all = append(all, x/y)
			}
		}
		sort.Float64s(all)
		c := crossRatios{xs: xs, ys: ys}
		for k := range all {
			if got := c.kth(int64(k)); got != all[k] {
				t.Fatalf("trial %d: kth(%d) = %v; want %v (xs %v, ys %v)", trial, k, got, all[k], xs, ys)
			}
		}
		if got, want := c.median(), median(all); got != want {
			t.Fatalf("trial %d: median %v; want %v", trial, got, want)
		}
	}
}

// TestRatioOfLargeSamples: the unpaired ratio of two strategies with 60,000 samples each
// (3.6e9 cross ratios, 29 GB if listed) is computed in bounded memory.
func TestRatioOfLargeSamples(t *testing.T) {
	a, ref := make([]obs, 60_000), make([]obs, 60_000)
	for i := range a {
		a[i] = obs{v: 20 + float64(i%1000)/100, pos: 2 * i}
		ref[i] = obs{v: 10 + float64(i%997)/100, pos: 2*i + 1}
	}
	r, ok := ratioOf(a, ref)
	if !ok || !(r.unpaired.c > 1.5 && r.unpaired.c < 2.5) || !r.unpaired.ci || !(r.unpaired.lo <= r.unpaired.c && r.unpaired.c <= r.unpaired.hi) {
		t.Errorf("ratioOf(60,000 samples) = %+v, %v; want about 2 with an interval", r.unpaired, ok)
	}
}

// TestRatioPairedNarrower: with drift shared by both sides of a ratio, the paired interval
// is much narrower than the unpaired one and holds the true ratio.
func TestRatioPairedNarrower(t *testing.T) {
	var a, b []obs
	for rep := range stageReps {
		d := drift(rep)
		b = append(b, obs{100 * d * jitter("b", rep), 2 * rep})
		a = append(a, obs{200 * d * jitter("a", rep), 2*rep + 1})
	}
	r, ok := ratioOf(a, b)
	if !ok {
		t.Fatal("no ratio")
	}
	if !(r.PairedHalf < r.UnpairedHalf/2) {
		t.Errorf("paired half-width %.3f, unpaired %.3f: want paired much narrower", r.PairedHalf, r.UnpairedHalf)
	}
	r.use("paired")
	if r.Method != "paired" || !(r.Lo <= 2*1.001 && r.Hi >= 2*0.999) || math.Abs(r.Center-2) > 0.05 {
		t.Errorf("paired ratio %v (%v–%v) by %s: want about 2 with 2 inside", r.Center, r.Lo, r.Hi, r.Method)
	}
	// Not interleaved: no paired estimate, the unpaired one is used.
	sort.Slice(b, func(i, j int) bool { return b[i].v < b[j].v })
	for i := range b {
		b[i].pos = 100 + i
	}
	r, _ = ratioOf(a, b)
	r.use("paired")
	if r.Method != "unpaired" || !math.IsNaN(r.PairedHalf) {
		t.Errorf("not interleaved: method %s, paired half %v; want unpaired and none", r.Method, r.PairedHalf)
	}
	// A reference of zero has no ratio.
	if _, ok := ratioOf(a, []obs{{0, 0}, {0, 1}}); ok {
		t.Error("ratio to a zero reference")
	}
}

// stageReps is the repetitions of the ratio tests' runs.
const stageReps = 10

// drift is machine drift shared by every strategy of repetition rep.
func drift(rep int) float64 { return 1 + 0.06*math.Sin(float64(rep)*1.7) }

// jitter is strategy st's own noise in repetition rep.
func jitter(st string, rep int) float64 {
	h := 0
	for _, c := range st {
		h = h*31 + int(c)
	}
	return 1 + 0.02*math.Sin(float64(h%97)+float64(rep)*2.3)
}
