package render

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/internal/racetest"
	"gonum.org/v1/plot/vg/draw"
)

func sum(med, lo, hi float64) results.Summary {
	return results.Summary{N: 10, Median: med, Lo: lo, Hi: hi}
}

// TestBarChartAxes: medians that span 28× go on a log axis (drawn as markers and intervals
// without bars: checked by eye on the reference run's charts); on a linear axis, from 0, an
// interval reaching 9.3 against medians near 1 is cut at the axis (2.5× the largest median),
// counted for the title's ▲ note, instead of setting the axis to 0–10.
func TestBarChartAxes(t *testing.T) {
	style := styleOf([]string{"cmdbuffer", "lazyguarded"})
	name := func(st string) results.Name { return results.ParseName("Stage/strategy=" + st + "/cmd=typed-2") }
	wide := []barPoint{{name("cmdbuffer"), "", sum(18, 17, 19)}, {name("lazyguarded"), "", sum(504, 400, 600)}}
	p, logY, clipped := barChart(wide, "ns/op", []string{"cmdbuffer", "lazyguarded"}, style, 2)
	if !logY || clipped != 0 {
		t.Errorf("18 ns and 504 ns: logY %v clipped %d, want a log axis and nothing cut", logY, clipped)
	}
	if p.Y.Min <= 0 {
		t.Errorf("log axis from %v", p.Y.Min)
	}
	outlier := []barPoint{{name("cmdbuffer"), "", sum(0.99, 0.97, 1.01)}, {name("lazyguarded"), "", sum(0.78, 0.2, 9.3)}}
	p, logY, clipped = barChart(outlier, "efficiency", []string{"cmdbuffer", "lazyguarded"}, style, 2)
	if logY || clipped != 1 || p.Y.Min != 0 || p.Y.Max > 3 {
		t.Errorf("efficiency 0.99 and 0.78 (CI to 9.3): logY %v clipped %d axis %v–%v; want linear from 0, 1 cut, axis under 3", logY, clipped, p.Y.Min, p.Y.Max)
	}
	if got := clipNote(1); got != " (▲: 1 interval cut at the axis)" {
		t.Errorf("clipNote(1) = %q", got)
	}
}

// TestLinePlotClipsOutlier: Contention's efficiency against producers, one interval reaching
// 9.3: the axis stays near the data (under 3), the interval is cut and counted.
func TestLinePlotClipsOutlier(t *testing.T) {
	var pts []point
	for _, pr := range []int{1, 2, 4} {
		for _, st := range []string{"cmdbuffer", "lazyguarded-pass"} {
			s := sum(1, 0.95, 1.05)
			if st == "lazyguarded-pass" && pr == 4 {
				s = sum(0.78, 0.3, 9.3)
			}
			pts = append(pts, point{results.ParseName(fmt.Sprintf("Contention/strategy=%s/producers=%d-2", st, pr)), s})
		}
	}
	p, logY, clipped := linePlot(pts, "Contention", "producers", 2, "efficiency", []string{"cmdbuffer", "lazyguarded-pass"}, styleOf([]string{"cmdbuffer", "lazyguarded-pass"}))
	if p == nil || logY || clipped != 1 || p.Y.Max > 3 {
		t.Fatalf("logY %v clipped %d axis max %v; want linear, 1 cut, under 3", logY, clipped, p.Y.Max)
	}
}

// TestPlotTrustFlagAndSpike: every chart's title carries the run's trust flags, but a chart
// of no time (retained-x) leaves out those that bear on timing alone (Loaded); Spike's first
// chart draws retained-x, the memory the scenario is about, with its limit of 2.
func TestPlotTrustFlagAndSpike(t *testing.T) {
	var b []byte
	for rep := range 6 {
		for _, st := range []string{"cmdbuffer", "handrolled"} {
			b = fmt.Appendf(b, "BenchmarkSpike/strategy=%s/spike=1048576/frames=40-2 10 %d ns/op 1 retained-x\n", st, 1000+rep)
		}
	}
	rs := parse(t, string(b))
	dir := t.TempDir()
	files, err := PlotWith(rs, dir, PlotOptions{Cores: 2, Flags: []string{"Loaded (other work took 54% of the CPUs' time during the run)", "partial: 3 of 9 results finished"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{dir + "/Spike.svg": false, dir + "/Spike-time.svg": false}
	for _, f := range files {
		if _, ok := want[f]; ok {
			want[f] = true
			svg := readFile(t, f)
			if f == dir+"/Spike.svg" {
				if !contains(svg, "retained-x") || !contains(svg, "limit (2)") {
					t.Errorf("Spike.svg does not draw retained-x and its limit")
				}
				if !contains(svg, "[partial]") {
					t.Errorf("%s: title lacks the trust flag partial, or carries Loaded", f)
				}
			} else if !contains(svg, "[Loaded, partial]") {
				t.Errorf("%s: title lacks the trust flags", f)
			}
		}
	}
	for f, ok := range want {
		if !ok {
			t.Errorf("no %s among %v", f, files)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestPlotTitlesStayOnTheCanvas: a loaded, noisy, partial run's long titles (the trust flags,
// the cut intervals' note) are wrapped to the plot's width: no text of any chart starts left
// of the canvas, and the flags stay together on one line. The SVG title of such a chart
// started at x=-91.6 before.
func TestPlotTitlesStayOnTheCanvas(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	var b []byte
	for rep := range 6 {
		for _, st := range []string{"cmdbuffer", "handrolled", "versioned"} {
			for _, p := range []string{"-2", "-4"} {
				for _, prod := range []int{1, 2, 4} {
					v := 1e6 + 1e4*float64(rep)
					if st == "versioned" && rep == 5 {
						v = 1e9 // an outlier: its interval is cut at the axis
					}
					b = fmt.Appendf(b, "BenchmarkContention/strategy=%s/producers=%d%s 10 %g ns/op %g cmds/s %g efficiency\n",
						st, prod, p, v, 1e9/v, 0.5+0.01*float64(rep))
				}
			}
			b = fmt.Appendf(b, "BenchmarkStage/strategy=%s/cmd=typed-2 10 %g ns/op\n", st, map[bool]float64{true: 900, false: 7 + float64(rep)}[st == "versioned" && rep == 5])
		}
	}
	rs := parse(t, string(b))
	dir := t.TempDir()
	flags := []string{"Emulated: …", "Loaded (other work took 74% of the CPUs' time during the run)", "Noisy: 12 headline medians …",
		"Contention ceiling: …", "Oversubscribed: …", "partial: 3 of 9 results finished"}
	files, err := PlotWith(rs, dir, PlotOptions{Cores: 2, Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	texts := regexp.MustCompile(`<text x="(-?[0-9.e+-]+)" y="(-?[0-9.e+-]+)"[^>]*>([^<]*)</text>`)
	// The y axis label is drawn in a rotated group: its coordinates are in that frame.
	rotated := regexp.MustCompile(`(?s)<g transform="rotate\([^)]*\)">.*?</g>`)
	box := regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".svg") {
			continue
		}
		svg := readFile(t, f)
		if !contains(svg, "[Emulated, Loaded, Noisy, Contention ceiling, Oversubscribed, partial]") {
			t.Errorf("%s: the trust flags are not on one line of the title", f)
		}
		vb := box.FindStringSubmatch(svg)
		if vb == nil {
			t.Fatalf("%s: no viewBox", f)
		}
		width, _ := strconv.ParseFloat(vb[1], 64)
		height, _ := strconv.ParseFloat(vb[2], 64)
		for _, m := range texts.FindAllStringSubmatch(rotated.ReplaceAllString(svg, ""), -1) {
			n++
			x, errX := strconv.ParseFloat(m[1], 64)
			y, errY := strconv.ParseFloat(m[2], 64) // drawn flipped: -height to 0
			if errX != nil || errY != nil || x < 0 || x > width || y > 0 || y < -height {
				t.Errorf("%s: text %q at x=%s y=%s, off the %gx%g canvas", f, m[3], m[1], m[2], width, height)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no text in the SVGs %v", files)
	}
}

// TestCutMarkerMeansOneThing: the ▲ that marks an interval cut at the axis is no strategy's
// marker (the triangle was the third strategy's glyph too).
func TestCutMarkerMeansOneThing(t *testing.T) {
	for i, g := range strategyGlyphs {
		switch g.(type) {
		case draw.TriangleGlyph, draw.PyramidGlyph:
			t.Errorf("strategy glyph %d is a triangle (%T), the cut interval's ▲", i, g)
		}
		if g == cutGlyph {
			t.Errorf("strategy glyph %d is the cut marker %T", i, g)
		}
	}
}

// TestLinePlotIdealEfficiency: an efficiency chart whose points all lie far below 1 (a
// strategy that serialises its producers) still reaches 1, where the ideal line is drawn, and
// on a log axis too; a chart of another unit does not stretch to 1.
func TestLinePlotIdealEfficiency(t *testing.T) {
	mk := func(unit string, v ...float64) []point {
		var pts []point
		for i, x := range v {
			pts = append(pts, point{results.ParseName(fmt.Sprintf("Contention/strategy=cmdbuffer/producers=%d-2", 1<<i)), sum(x, x*0.9, x*1.1)})
		}
		return pts
	}
	st := []string{"cmdbuffer"}
	p, logY, _ := linePlot(mk("efficiency", 0.3, 0.2, 0.1), "Contention", "producers", 2, "efficiency", st, styleOf(st))
	if p == nil || logY || p.Y.Max < 1 {
		t.Errorf("efficiency 0.3–0.1: logY %v, axis max %v; want linear, reaching 1", logY, p.Y.Max)
	}
	p, logY, _ = linePlot(mk("efficiency", 0.5, 0.04, 0.01), "Contention", "producers", 2, "efficiency", st, styleOf(st))
	if p == nil || !logY || p.Y.Max < 1 || p.Y.Min > 0.01 {
		t.Errorf("efficiency 0.5–0.01: logY %v, axis %v–%v; want log, 0.01 to at least 1", logY, p.Y.Min, p.Y.Max)
	}
	p, _, _ = linePlot(mk("cmds/s", 0.3, 0.2, 0.1), "Contention", "producers", 2, "cmds/s", st, styleOf(st))
	if p == nil || p.Y.Max >= 1 {
		t.Errorf("cmds/s 0.3–0.1: axis max %v; want under 1 (no ideal line)", p.Y.Max)
	}
}
