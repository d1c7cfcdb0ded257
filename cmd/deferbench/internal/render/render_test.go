package render

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/internal/racetest"
	"golang.org/x/perf/benchfmt"
)

func TestPlot(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	var rs []*benchfmt.Result
	add := func(name string, vals ...benchfmt.Value) {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: vals})
	}
	for _, st := range []string{"baseline", "cmdbuffer"} {
		add("Stage/strategy="+st+"/cmd=typed-2", benchfmt.Value{Value: 20, Unit: "ns/op"})
		add("Frame/strategy="+st+"/entities=1000-2", benchfmt.Value{Value: 1e5, Unit: "ns/op"})
		add("Frame/strategy="+st+"/entities=10000-2", benchfmt.Value{Value: 1e6, Unit: "ns/op"})
		for _, p := range []string{"1", "2"} {
			add("Contention/strategy="+st+"/producers="+p+"-2", benchfmt.Value{Value: 30, Unit: "ns/op"},
				benchfmt.Value{Value: 1, Unit: "efficiency"}, benchfmt.Value{Value: 3e7, Unit: "cmds/s"})
		}
	}
	dir := t.TempDir()
	files, err := Plot(rs, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Stage.svg", "Stage.png", "Frame.svg", "Contention-efficiency-2.png", "Contention-throughput-2.svg"}
	for _, w := range want {
		fi, err := os.Stat(filepath.Join(dir, w))
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v (size %v); files: %v", w, err, fi, files)
		}
	}
}

func TestWriteReport(t *testing.T) {
	rs := sampleResults("Stage/strategy=cmdbuffer/cmd=typed-2", 30, 31, 29, 30, 30, 31, 29, 30)
	rs = append(rs, sampleResults("Stage/strategy=baseline/cmd=typed-2", 20, 21, 19, 20, 20, 21, 19, 20)...)
	var b strings.Builder
	meta := ReportMeta{Config: []results.Config{{Key: "goarch", Value: "arm64"}}, Throttled: "yes", Partial: "true (3 of 9)",
		Attribution: []results.Attribution{{Strategy: "cmdbuffer", CPU: 1, Share: map[string]float64{"stage": 0.5}}},
		Plots:       []string{"plots/Stage.svg", "plots/Stage.png"}}
	if err := writeBoth(&b, rs, meta); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**partial: 3 of 9 results finished**", "**Throttled**", "| goarch | arm64 |", "## Stage (GOMAXPROCS=2)",
		"| ns/op | cmdbuffer | baseline |", "| cmd=typed | 30 ns ±3% | 20 ns ±5% |", "| cmdbuffer | 1.00 |", "50.0%", "![Stage](plots/Stage.svg)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestPlotOddNames: benchmark names from the input that would make bad chart file names (a
// 300-byte name, "..", an empty scenario, unicode, a space-free shell metacharacter) still
// plot, every file inside the folder with a short, visible, portable name; deferbench's own
// chart names are kept.
func TestPlotOddNames(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it draws plots, on one goroutine")
	long := strings.Repeat("a", 300)
	var rs []*benchfmt.Result
	for _, sc := range []string{long, "..", "", "Ünï日本", "a$b;c", "Stage"} {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(sc + "/strategy=x-2"), Iters: 10, Values: []benchfmt.Value{{Value: 5, Unit: "ns/op"}}})
	}
	dir := t.TempDir()
	files, err := Plot(rs, dir)
	if err != nil {
		t.Fatalf("Plot: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		base := filepath.Base(f)
		if filepath.Dir(f) != dir || len(base) > 100 || strings.HasPrefix(base, ".") || seen[base] {
			t.Errorf("chart file %q: want a short, visible, distinct name inside %s", f, dir)
		}
		seen[base] = true
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	if !seen["Stage.svg"] {
		t.Errorf("Stage's chart is not Stage.svg: %v", files)
	}
	if len(files) != 12 {
		t.Errorf("%d files; want 12 (6 charts as SVG and PNG): %v", len(files), files)
	}
}

// TestPlotTooManyScenarios: results of more scenarios than MaxChartScenarios (go test output
// of a large project) are refused at once, before plots/ is made, instead of drawing
// thousands of charts for minutes.
func TestPlotTooManyScenarios(t *testing.T) {
	var rs []*benchfmt.Result
	for i := range MaxChartScenarios + 1 {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name("S" + strconv.Itoa(i) + "/strategy=x-2"), Iters: 1, Values: []benchfmt.Value{{Value: 5, Unit: "ns/op"}}})
	}
	dir := filepath.Join(t.TempDir(), "plots")
	if _, err := Plot(rs, dir); !errors.Is(err, ErrTooManyCharts) || !strings.Contains(err.Error(), strconv.Itoa(MaxChartScenarios+1)+" scenarios") {
		t.Errorf("Plot(%d scenarios) = %v; want ErrTooManyCharts naming the count", MaxChartScenarios+1, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused Plot made %s (%v)", dir, err)
	}
}

// TestPlotTooManyProcs: a bound holds for charts drawn per GOMAXPROCS too: scenarios at
// more scenario and GOMAXPROCS pairs than 16×MaxChartScenarios are refused before drawing.
func TestPlotTooManyProcs(t *testing.T) {
	var rs []*benchfmt.Result
	for s := range 17 {
		for g := 1; g <= MaxChartScenarios; g++ {
			rs = append(rs, &benchfmt.Result{Name: benchfmt.Name("S" + strconv.Itoa(s) + "/strategy=x/producers=1-" + strconv.Itoa(g)), Iters: 1,
				Values: []benchfmt.Value{{Value: 5, Unit: "ns/op"}}})
		}
	}
	if _, err := Plot(rs, filepath.Join(t.TempDir(), "plots")); !errors.Is(err, ErrTooManyCharts) || !strings.Contains(err.Error(), "GOMAXPROCS pairs") {
		t.Errorf("Plot(17 scenarios at %d GOMAXPROCS) = %v; want ErrTooManyCharts", MaxChartScenarios, err)
	}
}

// TestPlotHugeValues: values near the float64 maximum (1.7e308 ns/op, valid in the format)
// made the chart's axes overflow and the PNG rasterizer spin for good; they are refused at
// once as ErrBadValue naming the benchmark, before plots/ is made.
func TestPlotHugeValues(t *testing.T) {
	rs := []*benchfmt.Result{
		{Name: benchfmt.Name("Stage/strategy=a/cmd=typed-2"), Iters: 1, Values: []benchfmt.Value{{Value: 1.7e308, Unit: "ns/op"}}},
		{Name: benchfmt.Name("Stage/strategy=b/cmd=typed-2"), Iters: 1, Values: []benchfmt.Value{{Value: 1.7e308, Unit: "ns/op"}}},
	}
	dir := filepath.Join(t.TempDir(), "plots")
	done := make(chan error, 1)
	go func() { _, err := Plot(rs, dir); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, results.ErrBadValue) || !strings.Contains(err.Error(), "BenchmarkStage/strategy=a/cmd=typed-2") {
			t.Errorf("Plot(1.7e308 ns/op) = %v; want results.ErrBadValue naming the benchmark", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Plot(1.7e308 ns/op) still drawing after 30s")
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused Plot made %s (%v)", dir, err)
	}
}

// sampleResults is one result of name per value in ns/op.
func sampleResults(name string, vals ...float64) []*benchfmt.Result {
	var rs []*benchfmt.Result
	for _, v := range vals {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: "ns/op"}}})
	}
	return rs
}
