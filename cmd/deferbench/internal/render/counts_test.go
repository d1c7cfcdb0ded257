package render

import (
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// countRun is Stage cmd=typed timed for cmdbuffer and hybrid with the same noisy ns/op (time
// cannot separate them), and counted: cmdbuffer 89.5 instr/op, hybrid instr (3 repetitions
// each, spread under 0.3 %), and simulated misses for cmdbuffer.
func countRun(hybridInstr float64) []*benchfmt.Result {
	var rs []*benchfmt.Result
	res := func(name string, v float64, unit string) *benchfmt.Result {
		return &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1000, Values: []benchfmt.Value{{Value: v, Unit: unit}}}
	}
	for rep := range 8 {
		for _, st := range []string{"cmdbuffer", "hybrid"} {
			rs = append(rs, res("Stage/strategy="+st+"/cmd=typed", 10*jitter(st, rep), "ns/op"))
		}
	}
	for i, d := range []float64{0, 0.1, -0.1} {
		rs = append(rs, res("Stage/strategy=cmdbuffer/cmd=typed", 89.5+d, "instr/op"))
		rs = append(rs, res("Stage/strategy=hybrid/cmd=typed", hybridInstr+d, "instr/op"))
		rs = append(rs, res("Stage/strategy=cmdbuffer/cmd=typed", 0.5+0.01*float64(i), "sim-D1-miss/op"))
	}
	return rs
}

// TestReportCounts: the counts have their own section (per strategy, with the spread), are
// not in the timed tables, the simulated misses are labelled a simulation, the uncounted
// scenarios are listed with the reason, and the note says counts are not time.
func TestReportCounts(t *testing.T) {
	meta := ReportMeta{Counts: &results.CountsEnv{Method: "valgrind --tool=cachegrind --cache-sim=yes", Repeats: 3,
		Uncounted: []results.Uncounted{{Name: "Contention/strategy=cmdbuffer/producers=1", Reason: "producers race for the target"}},
		Hardware:  "no-pmu: no CPU PMU"}}
	var b strings.Builder
	if err := WriteReport(&b, countRun(120), meta); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	head, counted, ok := strings.Cut(md, "## Counts (counted, not timed)")
	if !ok {
		t.Fatalf("no counts section:\n%s", md)
	}
	for _, want := range []string{"| instr/op | cmdbuffer | hybrid |", "| cmd=typed | 89.5 (0.22%) | 120 (0.17%) |",
		"Simulated: sim-D1-miss/op", "not from the machine's caches", "leave out cache and memory effects", "never read them as time",
		"- Contention (1 rows): producers race for the target", "Hardware counters (perf_event_open): no-pmu"} {
		if !strings.Contains(counted, want) {
			t.Errorf("counts section lacks %q:\n%s", want, counted)
		}
	}
	if strings.Contains(head, "| instr/op |") || strings.Contains(head, "| sim-D1-miss/op |") {
		t.Errorf("a count unit in the timed tables:\n%s", head)
	}
}

// TestVerdictsUseCounts: where time cannot separate two strategies, Findings and "Which to
// pick" say that instructions per op can, naming the unit and that counts are not time; when
// the counts are within 1 % they say nothing.
func TestVerdictsUseCounts(t *testing.T) {
	var b strings.Builder
	if err := writeBoth(&b, countRun(120), ReportMeta{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	pick, findings, _ := strings.Cut(md, "## Findings")
	if !strings.Contains(md, "cmdbuffer ≈ hybrid") {
		t.Fatalf("the fixture's times were separated; the test needs them inseparable:\n%s", md)
	}
	want := "cmdbuffer 89.5 < hybrid 120 instr/op"
	for name, part := range map[string]string{"Which to pick": pick, "Findings": findings} {
		if !strings.Contains(part, want) || !strings.Contains(part, "not time") || !strings.Contains(part, "cache and memory effects") {
			t.Errorf("%s does not say the counts separate them (%q, not time, cache and memory):\n%s", name, want, part)
		}
	}
	b.Reset()
	if err := WriteReport(&b, countRun(89.9), ReportMeta{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "instructions per op can") {
		t.Errorf("counts within 1 %% reported as separating:\n%s", b.String())
	}
}

// TestCountNoteOnlyUnderTime: a group of equal allocations (0 allocs/op for both) is no tie of
// time: no "Time cannot separate" note stands under the allocs/op ranking, where the report
// put one beside a time ranking that had separated the two.
func TestCountNoteOnlyUnderTime(t *testing.T) {
	rs := countRun(120)
	res := func(name string, v float64, unit string) *benchfmt.Result {
		return &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1000, Values: []benchfmt.Value{{Value: v, Unit: unit}}}
	}
	for range 8 {
		for _, st := range []string{"cmdbuffer", "hybrid"} {
			rs = append(rs, res("Stage/strategy="+st+"/cmd=typed", 0, "allocs/op"))
		}
	}
	var b strings.Builder
	if err := WriteDetails(&b, rs, ReportMeta{}); err != nil {
		t.Fatal(err)
	}
	sec := section(b.String(), "### Stage cmd=typed: allocs/op")
	if strings.Contains(sec, "Time cannot separate") {
		t.Errorf("a count note under allocs/op:\n%s", sec)
	}
	if !strings.Contains(section(b.String(), "### Stage cmd=typed: ns/op"), "Time cannot separate cmdbuffer, hybrid") {
		t.Errorf("no count note under ns/op, where time cannot separate the two:\n%s", b.String())
	}
}
