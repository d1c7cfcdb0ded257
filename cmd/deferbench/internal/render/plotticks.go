package render

import (
	"math"
	"strconv"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"gonum.org/v1/plot"
)

// humanTicks marks an axis in human units (FormatValue of unit): on a log axis at 1-2-5 (or
// every integer mantissa over less than about a decade) steps of every decade, with the
// minor steps unlabelled over many decades; on a linear axis at five to seven labelled 1-2-5
// steps.
type humanTicks struct {
	unit string
	log  bool
}

// Ticks implements plot.Ticker.
func (t humanTicks) Ticks(lo, hi float64) []plot.Tick {
	if !t.log {
		if !(hi > lo) {
			return []plot.Tick{{Value: lo, Label: results.FormatTick(lo, t.unit)}}
		}
		step := niceAbove((hi - lo) / 6)
		var ticks []plot.Tick
		for i := math.Ceil(lo / step); i*step <= hi*(1+1e-9); i++ {
			v := i * step
			ticks = append(ticks, plot.Tick{Value: v, Label: results.FormatTick(v, t.unit)})
		}
		return ticks
	}
	if lo <= 0 {
		lo = hi / 1000
	}
	span := math.Log10(hi / lo)
	labelled := map[int]bool{1: true, 2: true, 5: true}
	switch {
	case span <= 1.2:
		labelled = map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true}
	case span > 3:
		labelled = map[int]bool{1: true}
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if labelled[m] {
				tk.Label = results.FormatTick(v, t.unit)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// integerTicks marks every integer of a small count axis (every nth of a larger one).
type integerTicks struct{}

// Ticks implements plot.Ticker.
func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/10))
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return ticks
}

// niceBelow is the largest 1-2-5 step (1, 2, 5, 10, 20, …) at most x; niceAbove the smallest
// at least x.
func niceBelow(x float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{5, 2, 1} {
		if m*e <= x {
			return m * e
		}
	}
	return e
}

func niceAbove(x float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= x*(1-1e-12) {
			return m * e
		}
	}
	return 10 * e
}
