package render

import (
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// TestReportCountsByISA: a run counted on the host and on Pi models has one Counts table per
// unit with a column per ISA (host, Pi 4, Pi 5, Pi 32-bit) and a row per variant and
// strategy; the report says where the order of two strategies flips between ISAs, where a gap
// moves by more than 10 %, and which rows the Pi 4 and Pi 5 models count apart beyond their
// spreads, and not where they agree.
func TestReportCountsByISA(t *testing.T) {
	var rs []*benchfmt.Result
	add := func(isa, st string, v float64) {
		for _, d := range []float64{0, 0.0005, -0.0005} {
			r := &benchfmt.Result{Name: benchfmt.Name("Stage/strategy=" + st + "/cmd=typed"), Iters: 1000,
				Values: []benchfmt.Value{{Value: v * (1 + d), Unit: counts.InstrUnit}}}
			if i, ok := counts.LookupISA(isa); ok {
				r.Config = i.Config()
			}
			rs = append(rs, r)
		}
	}
	for _, c := range []struct {
		isa                  string
		lazy, cmdbuf, hybrid float64
	}{
		{"host", 1593, 60.6, 70},
		{"pi4", 1558, 62.6, 61},
		{"pi5", 1552, 62.6, 61},
		{"pi4-32", 2447, 81.0, 79},
	} {
		add(c.isa, "lazyguarded", c.lazy)
		add(c.isa, "cmdbuffer", c.cmdbuf)
		add(c.isa, "hybrid", c.hybrid)
	}
	var b strings.Builder
	if err := WriteReport(&b, rs, ReportMeta{Counts: &results.CountsEnv{Method: "valgrind", Repeats: 3}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| instr/op | strategy | host | Pi 4 | Pi 5 | Pi 32-bit |",
		"| cmd=typed | lazyguarded | 1593 (0.10%) | 1558 (0.10%) | 1552 (0.10%) | 2447 (0.10%) |",
		"the order of cmdbuffer and hybrid flips: 60.6 vs 70.0 on host, 62.6 vs 61.0 on Pi 4",
		"lazyguarded over cmdbuffer is 26.29× on host, 24.89× on Pi 4, 24.79× on Pi 5, 30.21× on Pi 32-bit",
		"Pi 4 vs Pi 5 (the same arm64 binary;",
		"1 of 3 rows differ beyond their spreads, most first: lazyguarded cmd=typed 1558 vs 1552 (+0.39%).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| cmd=typed | cmdbuffer | hybrid |") {
		t.Errorf("the per-strategy table of a host-only run is there too:\n%s", out)
	}
}
