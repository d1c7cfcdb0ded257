package render

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
)

// TestReportContentionRows: a scenario run at several GOMAXPROCS names it on every row, a
// name without a -N suffix as GOMAXPROCS=1; a huge CI reads ±>100%; times are in human units.
func TestReportContentionRows(t *testing.T) {
	var rs []*benchfmt.Result
	rs = append(rs, sampleResults("Contention/strategy=cmdbuffer/producers=2", 40, 41, 39, 40, 40, 41, 39)...)
	rs = append(rs, sampleResults("Contention/strategy=cmdbuffer/producers=2-4", 92700, 92000, 93000, 92700, 92800, 92600, 92700)...)
	rs = append(rs, sampleResults("Frame/strategy=cmdbuffer/entities=1000-4", 1e6, 1e6, 5e7, 1e4, 1e6, 2e8, 1e3)...)
	var b strings.Builder
	if err := writeBoth(&b, rs, ReportMeta{}); err != nil {
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
	if err := WriteReport(&b, sampleResults("Frame/strategy=a/entities=1-2", 1), meta); err != nil {
		t.Fatal(err)
	}
	var d strings.Builder
	if err := WriteDetails(&d, sampleResults("Frame/strategy=a/entities=1-2", 1), meta); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"(plots/Frame.svg)", "(plots/Frame-scaling.svg)"} {
		if n := strings.Count(b.String(), l); n != 1 {
			t.Errorf("report.md links %s %d times, want once:\n%s", l, n, b.String())
		}
		if n := strings.Count(d.String(), "!["+strings.TrimSuffix(strings.TrimPrefix(l, "(plots/"), ".svg)")+"]"+l); n != 1 {
			t.Errorf("details.md draws %s %d times, want once:\n%s", l, n, d.String())
		}
	}
}

// TestReportSaysWhatIsMeasured: each scenario's table section says what one op is (the
// scenario's description), so that a reader of report.md alone can tell StageApply's
// add/remove row (per component operation, commits every 200) from its other mixes.
func TestReportSaysWhatIsMeasured(t *testing.T) {
	rs := sampleResults("StageApply/strategy=cmdbuffer/mix=addremove2x100-2", 20, 21, 20, 22, 21, 20)
	rs = append(rs, sampleResults("Unknown/strategy=cmdbuffer/x=1-2", 1, 1, 1, 1, 1, 1)...)
	var b strings.Builder
	if err := writeBoth(&b, rs, ReportMeta{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if want := "## StageApply (GOMAXPROCS=2)\n\nWhat is measured: " + suite.StageApply.Description + ".\n"; !strings.Contains(out, want) {
		t.Errorf("report lacks the StageApply description:\n%s", out)
	}
	if !strings.Contains(out, "## Unknown (GOMAXPROCS=2)\n\n| ns/op") {
		t.Errorf("a scenario this build does not know (an older run's) should get its table without a description:\n%s", out)
	}
}

// writeBoth writes report.md and then details.md into w: the tests of what the report says
// about a verdict or a table look in both.
func writeBoth(w io.Writer, rs []*benchfmt.Result, meta ReportMeta) error {
	if err := WriteReport(w, rs, meta); err != nil {
		return err
	}
	return WriteDetails(w, rs, meta)
}

// TestReportNamesStrategies: report.md says in one line what each strategy of the run is,
// the controls and references too (noop is no strategy), and nothing of those not run.
func TestReportNamesStrategies(t *testing.T) {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\n\n")
	for rep := range 6 {
		for _, st := range []string{"cmdbuffer", "noop"} {
			fmt.Fprintf(&b, "BenchmarkContention/strategy=%s/producers=2-2 1000 %d ns/op\n", st, 100+rep)
		}
	}
	rep := reportOf(t, b.String())
	sec := section(rep, "## Strategies")
	for _, w := range []string{"- **cmdbuffer**: command buffers", "- **noop**: control, not a strategy"} {
		if !strings.Contains(sec, w) {
			t.Errorf("## Strategies lacks %q:\n%s", w, sec)
		}
	}
	if strings.Contains(sec, "**hybrid**") {
		t.Errorf("## Strategies names hybrid, which did not run:\n%s", sec)
	}
}
