package render

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotOptions is what Plot needs besides the results.
type PlotOptions struct {
	// Cores is the run's NumCPU: charts at a GOMAXPROCS above it are labelled
	// oversubscribed. 0: unknown, nothing labelled.
	Cores int
}

// Plot is PlotWith without options.
func Plot(rs []*benchfmt.Result, dir string) ([]string, error) {
	return PlotWith(rs, dir, PlotOptions{})
}

// MaxChartScenarios bounds the scenarios PlotWith draws, and 16 times it the pairs of a
// scenario and a GOMAXPROCS (some charts are per GOMAXPROCS); a chart takes some 20 ms: a deferbench run
// has about ten scenarios at a few GOMAXPROCS, while go test output of a large project can
// have thousands of benchmark functions, which would take minutes and fill plots/.
const MaxChartScenarios = 256

// maxPlotValue is the largest magnitude PlotWith draws: near the float64 maximum the axis
// padding overflows to infinity and the PNG rasterizer never finishes (1.7e308 ns/op).
const maxPlotValue = 1e300

// ErrTooManyCharts is why PlotWith refuses results of more than MaxChartScenarios scenarios.
var ErrTooManyCharts = errors.New("too many charts")

// chartFile is the file name (without extension) of the chart called name, which comes from
// benchmark names in the input: kept as it is when it is short and made of letters, digits,
// '.', '_' and '-' (every chart of a deferbench run); otherwise the unsafe characters become
// '_', it is cut to 80 bytes, and a hash of the whole name keeps two such charts apart, so
// that no benchmark name can make a path that is too long, hidden, or outside the folder.
func chartFile(name string) string {
	safe := func(r rune) bool {
		return r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}
	if name != "" && len(name) <= 80 && name[0] != '.' && !strings.ContainsFunc(name, func(r rune) bool { return !safe(r) }) {
		return name
	}
	b := []byte(strings.Map(func(r rune) rune {
		if safe(r) {
			return r
		}
		return '_'
	}, name))
	if len(b) > 80 {
		b = b[:80]
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("_%s-%08x", b, h.Sum32())
}

// PlotWith draws results into dir as SVG and PNG and returns the files it wrote, each once:
// the charts every scenario declares (Scenario.Charts; a scenario without any, or not in the
// table, gets a bar chart of its median ns/op per variant and strategy). Today:
//   - SCENARIO: Stage, StageApply, Frame and Readers, the median time per op (per frame) of
//     every variant and strategy;
//   - Frame-scaling: Frame's ns/frame against entities, with two or more entity counts;
//     Frame-scaling-G per GOMAXPROCS G when Frame ran at several; Frame-per-entity the same
//     divided by the entities;
//   - Contention-efficiency-G and Contention-throughput-G: efficiency and cmds/s against
//     producers, one chart per GOMAXPROCS G ("oversubscribed" in the title above NumCPU);
//   - Readers-latency: p50 and p99 read latency per readers count and strategy;
//   - Determinism: distinct final states per strategy (1 = reproducible).
//
// Every median carries its 95% confidence interval as an error bar (none with fewer than 6
// repetitions); an axis whose medians span more than 10× is logarithmic. Every strategy has
// its own colour and marker, taken from its row in the strategy table (styleOf). The legend
// stands right of the data.
func PlotWith(rs []*benchfmt.Result, dir string, opt PlotOptions) ([]string, error) {
	scs, runs := map[string]bool{}, map[[2]string]bool{}
	for _, r := range rs {
		n := results.ParseName(string(r.Name))
		scs[n.Scenario] = true
		runs[[2]string{n.Scenario, strconv.Itoa(n.Procs)}] = true
	}
	switch {
	case len(scs) > MaxChartScenarios:
		return nil, fmt.Errorf("%w: the results have %d scenarios (benchmark names before the first /), more than %d", ErrTooManyCharts, len(scs), MaxChartScenarios)
	case len(runs) > 16*MaxChartScenarios:
		// Some charts are drawn per GOMAXPROCS (the -N suffix); a run of every scenario at
		// the 256 GOMAXPROCS values deferbench run -procs allows stays below this.
		return nil, fmt.Errorf("%w: the results have %d scenario and GOMAXPROCS pairs, more than %d", ErrTooManyCharts, len(runs), 16*MaxChartScenarios)
	}
	sums := analysis.Summarize(rs)
	for _, s := range sums {
		for _, x := range []float64{s.Median, s.Lo, s.Hi} {
			if !(math.Abs(x) <= maxPlotValue) {
				return nil, fmt.Errorf("%w: Benchmark%s has %s %s, too large to draw (the axes overflow past %g): correct or delete its lines",
					results.ErrBadValue, s.Name, strconv.FormatFloat(x, 'g', -1, 64), s.Unit, maxPlotValue)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	byUnit := map[string][]point{}
	for _, s := range sums {
		byUnit[s.Unit] = append(byUnit[s.Unit], point{results.ParseName(s.Name), s})
	}
	var files []string
	names := map[string]bool{}
	save := func(p *plot.Plot, name string) error {
		if names[name] {
			return fmt.Errorf("plot %s: two charts with one name", name)
		}
		names[name] = true
		for _, ext := range []string{"svg", "png"} {
			b, err := render(p, 20*vg.Centimeter, 12*vg.Centimeter, ext)
			if err != nil {
				return fmt.Errorf("plot %s: %w", name, err)
			}
			f := filepath.Join(dir, chartFile(name)+"."+ext)
			if err := results.WriteFileAtomic(f, b); err != nil {
				return err
			}
			files = append(files, f)
		}
		return nil
	}

	// Strategies and scenarios in first-seen order.
	var strategies, scenarios []string
	seen := map[string]bool{}
	for _, r := range rs {
		n := results.ParseName(string(r.Name))
		if !seen["s:"+n.Strategy] {
			seen["s:"+n.Strategy] = true
			strategies = append(strategies, n.Strategy)
		}
		if !seen["c:"+n.Scenario] {
			seen["c:"+n.Scenario] = true
			scenarios = append(scenarios, n.Scenario)
		}
	}
	style := styleOf(strategies)
	over := func(g int) string {
		if opt.Cores > 0 && g > opt.Cores {
			return fmt.Sprintf(", oversubscribed: above NumCPU=%d", opt.Cores)
		}
		return ""
	}

	for _, sc := range scenarios {
		def := suite.Lookup(sc)
		for _, ch := range def.ChartsOf() {
			name := ch.Name
			if name == "" {
				name = sc
			}
			title := sc + ": " + ch.Title
			if ch.Against == "" {
				var bars []barPoint
				for _, u := range ch.Units {
					for _, pt := range byUnit[u] {
						if pt.n.Scenario == sc {
							sub := ""
							if len(ch.Units) > 1 {
								sub, _, _ = strings.Cut(u, "-")
							}
							bars = append(bars, barPoint{pt.n, sub, pt.s})
						}
					}
				}
				sortBars(bars, ch.Units)
				mode := axisMode(0)
				if ch.Linear {
					mode = linearAxis
				}
				cores := opt.Cores
				if def.OwnProcs {
					cores = 0
				}
				p, logY := barChart(bars, ch.Units[0], strategies, style, cores, mode)
				if p == nil {
					continue
				}
				p.Title.Text = title + logNote(logY)
				p.Y.Label.Text = ch.YLabel
				if def.OwnProcs {
					p.X.Label.Text = "" // the scenario sets GOMAXPROCS itself
				}
				if ch.CountOf != "" {
					most := 0.0
					for _, b := range bars {
						if r, err := strconv.ParseFloat(b.n.Param(ch.CountOf), 64); err == nil {
							most = math.Max(most, r)
						}
					}
					p.Y.Min = 0
					p.Y.Max = math.Max(p.Y.Max, most) + 1
					p.Y.Tick.Marker = integerTicks{}
				}
				if err := save(p, name); err != nil {
					return files, err
				}
				continue
			}
			// Lines against a numeric parameter, per GOMAXPROCS where needed.
			pts := byUnit[ch.Units[0]]
			if ch.PerAgainst {
				pts = perParam(pts, sc, ch.Against)
			}
			procs := procsOf(pts, sc)
			for _, g := range procs {
				p, logY := linePlot(pts, sc, ch.Against, g, ch.Units[0], strategies, style)
				if p == nil {
					continue
				}
				file, t := name, title
				if ch.PerProcs || len(procs) > 1 {
					file = fmt.Sprintf("%s-%d", name, g)
					t = fmt.Sprintf("%s at GOMAXPROCS=%d%s", title, g, over(g))
				}
				p.Title.Text = t + logNote2(true, logY)
				p.Y.Label.Text = ch.YLabel
				if err := save(p, file); err != nil {
					return files, err
				}
			}
		}
	}
	return files, nil
}

// sortBars orders bars by variant (first seen), then by unit in units order.
func sortBars(bars []barPoint, units []string) {
	first := map[string]int{}
	for i, b := range bars {
		if _, ok := first[b.n.Variant()]; !ok {
			first[b.n.Variant()] = i
		}
	}
	rank := func(b barPoint) int {
		for i, u := range units {
			if strings.HasPrefix(u, b.sub) && b.sub != "" {
				return i
			}
		}
		return 0
	}
	sort.SliceStable(bars, func(i, j int) bool {
		vi, vj := first[bars[i].n.Variant()], first[bars[j].n.Variant()]
		if vi != vj {
			return vi < vj
		}
		return rank(bars[i]) < rank(bars[j])
	})
}

func logNote(logY bool) string {
	if logY {
		return " (log scale)"
	}
	return ""
}

// logNote2 names the log axes of a line chart: x is always logarithmic.
func logNote2(logX, logY bool) string {
	switch {
	case logX && logY:
		return " (log-log)"
	case logX:
		return " (log x)"
	}
	return ""
}

// perParam divides the values of scenario sc by its numeric parameter key (time per
// entity).
func perParam(pts []point, sc, key string) []point {
	var out []point
	for _, pt := range pts {
		if pt.n.Scenario != sc {
			continue
		}
		x, err := strconv.ParseFloat(pt.n.Param(key), 64)
		if err != nil || x <= 0 {
			continue
		}
		s := pt.s
		s.Median, s.Lo, s.Hi = s.Median/x, s.Lo/x, s.Hi/x
		out = append(out, point{pt.n, s})
	}
	return out
}

// procsOf is the GOMAXPROCS values of scenario sc among pts, ascending.
func procsOf(pts []point, sc string) []int {
	seen := map[int]bool{}
	var ps []int
	for _, pt := range pts {
		if pt.n.Scenario == sc && !seen[pt.n.Procs] {
			seen[pt.n.Procs] = true
			ps = append(ps, pt.n.Procs)
		}
	}
	sort.Ints(ps)
	return ps
}

type point struct {
	n results.Name
	s results.Summary
}

// Style is how one strategy is drawn: its colour and its marker.
type Style struct {
	Color color.Color
	Glyph draw.GlyphDrawer
}

// strategyColors and strategyGlyphs are taken in turn by the rows of the strategy table
// (baseline, the first row, is grey): the Okabe-Ito hues, which stay distinguishable with
// colour-blindness, and as many distinct markers. A strategy added to the table gets the
// next pair; names not in the table (a bench.txt of another version) follow in first-seen
// order.
var (
	strategyColors = []color.Color{
		color.RGBA{0x99, 0x99, 0x99, 0xff}, // grey (baseline)
		color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
		color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
		color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
		color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
		color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
		color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
		color.RGBA{0xB8, 0xA0, 0x00, 0xff}, // dark yellow
		color.RGBA{0x8C, 0x56, 0x4B, 0xff}, // brown
		color.RGBA{0x5E, 0x3C, 0x99, 0xff}, // dark purple
		color.RGBA{0x00, 0x5F, 0x5F, 0xff}, // dark teal
	}
	strategyGlyphs = []draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
		draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
	}
)

// styleOf gives every strategy its style: by its row in the strategy table, then the names
// not in it in the order given.
func styleOf(strategies []string) func(string) Style {
	m := map[string]Style{}
	i := 0
	next := func() Style {
		s := Style{strategyColors[i%len(strategyColors)], strategyGlyphs[i%len(strategyGlyphs)]}
		i++
		return s
	}
	for _, s := range suite.Strategies {
		m[s.Name] = next()
	}
	for _, s := range strategies {
		if _, ok := m[s]; !ok {
			m[s] = next()
		}
	}
	return func(s string) Style { return m[s] }
}

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

// barChart draws pts: one group of bars per category (the variant, with its sub-category and
// GOMAXPROCS where needed) along x, one bar per strategy with its marker at the median and
// the 95% CI as an error bar. The y axis is logarithmic when the values span more than 10×
// (unless mode says linear); on a log axis the bars stand on an undrawn base at the axis
// floor. It returns nil when pts is empty, and whether the axis is logarithmic.
func barChart(pts []barPoint, unit string, strategies []string, style func(string) Style, cores int, mode ...axisMode) (*plot.Plot, bool) {
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
		return nil, false
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
	// Each category is one unit wide; the bars of a group fill about 75% of it.
	slot := 20*vg.Centimeter - 8*vg.Centimeter // less the y axis and the legend
	w := slot / vg.Length(len(variants)) * 0.75 / vg.Length(max(len(drawn), 1))
	w = min(w, vg.Points(40))
	base := make(plotter.Values, len(variants))
	for j := range base {
		base[j] = floor
	}
	for i, st := range drawn {
		vs := make(plotter.Values, len(variants))
		var marks plotter.XYs
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
				marks = append(marks, plotter.XY{X: float64(j), Y: x.Median})
				errs = append(errs, struct{ Low, High float64 }{x.Median - math.Max(x.Lo, floor), x.Hi - x.Median})
			}
		}
		bars, err := plotter.NewBarChart(vs, w)
		if err != nil {
			continue // only for negative values, which no metric has
		}
		if logY {
			b0, _ := plotter.NewBarChart(base, w)
			bars.StackOn(b0)
		}
		sty := style(st)
		bars.Color = sty.Color
		bars.LineStyle.Width = 0
		off := vg.Length(float64(i)-float64(len(drawn)-1)/2) * w
		bars.Offset = off
		p.Add(bars)
		if len(marks) > 0 {
			sc, _ := plotter.NewScatter(marks)
			sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: min(vg.Points(3), w/3), Shape: sty.Glyph}
			eb := &plotter.YErrorBars{XYs: marks, YErrors: errs, LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}, CapWidth: min(vg.Points(5), w*0.6)}
			p.Add(shifted{eb, off}, shifted{sc, off})
			p.Legend.Add(st, bars, legendGlyph{sty.Glyph})
		} else {
			p.Legend.Add(st, bars)
		}
	}
	p.NominalX(variants...)
	p.X.Min, p.X.Max = -0.5, float64(len(variants))-0.5
	if logY {
		p.Y.Min, p.Y.Max = floor, niceAbove(hi*1.3)
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	return p, logY
}

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

// legendGlyph draws a marker in black over a legend entry's colour box.
type legendGlyph struct{ g draw.GlyphDrawer }

// Thumbnail implements plot.Thumbnailer.
func (l legendGlyph) Thumbnail(c *draw.Canvas) {
	ctr := vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
	c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.5), Shape: l.g}, ctr)
}

// linePlot draws one line per strategy of the values of scenario sc among pts against the
// numeric parameter key (log x), at GOMAXPROCS procs (-1: any), each point with its 95% CI
// as an error bar; the y axis is logarithmic when the values span more than 10×. It returns
// nil when there are fewer than two x values, and whether y is logarithmic.
func linePlot(pts []point, sc, key string, procs int, unit string, strategies []string, style func(string) Style) (*plot.Plot, bool) {
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
		return nil, false
	}
	logY := spansDecade(mlo, mhi)
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
		var xy plotter.XYs
		var errs plotter.YErrors
		for _, pt := range ps {
			if logY && pt.s.Median <= 0 {
				continue
			}
			xy = append(xy, plotter.XY{X: xf(pt), Y: pt.s.Median})
			errs = append(errs, struct{ Low, High float64 }{pt.s.Median - math.Max(pt.s.Lo, floor), pt.s.Hi - pt.s.Median})
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
		eb := &plotter.YErrorBars{XYs: xy, YErrors: errs, LineStyle: draw.LineStyle{Color: sty.Color, Width: vg.Points(1)}, CapWidth: vg.Points(6)}
		p.Add(l, eb, s)
		p.Legend.Add(st, l, s)
	}
	if logY {
		p.Y.Min, p.Y.Max = floor, niceAbove(hi*1.2)
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	return p, logY
}

func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.Padding = vg.Points(8)
	p.X.Label.Padding = vg.Points(4)
	p.Add(plotter.NewGrid())
	return p
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
	if lw == 0 {
		p.Draw(dc)
	} else {
		gap := vg.Points(12)
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
