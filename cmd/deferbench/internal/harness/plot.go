package harness

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// parsedName is a benchmark name taken apart: Scenario/strategy=s/k=v...-procs.
type parsedName struct {
	scenario, strategy string
	params             []Param // without strategy
	procs              int     // the -N suffix; 1 without one (as go test names them)
}

func parseName(name string) parsedName {
	p := parsedName{procs: 1}
	if i := strings.LastIndexByte(name, '-'); i > strings.LastIndexByte(name, '/') && i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil {
			p.procs, name = n, name[:i]
		}
	}
	parts := strings.Split(name, "/")
	p.scenario = parts[0]
	for _, kv := range parts[1:] {
		k, v, _ := strings.Cut(kv, "=")
		if k == "strategy" {
			p.strategy = v
			continue
		}
		p.params = append(p.params, Param{k, v})
	}
	return p
}

// variantNoProcs is the parameters other than the strategy, "k=v k=v".
func (p parsedName) variantNoProcs() string {
	var s []string
	for _, kv := range p.params {
		s = append(s, kv.Key+"="+kv.Value)
	}
	return strings.Join(s, " ")
}

func (p parsedName) param(k string) string {
	for _, kv := range p.params {
		if kv.Key == k {
			return kv.Value
		}
	}
	return ""
}

// Plot chart names, without the .svg/.png extension.
const (
	// PlotFrameScaling is Frame's ns/frame against entities (log-log), drawn when the run has
	// at least two entity counts (PlotFrameScaling-G per GOMAXPROCS G when it ran at several);
	// Frame's per-variant bar chart is "Frame" like every scenario's.
	PlotFrameScaling = "Frame-scaling"
	// PlotDeterminism is the distinct final states per strategy (1 = reproducible).
	PlotDeterminism = "Determinism"
)

// Plot draws results into dir as SVG and PNG and returns the files it wrote, each once:
//   - SCENARIO: per scenario but Contention and Determinism, a bar chart of the median ns/op
//     of every variant and strategy (log scale);
//   - Frame-scaling: Frame's ns/frame against entities (log-log), with two or more entity
//     counts; Frame-scaling-G per GOMAXPROCS G when Frame ran at several;
//   - Contention-efficiency-G and Contention-throughput-G: efficiency and cmds/s against
//     producers, one chart per GOMAXPROCS G;
//   - Determinism: distinct final states per strategy (1 = reproducible).
//
// The legend stands right of the data; baseline is grey and the other strategies take
// clearly different hues in first-seen order.
func Plot(results []*benchfmt.Result, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	byUnit := map[string][]point{}
	for _, s := range Summarize(results) {
		byUnit[s.Unit] = append(byUnit[s.Unit], point{parseName(s.Name), s.Median})
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
			f := filepath.Join(dir, name+"."+ext)
			if err := WriteFileAtomic(f, b); err != nil {
				return err
			}
			files = append(files, f)
		}
		return nil
	}

	// Strategies and scenarios in first-seen order.
	var strategies, scenarios []string
	seen := map[string]bool{}
	for _, u := range []string{"ns/op", "distinct-states"} {
		for _, pt := range byUnit[u] {
			if !seen["s:"+pt.n.strategy] {
				seen["s:"+pt.n.strategy] = true
				strategies = append(strategies, pt.n.strategy)
			}
			if !seen["c:"+pt.n.scenario] {
				seen["c:"+pt.n.scenario] = true
				scenarios = append(scenarios, pt.n.scenario)
			}
		}
	}
	colour := palette(strategies)

	for _, sc := range scenarios {
		if sc == "Contention" || sc == "Determinism" {
			continue
		}
		p := barChart(byUnit["ns/op"], sc, "ns/op", true, strategies, colour)
		if p == nil {
			continue
		}
		per := "op"
		if sc == "Frame" {
			per = "frame"
		}
		p.Title.Text = sc + ": median time per " + per + " (log scale)"
		p.Y.Label.Text = "time per " + per
		if err := save(p, sc); err != nil {
			return files, err
		}
	}

	// Frame: time per frame against entities, log-log; per GOMAXPROCS if it ran at several.
	frameProcs := procsOf(byUnit["ns/op"], "Frame")
	for _, g := range frameProcs {
		p := linePlot(byUnit["ns/op"], "Frame", "entities", g, "ns/op", true, strategies, colour)
		if p == nil {
			continue
		}
		p.Title.Text = "Frame: time per frame against entities (log-log)"
		p.Y.Label.Text = "time per frame"
		name := PlotFrameScaling
		if len(frameProcs) > 1 {
			p.Title.Text = fmt.Sprintf("Frame: time per frame against entities at GOMAXPROCS=%d (log-log)", g)
			name = fmt.Sprintf("%s-%d", PlotFrameScaling, g)
		}
		if err := save(p, name); err != nil {
			return files, err
		}
	}

	// Contention: efficiency and throughput against producers, per GOMAXPROCS.
	for _, m := range []struct{ unit, file, label string }{
		{"efficiency", "Contention-efficiency", "efficiency"}, {"cmds/s", "Contention-throughput", "cmds/s"}} {
		for _, g := range procsOf(byUnit[m.unit], "Contention") {
			p := linePlot(byUnit[m.unit], "Contention", "producers", g, m.unit, false, strategies, colour)
			if p == nil {
				continue
			}
			p.Title.Text = fmt.Sprintf("Contention: %s at GOMAXPROCS=%d", m.label, g)
			p.Y.Label.Text = m.label
			if err := save(p, fmt.Sprintf("%s-%d", m.file, g)); err != nil {
				return files, err
			}
		}
	}

	// Determinism: distinct final states per strategy.
	if p := barChart(byUnit["distinct-states"], "Determinism", "distinct-states", false, strategies, colour); p != nil {
		runs := 0.0
		for _, pt := range byUnit["distinct-states"] {
			if r, err := strconv.ParseFloat(pt.n.param("runs"), 64); err == nil && pt.n.scenario == "Determinism" {
				runs = math.Max(runs, r)
			}
		}
		p.Title.Text = "Determinism: distinct final states over the runs (1 = reproducible)"
		p.X.Label.Text = "" // it sets GOMAXPROCS itself (1, NumCPU, 2×NumCPU)
		p.Y.Label.Text = "distinct final states"
		p.Y.Min = 0
		p.Y.Max = math.Max(p.Y.Max, runs) + 1
		p.Y.Tick.Marker = integerTicks{}
		if err := save(p, PlotDeterminism); err != nil {
			return files, err
		}
	}
	return files, nil
}

// procsOf is the GOMAXPROCS values of scenario sc among pts, ascending.
func procsOf(pts []point, sc string) []int {
	seen := map[int]bool{}
	var ps []int
	for _, pt := range pts {
		if pt.n.scenario == sc && !seen[pt.n.procs] {
			seen[pt.n.procs] = true
			ps = append(ps, pt.n.procs)
		}
	}
	sort.Ints(ps)
	return ps
}

type point struct {
	n      parsedName
	median float64
}

// palette gives every strategy a colour: baseline grey, the others the Okabe-Ito hues
// (distinguishable with colour-blindness) in order.
func palette(strategies []string) func(string) color.Color {
	hues := []color.Color{
		color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
		color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
		color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
		color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
		color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
		color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
		color.RGBA{0xF0, 0xE4, 0x42, 0xff}, // yellow
	}
	m := map[string]color.Color{}
	i := 0
	for _, s := range strategies {
		if s == "baseline" {
			m[s] = color.RGBA{0x99, 0x99, 0x99, 0xff}
			continue
		}
		m[s] = hues[i%len(hues)]
		i++
	}
	return func(s string) color.Color { return m[s] }
}

// barChart draws the values of scenario sc among pts: one group of bars per variant (x), one
// bar per strategy. On a log axis the bars stand on an undrawn base at the axis floor. It
// returns nil when sc has no values.
func barChart(pts []point, sc, unit string, logY bool, strategies []string, colour func(string) color.Color) *plot.Plot {
	procs := map[int]bool{}
	for _, pt := range pts {
		if pt.n.scenario == sc {
			procs[pt.n.procs] = true
		}
	}
	label := func(n parsedName) string {
		v := strings.ReplaceAll(n.variantNoProcs(), " ", "\n")
		if len(procs) > 1 {
			v = strings.TrimSpace(v + "\nGOMAXPROCS=" + strconv.Itoa(n.procs))
		}
		return v
	}
	var variants []string
	vi := map[string]int{}
	val := map[[2]string]float64{}
	onlyProcs := 0
	for _, pt := range pts {
		if pt.n.scenario != sc {
			continue
		}
		v := label(pt.n)
		if _, ok := vi[v]; !ok {
			vi[v] = len(variants)
			variants = append(variants, v)
		}
		val[[2]string{pt.n.strategy, v}] = pt.median
		onlyProcs = pt.n.procs
	}
	if len(variants) == 0 {
		return nil
	}
	var drawn []string
	lo, hi := math.Inf(1), 0.0
	for _, st := range strategies {
		has := false
		for _, v := range variants {
			if x, ok := val[[2]string{st, v}]; ok {
				has = true
				if x > 0 {
					lo, hi = math.Min(lo, x), math.Max(hi, x)
				}
			}
		}
		if has {
			drawn = append(drawn, st)
		}
	}
	p := newPlot()
	if len(procs) == 1 {
		p.X.Label.Text = fmt.Sprintf("GOMAXPROCS=%d", onlyProcs)
	}
	floor := 0.0
	if logY {
		if hi == 0 {
			lo, hi = 1, 10
		}
		floor = niceBelow(lo / 1.5)
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = humanTicks{unit: unit, log: true}
	} else {
		p.Y.Tick.Marker = humanTicks{unit: unit}
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
		for j, v := range variants {
			if x := val[[2]string{st, v}]; x > floor {
				vs[j] = x - floor
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
		bars.Color = colour(st)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(float64(i)-float64(len(drawn)-1)/2) * w
		p.Add(bars)
		p.Legend.Add(st, bars)
	}
	p.NominalX(variants...)
	p.X.Min, p.X.Max = -0.5, float64(len(variants))-0.5
	if logY {
		p.Y.Min, p.Y.Max = floor, niceAbove(hi*1.3)
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	return p
}

// linePlot draws one line per strategy of the values of scenario sc among pts against the
// numeric parameter key (log x), at GOMAXPROCS procs (-1: any). It returns nil when there are
// fewer than two x values.
func linePlot(pts []point, sc, key string, procs int, unit string, logY bool, strategies []string, colour func(string) color.Color) *plot.Plot {
	lines := map[string]plotter.XYs{}
	xs := map[float64]bool{}
	lo, hi := math.Inf(1), 0.0
	for _, pt := range pts {
		if pt.n.scenario != sc || (procs >= 0 && pt.n.procs != procs) {
			continue
		}
		x, err := strconv.ParseFloat(pt.n.param(key), 64)
		if err != nil || x <= 0 || (logY && pt.median <= 0) {
			continue
		}
		lines[pt.n.strategy] = append(lines[pt.n.strategy], plotter.XY{X: x, Y: pt.median})
		xs[x] = true
		lo, hi = math.Min(lo, pt.median), math.Max(hi, pt.median)
	}
	if len(xs) < 2 {
		return nil
	}
	p := newPlot()
	p.X.Label.Text = key
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for x := range xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: tickLabel(x, "")})
	}
	sort.Slice(ticks, func(a, b int) bool { return ticks[a].Value < ticks[b].Value })
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Padding = vg.Points(12)
	p.Y.Tick.Marker = humanTicks{unit: unit, log: logY}
	if logY {
		p.Y.Scale = plot.LogScale{}
	}
	for _, st := range strategies {
		xy := lines[st]
		if len(xy) == 0 {
			continue
		}
		sort.Slice(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			continue // only for NaN or infinite values, which Summarize does not give
		}
		l.Color, s.Color = colour(st), colour(st)
		l.Width = vg.Points(1.5)
		s.Shape = draw.CircleGlyph{}
		s.Radius = vg.Points(2.5)
		p.Add(l, s)
		p.Legend.Add(st, l, s)
	}
	if logY {
		p.Y.Min, p.Y.Max = niceBelow(lo/1.2), niceAbove(hi*1.2)
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	return p
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
			return []plot.Tick{{Value: lo, Label: tickLabel(lo, t.unit)}}
		}
		step := niceAbove((hi - lo) / 6)
		var ticks []plot.Tick
		for i := math.Ceil(lo / step); i*step <= hi*(1+1e-9); i++ {
			v := i * step
			ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, t.unit)})
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
				tk.Label = tickLabel(v, t.unit)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// tickLabel is FormatValue without trailing zeros: "0.5", "1.2 µs".
func tickLabel(v float64, unit string) string {
	s := FormatValue(v, unit)
	num, suffix := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789.-", r) }); i >= 0 {
		num, suffix = s[:i], s[i:]
	}
	if strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	return num + suffix
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
