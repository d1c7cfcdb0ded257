package harness

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// parsedName is a benchmark name taken apart: Scenario/strategy=s/k=v...-procs.
type parsedName struct {
	scenario, strategy string
	params             []Param // without strategy
	procs              int
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

func (p parsedName) variant() string {
	var s []string
	for _, kv := range p.params {
		s = append(s, kv.Key+"="+kv.Value)
	}
	if p.procs != 1 {
		s = append(s, "GOMAXPROCS="+strconv.Itoa(p.procs))
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

// Plot draws results into dir as SVG and PNG and returns the files written: per scenario a
// bar chart of median ns/op per variant and strategy (log scale); for Frame, ns/op against
// entities; for Contention, efficiency and cmds/s against producers, one chart per GOMAXPROCS.
func Plot(results []*benchfmt.Result, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	type point struct {
		n      parsedName
		median float64
	}
	byUnit := map[string][]point{}
	for _, s := range Summarize(results) {
		byUnit[s.Unit] = append(byUnit[s.Unit], point{parseName(s.Name), s.Median})
	}
	var files []string
	save := func(p *plot.Plot, name string) error {
		for _, ext := range []string{"svg", "png"} {
			wt, err := p.WriterTo(20*vg.Centimeter, 12*vg.Centimeter, ext)
			if err != nil {
				return fmt.Errorf("plot %s: %w", name, err)
			}
			var buf bytes.Buffer
			if _, err := wt.WriteTo(&buf); err != nil {
				return fmt.Errorf("plot %s: %w", name, err)
			}
			f := filepath.Join(dir, name+"."+ext)
			if err := WriteFileAtomic(f, buf.Bytes()); err != nil {
				return err
			}
			files = append(files, f)
		}
		return nil
	}

	// Strategies and scenarios in first-seen order.
	var strategies, scenarios []string
	seen := map[string]bool{}
	for _, pt := range byUnit["ns/op"] {
		if !seen["s:"+pt.n.strategy] {
			seen["s:"+pt.n.strategy] = true
			strategies = append(strategies, pt.n.strategy)
		}
		if !seen["c:"+pt.n.scenario] {
			seen["c:"+pt.n.scenario] = true
			scenarios = append(scenarios, pt.n.scenario)
		}
	}
	colour := func(i int) color.Color { return plotutil.Color(i) }

	// Bar charts, one per scenario (Contention and Determinism have their own or none).
	for _, sc := range scenarios {
		if sc == "Contention" || sc == "Determinism" {
			continue
		}
		var variants []string
		vi := map[string]int{}
		val := map[[2]string]float64{}
		for _, pt := range byUnit["ns/op"] {
			if pt.n.scenario != sc {
				continue
			}
			v := pt.n.variant()
			if _, ok := vi[v]; !ok {
				vi[v] = len(variants)
				variants = append(variants, v)
			}
			val[[2]string{pt.n.strategy, v}] = pt.median
		}
		p := plot.New()
		p.Title.Text = sc + ": median ns/op (log scale)"
		p.Y.Label.Text = "ns/op"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Legend.Top = true
		w := vg.Points(float64(60) / float64(max(len(strategies), 1)))
		// A log axis has no zero: the bars stand on an undrawn base chart at the floor.
		floor := yFloor(val)
		fl := make(plotter.Values, len(variants))
		for j := range fl {
			fl[j] = floor
		}
		n := 0
		for i, st := range strategies {
			vs := make(plotter.Values, len(variants))
			has := false
			for j, v := range variants {
				if x := val[[2]string{st, v}]; x > 0 {
					vs[j] = x - floor
					has = true
				}
			}
			if !has {
				continue
			}
			base, err := plotter.NewBarChart(fl, w)
			if err != nil {
				return files, fmt.Errorf("plot %s: %w", sc, err)
			}
			bars, err := plotter.NewBarChart(vs, w)
			if err != nil {
				return files, fmt.Errorf("plot %s: %w", sc, err)
			}
			bars.StackOn(base)
			bars.Color = colour(i)
			bars.LineStyle.Width = 0
			bars.Offset = vg.Length(float64(n)-float64(len(strategies)-1)/2) * w
			n++
			p.Add(bars)
			p.Legend.Add(st, bars)
		}
		p.NominalX(variants...)
		p.Y.Min = floor
		if err := save(p, sc); err != nil {
			return files, err
		}
	}

	// Frame: ns/op against entities, log-log.
	if err := linePlot(byUnit["ns/op"], "Frame", "entities", "Frame: ns per frame", "ns/frame", true, strategies, colour, save, func(pt point) (parsedName, float64) { return pt.n, pt.median }); err != nil {
		return files, err
	}
	// Contention: efficiency and throughput against producers, per GOMAXPROCS.
	for _, m := range []struct{ unit, file, label string }{{"efficiency", "Contention-efficiency", "efficiency"}, {"cmds/s", "Contention-throughput", "cmds/s"}} {
		procs := map[int]bool{}
		for _, pt := range byUnit[m.unit] {
			if pt.n.scenario == "Contention" {
				procs[pt.n.procs] = true
			}
		}
		var ps []int
		for p := range procs {
			ps = append(ps, p)
		}
		sort.Ints(ps)
		for _, g := range ps {
			var pts []point
			for _, pt := range byUnit[m.unit] {
				if pt.n.scenario == "Contention" && pt.n.procs == g {
					pts = append(pts, pt)
				}
			}
			title := fmt.Sprintf("Contention: %s at GOMAXPROCS=%d", m.label, g)
			if err := linePlot(pts, "Contention", "producers", title, m.label, false, strategies, colour, func(p *plot.Plot, _ string) error {
				return save(p, fmt.Sprintf("%s-%d", m.file, g))
			}, func(pt point) (parsedName, float64) { return pt.n, pt.median }); err != nil {
				return files, err
			}
		}
	}
	return files, nil
}

func yFloor(val map[[2]string]float64) float64 {
	lo := 0.0
	for _, v := range val {
		if v > 0 && (lo == 0 || v < lo) {
			lo = v
		}
	}
	if lo == 0 {
		return 1
	}
	return lo / 2
}

// linePlot draws one line per strategy of pts in scenario sc, x = the numeric parameter key.
func linePlot[P any](pts []P, sc, key, title, ylabel string, logY bool, strategies []string, colour func(int) color.Color,
	save func(*plot.Plot, string) error, get func(P) (parsedName, float64)) error {
	lines := map[string]plotter.XYs{}
	for _, pt := range pts {
		n, v := get(pt)
		if n.scenario != sc {
			continue
		}
		x, err := strconv.ParseFloat(n.param(key), 64)
		if err != nil {
			continue
		}
		lines[n.strategy] = append(lines[n.strategy], plotter.XY{X: x, Y: v})
	}
	if len(lines) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = key
	p.Y.Label.Text = ylabel
	p.X.Scale = plot.LogScale{}
	xs := map[float64]bool{}
	for _, xy := range lines {
		for _, pt := range xy {
			xs[pt.X] = true
		}
	}
	var ticks []plot.Tick
	for x := range xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)})
	}
	sort.Slice(ticks, func(a, b int) bool { return ticks[a].Value < ticks[b].Value })
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Padding = vg.Points(12)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Legend.Top = true
	for i, st := range strategies {
		xy := lines[st]
		if len(xy) == 0 {
			continue
		}
		sort.Slice(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot %s: %w", sc, err)
		}
		l.Color, s.Color = colour(i), colour(i)
		p.Add(l, s)
		p.Legend.Add(st, l, s)
	}
	return save(p, sc)
}
