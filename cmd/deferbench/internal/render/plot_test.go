package render

import (
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/internal/racetest"
	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// runFixture is the results of a run of every scenario as `deferbench run` names them: two
// strategies, Frame at two entity counts, Contention at GOMAXPROCS 1 (no suffix), 2 and 4.
func runFixture() []*benchfmt.Result {
	var rs []*benchfmt.Result
	add := func(name string, vals ...benchfmt.Value) {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: vals})
	}
	ns := func(v float64) benchfmt.Value { return benchfmt.Value{Value: v, Unit: "ns/op"} }
	for i, st := range []string{"baseline", "cmdbuffer", "hybrid"} {
		f := float64(i + 1)
		add("Stage/strategy="+st+"/cmd=typed-2", ns(20*f), benchfmt.Value{Value: 0, Unit: "B/op"})
		add("Stage/strategy="+st+"/cmd=closure-large-2", ns(500*f))
		add("StageApply/strategy="+st+"/mix=shuffled8-2", ns(60*f))
		if st != "baseline" {
			add("Frame/strategy="+st+"/entities=1000-2", ns(1.5e5*f))
			add("Frame/strategy="+st+"/entities=10000-2", ns(1.5e6*f))
			add("Readers/strategy="+st+"/readers=2-2", ns(200*f),
				benchfmt.Value{Value: 40 * f, Unit: "p50-read-ns"}, benchfmt.Value{Value: 2e4 * f, Unit: "p99-read-ns"})
			add("Determinism/strategy="+st+"/runs=6/frames=4-2", ns(1.2e7), benchfmt.Value{Value: f, Unit: "distinct-states"})
		}
		for _, procs := range []string{"", "-2", "-4"} {
			for _, p := range []string{"1", "2", "4"} {
				add("Contention/strategy="+st+"/producers="+p+procs, ns(30*f),
					benchfmt.Value{Value: 1 / f, Unit: "efficiency"}, benchfmt.Value{Value: 3e7 / f, Unit: "cmds/s"})
			}
		}
	}
	return rs
}

// TestPlotNamesAndReportLinks: every chart of a full run has its own file (Frame's bar chart
// and its scaling chart apart, a Determinism chart), Plot returns each file once, and
// report.md links each SVG once.
func TestPlotNamesAndReportLinks(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	dir := t.TempDir()
	plots := filepath.Join(dir, "plots")
	files, err := Plot(runFixture(), plots)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	sorted := slices.Sorted(slices.Values(names))
	if c := slices.Compact(slices.Clone(sorted)); len(c) != len(sorted) {
		t.Errorf("Plot returned a file twice: %v", sorted)
	}
	var want []string
	for _, n := range []string{"Stage", "StageApply", "Frame", "Frame-scaling", "Frame-per-entity", "Readers", "Readers-latency", "Determinism",
		"Contention-efficiency-1", "Contention-efficiency-2", "Contention-efficiency-4",
		"Contention-throughput-1", "Contention-throughput-2", "Contention-throughput-4"} {
		want = append(want, n+".svg", n+".png")
	}
	slices.Sort(want)
	if !slices.Equal(sorted, want) {
		t.Errorf("Plot wrote\n %v\nwant\n %v", sorted, want)
	}
	onDisk, _ := os.ReadDir(plots)
	if len(onDisk) != len(want) {
		t.Errorf("%s holds %d files, Plot returned %d", plots, len(onDisk), len(files))
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}

	meta := ReportMeta{}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		meta.Plots = append(meta.Plots, rel)
	}
	var b strings.Builder
	if err := WriteReport(&b, runFixture(), meta); err != nil {
		t.Fatal(err)
	}
	for _, f := range want {
		if !strings.HasSuffix(f, ".svg") {
			continue
		}
		if n := strings.Count(b.String(), "(plots/"+f+")"); n != 1 {
			t.Errorf("report.md links %s %d times, want once", f, n)
		}
	}
}

// TestPlotPeerTwoCharts: Peer's immediate calls and its W1–W3 go on two charts, each drawn
// at a width a screen shows (on one chart their 14 groups of 8 series drew 2,200 px wide
// with markers too small to tell apart), and each holds only its own ops.
func TestPlotPeerTwoCharts(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	var rs []*benchfmt.Result
	add := func(name string, v float64) {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: "ns/op"}}})
	}
	for rep := range 6 {
		j := 1 + float64(rep)/100
		for _, store := range []string{"", "/storage=archetypes"} {
			for _, op := range []string{"create-destroy", "add-remove", "query/entities=10000"} {
				add("Peer/strategy=ecs/op="+op+store+"-2", 30*j)
				if store != "" {
					add("Peer/strategy=ark/op="+op+store+"-2", 50*j)
				}
			}
			for i, st := range []string{"cmdbuffer", "lazyguarded", "lazyguarded-pass", "handrolled", "hybrid", "versioned"} {
				for _, op := range []string{"w1-set", "w2-add-remove", "w3-create-destroy"} {
					add("Peer/strategy="+st+"/op="+op+store+"-2", float64(10+i)*j)
				}
			}
			if store != "" {
				for _, op := range []string{"w1-set", "w2-add-remove", "w3-create-destroy"} {
					add("Peer/strategy=ark/op="+op+store+"-2", 9*j)
				}
				for _, op := range []string{"w2-add-remove", "w3-create-destroy"} {
					add("Peer/strategy=ark/op="+op+"/apply=batch"+store+"-2", 3*j)
				}
			}
		}
	}
	dir := t.TempDir()
	if _, err := Plot(rs, dir); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ has, lacks string }{
		"Peer":          {"op=create-destroy", "op=w1-set"},
		"Peer-deferred": {"op=w1-set", "op=create-destroy"},
	} {
		svg, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(svg), c.has) || strings.Contains(string(svg), c.lacks) {
			t.Errorf("%s.svg: want %q and not %q", name, c.has, c.lacks)
		}
		png, err := os.ReadFile(filepath.Join(dir, name+".png"))
		if err != nil || len(png) < 24 {
			t.Fatalf("%s.png: %v", name, err)
		}
		if w := int(png[16])<<24 | int(png[17])<<16 | int(png[18])<<8 | int(png[19]); w > 1600 {
			t.Errorf("%s.png is %d px wide, want at most 1600", name, w)
		}
	}
}

// TestPlotSkipsSingleScaling: with one entity count there is no scaling line to draw.
func TestPlotSkipsSingleScaling(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	var rs []*benchfmt.Result
	for _, r := range runFixture() {
		if !strings.Contains(string(r.Name), "entities=10000") {
			rs = append(rs, r)
		}
	}
	files, err := Plot(rs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.Contains(f, suite.PlotFrameScaling) {
			t.Errorf("Plot drew %s from one entity count", f)
		}
	}
}

// TestPlotFrameScalingPerProcs: Frame run at several GOMAXPROCS (run -procs) gets one scaling
// chart per GOMAXPROCS rather than lines that mix them.
func TestPlotFrameScalingPerProcs(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	var rs []*benchfmt.Result
	for _, procs := range []string{"", "-4"} {
		for _, e := range []string{"1000", "10000"} {
			rs = append(rs, &benchfmt.Result{Name: benchfmt.Name("Frame/strategy=a/entities=" + e + procs), Iters: 1,
				Values: []benchfmt.Value{{Value: 1e5, Unit: "ns/op"}}})
		}
	}
	files, err := Plot(rs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := []string{"Frame.svg", "Frame.png", "Frame-scaling-1.svg", "Frame-scaling-1.png", "Frame-scaling-4.svg", "Frame-scaling-4.png",
		"Frame-per-entity-1.svg", "Frame-per-entity-1.png", "Frame-per-entity-4.svg", "Frame-per-entity-4.png"}
	if !slices.Equal(names, want) {
		t.Errorf("Plot wrote %v, want %v", names, want)
	}
}

func TestHumanTicks(t *testing.T) {
	labels := func(tk humanTicks, lo, hi float64) string {
		var s []string
		for _, t := range tk.Ticks(lo, hi) {
			if t.Label != "" {
				s = append(s, t.Label)
			}
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		tk     humanTicks
		lo, hi float64
		want   string
	}{
		{humanTicks{unit: "ns/op", log: true}, 10, 2000, "10 ns,20 ns,50 ns,100 ns,200 ns,500 ns,1 µs,2 µs"},
		{humanTicks{unit: "ns/op", log: true}, 1e3, 1e8, "1 µs,10 µs,100 µs,1 ms,10 ms,100 ms"},
		{humanTicks{unit: "cmds/s"}, 0, 5e7, "0,10M,20M,30M,40M,50M"},
		{humanTicks{unit: "efficiency"}, 0, 1.1, "0,0.2,0.4,0.6,0.8,1"},
	} {
		if got := labels(c.tk, c.lo, c.hi); got != c.want {
			t.Errorf("%+v.Ticks(%v, %v) labels %s, want %s", c.tk, c.lo, c.hi, got, c.want)
		}
	}
	for _, tk := range (humanTicks{unit: "ns/op", log: true}).Ticks(10, 2000) {
		if strings.Contains(tk.Label, "e+") {
			t.Errorf("tick label %q in scientific notation", tk.Label)
		}
	}
}

// TestPlotPerStorage: Frame rows on archetype storage (storage=archetypes) get scaling charts of
// their own, so that no line joins a slots point and an archetypes point at one entity count.
func TestPlotPerStorage(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	rs := runFixture()
	for _, r := range slices.Clone(rs) {
		if strings.HasPrefix(string(r.Name), "Frame/") {
			c := *r
			c.Name = benchfmt.Name(strings.Replace(string(r.Name), "-2", "/storage=archetypes-2", 1))
			rs = append(rs, &c)
		}
	}
	files, err := Plot(rs, filepath.Join(t.TempDir(), "plots"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, n := range []string{"Frame-scaling.svg", "Frame-scaling-archetypes.svg", "Frame-per-entity.svg", "Frame-per-entity-archetypes.svg"} {
		if !slices.Contains(names, n) {
			t.Errorf("Plot wrote %v, no %s", names, n)
		}
	}
	if slices.Contains(names, "Stage-archetypes.svg") {
		t.Errorf("Plot wrote a per-storage chart for Stage, which has no storage rows: %v", names)
	}
}

// TestPlotCountedOnlyLeavesNoDirectory: results with no timed metric (a counted-only run)
// draw no chart and leave no empty plots/ behind.
func TestPlotCountedOnlyLeavesNoDirectory(t *testing.T) {
	rs := parse(t, "BenchmarkStage/strategy=cmdbuffer/cmd=typed-1 400000 60.6 instr/op\n"+
		"BenchmarkStage/strategy=hybrid/cmd=typed-1 400000 60.6 instr/op\n")
	dir := filepath.Join(t.TempDir(), "plots")
	files, err := Plot(rs, dir)
	if err != nil || len(files) != 0 {
		t.Fatalf("Plot = %v, %v; want no files, no error", files, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("plots/ left behind: %v", err)
	}
}

// TestNoCINote: a chart of medians without intervals (fewer than 6 repetitions) says so in
// its title; with intervals it says nothing.
func TestNoCINote(t *testing.T) {
	if got := noCINote([]results.Summary{{Median: 1, Lo: 0.9, Hi: 1.1}, {Median: 2, NoCI: true}}); !strings.Contains(got, "no 95% CI") {
		t.Errorf("noCINote with a NoCI median = %q", got)
	}
	if got := noCINote([]results.Summary{{Median: 1, Lo: 0.9, Hi: 1.1}}); got != "" {
		t.Errorf("noCINote with intervals = %q", got)
	}
}

// TestChartWidthFitsLabels: a chart whose category labels would overlap at 20 cm is drawn
// wider, enough for each label and a gap, and never past 80 cm; a chart with few short
// labels stays 20 cm.
func TestChartWidthFitsLabels(t *testing.T) {
	few := plot.New()
	few.NominalX("a", "b")
	if w := chartWidth(few); w != 20*vg.Centimeter {
		t.Errorf("two short labels: width %v, want 20 cm", w)
	}
	labels := []string{"mix=homogeneous", "mix=roundrobin8", "mix=shuffled8", "mix=addremove2x100",
		"mix=homogeneous\nstorage=archetypes", "mix=roundrobin8\nstorage=archetypes", "mix=shuffled8\nstorage=archetypes", "mix=addremove2x100\nstorage=archetypes"}
	many := plot.New()
	many.NominalX(labels...)
	w := chartWidth(many)
	widest := many.X.Tick.Label.Width("mix=addremove2x100")
	if per := (w - 8*vg.Centimeter) / vg.Length(len(labels)); per < widest {
		t.Errorf("8 StageApply labels: width %v leaves %v a category, want at least the widest label %v", w, per, widest)
	}
	huge := plot.New()
	huge.NominalX(slices.Repeat(labels, 20)...)
	if w := chartWidth(huge); w != 80*vg.Centimeter {
		t.Errorf("160 labels: width %v, want the 80 cm cap", w)
	}
}

// TestStrategyColoursDistinct: the rows of the strategy table get colours far apart in
// CIELAB (ΔE 1976, D65), so that no two series of one plot look alike: the strategies and the
// baseline at least 40 apart (cmdbuffer's blue and versioned's sky blue were 26 apart, hybrid's
// orange and lazyguarded's vermillion 33, and new users took each pair for one colour), and
// every row at least 30 from every other.
func TestStrategyColoursDistinct(t *testing.T) {
	style := styleOf(nil)
	for i, a := range suite.Strategies {
		for _, b := range suite.Strategies[:i] {
			want := 40.0
			if suite.IsControl(a.Name) || suite.IsControl(b.Name) {
				want = 30
			}
			if d := deltaE(style(a.Name).Color, style(b.Name).Color); d < want {
				t.Errorf("%s and %s are drawn in colours %.1f apart (ΔE 1976), want at least %v", a.Name, b.Name, d, want)
			}
		}
	}
}

// deltaE is the CIE 1976 colour difference of two sRGB colours (D65 white).
func deltaE(x, y color.Color) float64 {
	lab := func(c color.Color) [3]float64 {
		r, g, b, _ := c.RGBA()
		lin := func(v uint32) float64 {
			f := float64(v) / 0xffff
			if f <= 0.04045 {
				return f / 12.92
			}
			return math.Pow((f+0.055)/1.055, 2.4)
		}
		R, G, B := lin(r), lin(g), lin(b)
		f := func(t float64) float64 {
			if t > 216.0/24389 {
				return math.Cbrt(t)
			}
			return (24389.0/27*t + 16) / 116
		}
		fx := f((0.4124*R + 0.3576*G + 0.1805*B) / 0.95047)
		fy := f(0.2126*R + 0.7152*G + 0.0722*B)
		fz := f((0.0193*R + 0.1192*G + 0.9505*B) / 1.08883)
		return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
	}
	a, b := lab(x), lab(y)
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}
