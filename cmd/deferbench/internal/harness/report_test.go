package harness

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{92.7e3, "ns/op", "92.7 µs"},
		{22.8e6, "ns/op", "22.8 ms"},
		{1.202e7, "ns/op", "12.0 ms"},
		{33.19, "ns/op", "33.2 ns"},
		{999.6, "ns/op", "1.00 µs"},
		{1175, "ns/op", "1.18 µs"},
		{2.5e9, "ns/op", "2.50 s"},
		{0.5, "sec/op", "500 ms"},
		{150, "p99-read-ns", "150 ns"},
		{288, "B/op", "288 B"},
		{3.813, "B/op", "3.81 B"},
		{2048, "heap-B/cmd", "2.00 KiB"},
		{5e7, "cmds/s", "50.0M"},
		{3.6e7, "cmds/s", "36.0M"},
		{1234, "reads/s", "1.23k"},
		{4, "allocs/op", "4"},
		{4.0000226, "allocs/op", "4"},
		{48.00025, "B/op", "48 B"},
		{1.00002e6, "ns/op", "1.00 ms"},
		{0.547, "efficiency", "0.547"},
		{1, "efficiency", "1.00"},
		{9.54e-05, "allocs/op", "0.0000954"},
		{1, "distinct-states", "1"},
		{0, "ns/op", "0 ns"},
		// Beyond the last suffix: three significant digits, not hundreds of them.
		{5e307, "ns/op", "5e+298 s"},
		{1e300, "B/op", "9.09e+287 TiB"},
		{1e300, "widgets/op", "1e+288T"},
		{123456, "ns/op", "123 µs"},
	} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestPartialText(t *testing.T) {
	for in, want := range map[string]string{
		"true (3 of 315 benchmarks: interrupted)": "partial: 3 of 315 benchmarks finished (interrupted)",
		"true (3 of 9)":              "partial: 3 of 9 benchmarks finished",
		"3 of 9 benchmarks finished": "partial: 3 of 9 benchmarks finished",
		"true (run in progress)":     "partial: run in progress",
		"true":                       "partial",
	} {
		if got := PartialText(in); got != want {
			t.Errorf("PartialText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReportContentionRows: a scenario run at several GOMAXPROCS names it on every row, a
// name without a -N suffix as GOMAXPROCS=1; a huge CI reads ±>100%; times are in human units.
func TestReportContentionRows(t *testing.T) {
	var rs []*benchfmt.Result
	rs = append(rs, results("Contention/strategy=cmdbuffer/producers=2", 40, 41, 39, 40, 40, 41, 39)...)
	rs = append(rs, results("Contention/strategy=cmdbuffer/producers=2-4", 92700, 92000, 93000, 92700, 92800, 92600, 92700)...)
	rs = append(rs, results("Frame/strategy=cmdbuffer/entities=1000-4", 1e6, 1e6, 5e7, 1e4, 1e6, 2e8, 1e3)...)
	var b strings.Builder
	if err := WriteReport(&b, rs, ReportMeta{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"## Contention\n", "| producers=2 GOMAXPROCS=1 | 40 ns ±", "| producers=2 GOMAXPROCS=4 | 92.7 µs ±",
		"## Frame (GOMAXPROCS=4)", "| entities=1000 | 1.00 ms ±>100% |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "e+0") || strings.Contains(out, "**Partial") {
		t.Errorf("report has scientific notation or a partial note:\n%s", out)
	}
}

func TestReportLinksEachPlotOnce(t *testing.T) {
	var b strings.Builder
	meta := ReportMeta{Plots: []string{"plots/Frame.svg", "plots/Frame.png", "plots/Frame-scaling.svg", "plots/Frame.svg"}}
	if err := WriteReport(&b, results("Frame/strategy=a/entities=1-2", 1), meta); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"(plots/Frame.svg)", "(plots/Frame-scaling.svg)"} {
		if n := strings.Count(b.String(), l); n != 1 {
			t.Errorf("report links %s %d times, want once:\n%s", l, n, b.String())
		}
	}
}

// TestReportSaysWhatIsMeasured: each scenario's table section says what one op is (the
// scenario's description), so that a reader of report.md alone can tell StageApply's
// add/remove row (per component operation, commits every 200) from its other mixes.
func TestReportSaysWhatIsMeasured(t *testing.T) {
	rs := results("StageApply/strategy=cmdbuffer/mix=addremove2x100-2", 20, 21, 20, 22, 21, 20)
	rs = append(rs, results("Unknown/strategy=cmdbuffer/x=1-2", 1, 1, 1, 1, 1, 1)...)
	var b strings.Builder
	if err := WriteReport(&b, rs, ReportMeta{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if want := "## StageApply (GOMAXPROCS=2)\n\nWhat is measured: " + stageApplyScenario.Description + ".\n"; !strings.Contains(out, want) {
		t.Errorf("report lacks the StageApply description:\n%s", out)
	}
	if !strings.Contains(out, "## Unknown (GOMAXPROCS=2)\n\n| ns/op") {
		t.Errorf("a scenario this build does not know (an older run's) should get its table without a description:\n%s", out)
	}
}
