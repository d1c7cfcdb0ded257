package render

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barPoint is one bar: a result's name, a sub-category ("p50"; "" for none) and its summary.
type barPoint struct {
	n   results.Name
	sub string
	s   results.Summary
}

// axisMode forces an axis linear; the default is logarithmic when the values span more
// than 10×.
type axisMode int

const linearAxis axisMode = 1

// spansDecade reports whether [lo, hi] spans more than 10× (lo > 0).
func spansDecade(lo, hi float64) bool { return lo > 0 && hi/lo > 10 }

// barChart draws pts: one group per category (the variant, with its sub-category and
// GOMAXPROCS where needed) along x, one entry per strategy with its marker at the median and
// the 95% CI as an error bar. On a linear axis, which starts at 0, each entry is a bar; the y
// axis is logarithmic when the medians span more than 10× (unless mode says linear), and
// then there are no bars, only the markers and intervals: a bar on a log axis starts from
// an arbitrary floor, so its length says nothing (a 28× ratio looked like 4×). An interval
// reaching beyond clipAbove times the largest median (a noisy outlier) would squeeze every
// other value into the bottom of the axis: the axis stops there, the interval is cut at it
// and a triangle marks the cut. It returns nil when pts is empty, whether the axis is
// logarithmic, and how many intervals it cut.
func barChart(pts []barPoint, unit string, strategies []string, style func(string) Style, cores int, mode ...axisMode) (*plot.Plot, bool, int) {
	procs := map[int]bool{}
	for _, pt := range pts {
		procs[pt.n.Procs] = true
	}
	label := func(pt barPoint) string {
		v := strings.ReplaceAll(pt.n.Variant(), " ", "\n")
		if pt.sub != "" {
			v = strings.TrimSpace(v + "\n" + pt.sub)
		}
		if len(procs) > 1 {
			v = strings.TrimSpace(v + "\nGOMAXPROCS=" + strconv.Itoa(pt.n.Procs))
			if cores > 0 && pt.n.Procs > cores {
				v += "\n(oversubscribed)"
			}
		}
		return v
	}
	var variants []string
	vi := map[string]int{}
	val := map[[2]string]results.Summary{}
	onlyProcs := 0
	for _, pt := range pts {
		v := label(pt)
		if _, ok := vi[v]; !ok {
			vi[v] = len(variants)
			variants = append(variants, v)
		}
		val[[2]string{pt.n.Strategy, v}] = pt.s
		onlyProcs = pt.n.Procs
	}
	if len(variants) == 0 {
		return nil, false, 0
	}
	var drawn []string
	lo, hi := math.Inf(1), 0.0   // the axis: medians and intervals
	mlo, mhi := math.Inf(1), 0.0 // the medians, which decide a log axis
	for _, st := range strategies {
		has := false
		for _, v := range variants {
			if x, ok := val[[2]string{st, v}]; ok {
				has = true
				if x.Median > 0 {
					mlo, mhi = math.Min(mlo, x.Median), math.Max(mhi, x.Median)
					lo, hi = math.Min(lo, x.Median), math.Max(hi, math.Max(x.Median, x.Hi))
					if x.Lo > 0 {
						lo = math.Min(lo, x.Lo)
					}
				}
			}
		}
		if has {
			drawn = append(drawn, st)
		}
	}
	logY := spansDecade(mlo, mhi) && !(len(mode) > 0 && mode[0] == linearAxis)
	cut := math.Inf(1)
	switch {
	case !logY && mhi > 0 && hi > clipAbove*mhi:
		cut = clipAbove * mhi
		hi = cut / 1.1
	case logY && mhi > 0 && hi > clipAbove*clipAbove*mhi:
		cut = clipAbove * clipAbove * mhi
		hi = cut / 1.3
	}
	clipped := 0
	p := newPlot()
	if len(procs) == 1 {
		p.X.Label.Text = fmt.Sprintf("GOMAXPROCS=%d", onlyProcs)
		if cores > 0 && onlyProcs > cores {
			p.X.Label.Text += " (oversubscribed)"
		}
	}
	floor := 0.0
	if logY {
		floor = niceBelow(lo / 1.5)
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = humanTicks{unit: unit, log: true}
	} else {
		p.Y.Tick.Marker = humanTicks{unit: unit}
	}
	if hi == 0 {
		hi = 1
	}
	// Each category is one unit wide; the bars of a group fill about 75% of it, of the width
	// the chart is drawn at (chartWidth: wider for many categories, so that their markers
	// keep their size), less the y axis and the legend.
	p.NominalX(variants...)
	slot := chartWidth(p) - 8*vg.Centimeter
	w := slot / vg.Length(len(variants)) * 0.75 / vg.Length(max(len(drawn), 1))
	w = min(w, vg.Points(40))
	base := make(plotter.Values, len(variants))
	for j := range base {
		base[j] = floor
	}
	for i, st := range drawn {
		vs := make(plotter.Values, len(variants))
		var marks, spans, cuts plotter.XYs
		var errs plotter.YErrors
		for j, v := range variants {
			x, ok := val[[2]string{st, v}]
			if !ok {
				continue
			}
			if x.Median > floor {
				vs[j] = x.Median - floor
			}
			if !logY || x.Median > 0 {
				top := x.Hi
				if top > cut {
					top = cut
					cuts = append(cuts, plotter.XY{X: float64(j), Y: cut})
					clipped++
				}
				marks = append(marks, plotter.XY{X: float64(j), Y: x.Median})
				if low, high := x.Median-math.Max(x.Lo, floor), top-x.Median; low > 0 || high > 0 {
					// A median without an interval (fewer than 6 repetitions) gets no
					// bar: its caps would draw a dash across the marker.
					spans = append(spans, plotter.XY{X: float64(j), Y: x.Median})
					errs = append(errs, struct{ Low, High float64 }{low, high})
				}
			}
		}
		bars, err := plotter.NewBarChart(vs, w)
		if err != nil {
			continue // only for negative values, which no metric has
		}
		sty := style(st)
		bars.Color = sty.Color
		bars.LineStyle.Width = 0
		off := vg.Length(float64(i)-float64(len(drawn)-1)/2) * w
		bars.Offset = off
		if !logY {
			p.Add(bars)
		}
		if len(cuts) > 0 {
			tri, _ := plotter.NewScatter(cuts)
			tri.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: min(vg.Points(4), w/2), Shape: cutGlyph}
			p.Add(shifted{tri, off})
		}
		switch {
		case len(marks) > 0 && logY: // dots and intervals, coloured, no bar
			if len(spans) > 0 {
				p.Add(shifted{&plotter.YErrorBars{XYs: spans, YErrors: errs, LineStyle: draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)}, CapWidth: min(vg.Points(5), w*0.6)}, off})
			}
			sc, _ := plotter.NewScatter(marks)
			sc.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: min(vg.Points(4), w/2), Shape: sty.Glyph}
			p.Add(shifted{sc, off})
			p.Legend.Add(st, sc)
		case len(marks) > 0:
			if len(spans) > 0 {
				p.Add(shifted{&plotter.YErrorBars{XYs: spans, YErrors: errs, LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}, CapWidth: min(vg.Points(5), w*0.6)}, off})
			}
			sc, _ := plotter.NewScatter(marks)
			mark := markOn(sty.Color)
			sc.GlyphStyle = draw.GlyphStyle{Color: mark, Radius: min(vg.Points(3), w/3), Shape: sty.Glyph}
			p.Add(shifted{sc, off})
			p.Legend.Add(st, bars, legendGlyph{sty.Glyph, mark})
		default:
			p.Legend.Add(st, bars)
		}
	}
	p.X.Min, p.X.Max = -0.5, float64(len(variants))-0.5
	if logY {
		p.Y.Min, p.Y.Max = floor, niceAbove(hi*1.3)
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	return p, logY, clipped
}

// clipAbove is how far past the largest median an interval may reach before the axis stops
// (on a log axis, its square).
const clipAbove = 2.5

// shifted draws a plotter moved right by off (a bar's offset within its group).
type shifted struct {
	plot.Plotter
	off vg.Length
}

// Plot implements plot.Plotter.
func (s shifted) Plot(c draw.Canvas, plt *plot.Plot) {
	c.Push()
	c.Translate(vg.Point{X: s.off})
	s.Plotter.Plot(c, plt)
	c.Pop()
}

// linePlot draws one line per strategy of the values of scenario sc among pts against the
// numeric parameter key (log x), at GOMAXPROCS procs (-1: any), each point with its 95% CI
// as an error bar; the y axis is logarithmic when the values span more than 10×. A chart of
// efficiency draws the ideal, 1, as a dashed grey line in the legend, the axis reaching it. It
// returns nil when there are fewer than two x values, and whether y is logarithmic.
func linePlot(pts []point, sc, key string, procs int, unit string, strategies []string, style func(string) Style) (*plot.Plot, bool, int) {
	lines := map[string][]point{}
	xs := map[float64]bool{}
	lo, hi := math.Inf(1), 0.0   // the axis: medians and intervals
	mlo, mhi := math.Inf(1), 0.0 // the medians, which decide a log axis
	for _, pt := range pts {
		if pt.n.Scenario != sc || (procs >= 0 && pt.n.Procs != procs) {
			continue
		}
		x, err := strconv.ParseFloat(pt.n.Param(key), 64)
		if err != nil || x <= 0 || math.IsNaN(pt.s.Median) || math.IsInf(pt.s.Median, 0) {
			continue
		}
		lines[pt.n.Strategy] = append(lines[pt.n.Strategy], pt)
		xs[x] = true
		if pt.s.Median > 0 {
			mlo, mhi = math.Min(mlo, pt.s.Median), math.Max(mhi, pt.s.Median)
			lo = math.Min(lo, pt.s.Median)
			if pt.s.Lo > 0 {
				lo = math.Min(lo, pt.s.Lo)
			}
		}
		hi = math.Max(hi, math.Max(pt.s.Median, pt.s.Hi))
	}
	if len(xs) < 2 {
		return nil, false, 0
	}
	logY := spansDecade(mlo, mhi)
	cut := math.Inf(1) // as barChart: an outlier interval is cut at the axis, marked ▲
	switch {
	case !logY && mhi > 0 && hi > clipAbove*mhi:
		cut = clipAbove * mhi
		hi = cut / 1.1
	case logY && mhi > 0 && hi > clipAbove*clipAbove*mhi:
		cut = clipAbove * clipAbove * mhi
		hi = cut / 1.2
	}
	if unit == "efficiency" {
		// The axis reaches the ideal, 1, drawn below as a reference line.
		lo, hi = math.Min(lo, 1), math.Max(hi, 1)
	}
	clipped := 0
	p := newPlot()
	p.X.Label.Text = key
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for x := range xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: results.FormatTick(x, "")})
	}
	sort.Slice(ticks, func(a, b int) bool { return ticks[a].Value < ticks[b].Value })
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Padding = vg.Points(12)
	p.Y.Tick.Marker = humanTicks{unit: unit, log: logY}
	if logY {
		p.Y.Scale = plot.LogScale{}
	}
	floor := 0.0
	if logY {
		floor = niceBelow(lo / 1.2)
	}
	for _, st := range strategies {
		ps := lines[st]
		if len(ps) == 0 {
			continue
		}
		xf := func(pt point) float64 { x, _ := strconv.ParseFloat(pt.n.Param(key), 64); return x }
		sort.Slice(ps, func(a, b int) bool { return xf(ps[a]) < xf(ps[b]) })
		var xy, spans, cuts plotter.XYs
		var errs plotter.YErrors
		for _, pt := range ps {
			if logY && pt.s.Median <= 0 {
				continue
			}
			top := pt.s.Hi
			if top > cut {
				top = cut
				cuts = append(cuts, plotter.XY{X: xf(pt), Y: cut})
				clipped++
			}
			xy = append(xy, plotter.XY{X: xf(pt), Y: pt.s.Median})
			if low, high := pt.s.Median-math.Max(pt.s.Lo, floor), top-pt.s.Median; low > 0 || high > 0 {
				spans = append(spans, plotter.XY{X: xf(pt), Y: pt.s.Median}) // no bar without an interval
				errs = append(errs, struct{ Low, High float64 }{low, high})
			}
		}
		if len(cuts) > 0 {
			tri, _ := plotter.NewScatter(cuts)
			tri.GlyphStyle = draw.GlyphStyle{Color: style(st).Color, Radius: vg.Points(4), Shape: cutGlyph}
			p.Add(tri)
		}
		if len(xy) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			continue // only for NaN or infinite values, which Summarize does not give
		}
		sty := style(st)
		l.Color, s.Color = sty.Color, sty.Color
		l.Width = vg.Points(1.5)
		s.Shape = sty.Glyph
		s.Radius = vg.Points(3)
		p.Add(l)
		if len(spans) > 0 {
			p.Add(&plotter.YErrorBars{XYs: spans, YErrors: errs, LineStyle: draw.LineStyle{Color: sty.Color, Width: vg.Points(1)}, CapWidth: vg.Points(6)})
		}
		p.Add(s)
		p.Legend.Add(st, l, s)
	}
	if unit == "efficiency" {
		ideal := plotter.NewFunction(func(float64) float64 { return 1 })
		ideal.Color, ideal.Width, ideal.Dashes = color.Gray{Y: 96}, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ideal)
		p.Legend.Add("ideal = 1", ideal)
	}
	if logY {
		p.Y.Min, p.Y.Max = floor, niceAbove(hi*1.2)
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	return p, logY, clipped
}

func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.Padding = vg.Points(8)
	p.X.Label.Padding = vg.Points(4)
	p.Add(plotter.NewGrid())
	return p
}

// chartWidth returns the width p is drawn at: 20 cm, or wider where the labels of a nominal x
// axis (one per category) would overlap at 20 cm: each category then gets its widest label
// line and a gap, beside about 8 cm of y axis and legend, up to 80 cm (past that the labels
// overlap again rather than the image growing without bound). Before this the 8 categories of
// StageApply (mix=… with storage=archetypes below) ran into each other.
func chartWidth(p *plot.Plot) vg.Length {
	const side, gap, most = 8 * vg.Centimeter, 0.5 * vg.Centimeter, 80 * vg.Centimeter
	ticks, ok := p.X.Tick.Marker.(plot.ConstantTicks)
	if !ok || len(ticks) == 0 {
		return 20 * vg.Centimeter
	}
	widest := vg.Length(0)
	for _, t := range ticks {
		widest = max(widest, p.X.Tick.Label.Width(t.Label))
	}
	return min(max(20*vg.Centimeter, side+vg.Length(len(ticks))*(widest+gap)), most)
}

// render draws p on a w×h canvas in format ext with a margin, the legend in a column right of
// the plot (so it never covers the data) and a white background.
func render(p *plot.Plot, w, h vg.Length, ext string) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(w, h, ext)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	margin := vg.Points(10)
	dc = draw.Crop(dc, margin, -margin, margin, -margin)

	leg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	lw := leg.Rectangle(dc).Size().X
	gap := vg.Points(12)
	// The title is centred over the plot beside the legend: wrapped to its width, so that a
	// loaded run's long title ("… (▲: 2 intervals cut at the axis) [Loaded, Noisy]") never
	// starts left of the canvas.
	avail := dc.Size().X
	if lw > 0 {
		avail -= lw + gap
	}
	title := p.Title.Text
	p.Title.Text = wrapTitle(title, avail, p.Title.TextStyle.Width)
	defer func() { p.Title.Text = title }()
	if lw == 0 {
		p.Draw(dc)
	} else {
		p.Draw(draw.Crop(dc, 0, -(lw + gap), 0, 0))
		top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + vg.Points(6)
		leg.Left, leg.Top = true, true
		leg.Padding = vg.Points(3)
		leg.Draw(draw.Crop(dc, dc.Size().X-lw, 0, 0, -top))
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// wrapTitle breaks title into lines no wider than w (by width), at spaces, keeping a group in
// brackets or parentheses ("[Loaded, Noisy]", "(log x)") on one line; a word or group wider
// than w alone is cut and ends in "…".
func wrapTitle(title string, w vg.Length, width func(string) vg.Length) string {
	if width(title) <= w {
		return title
	}
	var words []string
	depth := 0 // open brackets and parentheses: a group stays on one line
	for _, f := range strings.Split(title, " ") {
		if n := len(words); n > 0 && depth > 0 {
			words[n-1] += " " + f
		} else {
			words = append(words, f)
		}
		depth += strings.Count(f, "(") + strings.Count(f, "[") - strings.Count(f, ")") - strings.Count(f, "]")
		depth = max(depth, 0)
	}
	fit := func(s string) string {
		if width(s) <= w {
			return s
		}
		r := []rune(s)
		for len(r) > 1 && width(string(r)+"…") > w {
			r = r[:len(r)-1]
		}
		return string(r) + "…"
	}
	var lines []string
	cur := ""
	for _, wd := range words {
		switch {
		case cur == "":
			cur = wd
		case width(cur+" "+wd) <= w:
			cur += " " + wd
		default:
			lines = append(lines, fit(cur))
			cur = wd
		}
	}
	lines = append(lines, fit(cur))
	return strings.Join(lines, "\n")
}

type point struct {
	n results.Name
	s results.Summary
}

// addBound draws the limit y = bound as a dashed red line across p, its axis stretched to show
// it, and names it in the legend.
func addBound(p *plot.Plot, bound float64) {
	l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: bound}, {X: p.X.Max, Y: bound}})
	if err != nil {
		return // only for a NaN or infinite bound, which no chart declares
	}
	l.Color = color.RGBA{0xC0, 0x00, 0x00, 0xff}
	l.Width = vg.Points(1)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("limit (%s)", strconv.FormatFloat(bound, 'g', -1, 64)), l)
	p.Y.Max = math.Max(p.Y.Max, bound*1.1)
}
