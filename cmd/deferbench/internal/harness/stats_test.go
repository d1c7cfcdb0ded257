package harness

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"golang.org/x/perf/benchfmt"
)

func results(name string, vals ...float64) []*benchfmt.Result {
	var rs []*benchfmt.Result
	for _, v := range vals {
		rs = append(rs, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: "ns/op"}}})
	}
	return rs
}

func TestCompare(t *testing.T) {
	old := results("Stage/cmd=typed-2", 10, 10.1, 9.9, 10.2, 9.8, 10, 10.1, 9.9, 10, 10)
	slow := results("Stage/cmd=typed-2", 11, 11.1, 10.9, 11.2, 10.8, 11, 11.1, 10.9, 11, 11)
	cs := Compare(old, slow, 0)
	if len(cs) != 1 {
		t.Fatalf("Compare returned %d rows, want 1", len(cs))
	}
	c := cs[0]
	if !c.Significant || c.P >= 0.05 || math.Abs(c.Delta-0.1) > 0.01 {
		t.Errorf("10%% slower: significant %v, p %v, delta %v; want significant, p < 0.05, delta ≈ +10%%", c.Significant, c.P, c.Delta)
	}
	if cs := Compare(old, old, 0); cs[0].Significant {
		t.Errorf("a sample against itself is significant (p %v)", cs[0].P)
	}
	if cs := Compare(old[:3], slow[:3], 0); cs[0].Significant || cs[0].Note == "" {
		t.Errorf("n=3: significant %v, note %q; want no verdict and a note", cs[0].Significant, cs[0].Note)
	}
	var out strings.Builder
	if err := WriteComparison(&out, cs, "old", "new"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Stage/cmd=typed-2") || !strings.Contains(out.String(), "ns/op") {
		t.Errorf("WriteComparison output lacks the row or unit:\n%s", out.String())
	}
	out.Reset()
	few := Compare(old[:3], slow[:3], 0)
	few = append(few, Compare(results("B-2", 1, 2, 3), results("B-2", 1, 2, 3), 0)...)
	if err := WriteComparison(&out, few, "old", "new"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), few[0].Note) != 1 || strings.Count(out.String(), "?1") != 3 {
		t.Errorf("WriteComparison: want the no-verdict reason once under the table, rows marked ?1:\n%s", out.String())
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize(results("X-2", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
	if len(s) != 1 || s[0].N != 10 || s[0].Median != 5.5 || s[0].Lo > 5.5 || s[0].Hi < 5.5 || s[0].Unit != "ns/op" {
		t.Errorf("Summarize = %+v; want n 10, median 5.5 inside its CI, unit ns/op", s)
	}
}

// spun is cmdbuffer's ECS strategy rebuilt from its public generic parts, with an optional
// busy loop in its typed staging (see spunSink.StageKeyed): the sensitivity self-test's known
// extra cost.
type spun struct {
	core  *deferral.Core
	buf   *cmdbuffer.Buffer[ecs.World, deferral.Command]
	spins int
}

type spunSink struct {
	deferral.Sink
	spins int
	n     *int
}

var spinState uint64

//go:noinline
func spin(n int) {
	x := spinState
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	spinState = x
}

// StageKeyed spins 64×spins iterations every 64th command: a dependency chain that long
// outlasts what an out-of-order core overlaps with the surrounding work, so its cost adds up
// (a short chain per command would mostly hide in the staging's own latency).
func (s spunSink) StageKeyed(k uint64, c deferral.Command) {
	if *s.n++; *s.n&63 == 0 {
		spin(64 * s.spins)
	}
	s.Sink.StageKeyed(k, c)
}

func spunFactory(spins int) deferral.Factory {
	return func(w *ecs.World) deferral.Strategy {
		core := deferral.NewCore(w)
		buf := cmdbuffer.New(w, func(_ *ecs.World, at deferral.Pos, c *deferral.Command) error { return core.Apply(at, c) })
		return &spun{core: core, buf: buf, spins: spins}
	}
}

func (s *spun) Name() string                        { return "spun" }
func (s *spun) Capabilities() deferral.Capabilities { return deferral.Capabilities{} }
func (s *spun) World() *ecs.World                   { return s.core.World() }
func (s *spun) NewRecorder() *deferral.Recorder {
	return s.core.NewRecorder(spunSink{Sink: s.buf.NewRecorder(), spins: s.spins, n: new(int)})
}
func (s *spun) Commit() error {
	if err := s.core.Begin(); err != nil {
		return err
	}
	err := s.buf.Commit()
	s.core.End(err == nil)
	return err
}
func (s *spun) Pending() int { return s.buf.Pending() }
func (s *spun) Discard() int {
	n := s.buf.Discard()
	s.core.Discarded()
	return n
}
func (s *spun) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }
func (s *spun) TakeReport() (deferral.Report, error)     { return s.core.TakeReport(s.Pending()) }
func (s *spun) Close() error                             { return s.core.Close(s.Pending()) }

// TestSensitivity is the harness's self-test of the method deferbench ab uses: a strategy made
// about 10% slower, interleaved with the original over sensitivityRounds repetitions of
// sensitivityBenchtime, must be reported significantly slower (signed-rank p < 0.05 on the
// per-repetition ratios) on the typed Stage benchmark. It measures, so it is skipped with -short.
// The rounds and benchtime of TestSensitivity: more, shorter pairs. A pair's two
// measurements are closer in time, so less of the machine's drift falls between them, and
// more pairs narrow the interval. At the run defaults (10 pairs of 50 ms) one run on an idle
// 2-vCPU VM read a 10% cost as +8.8% with a paired CI of 0.86…1.73 (p = 0.32); 30 pairs of
// 20 ms passed 10 runs of 10, the CI never wider than ±2%.
const (
	sensitivityRounds    = 30
	sensitivityBenchtime = "20ms"
)

func TestSensitivity(t *testing.T) {
	if testing.Short() {
		t.Skip("measures timing: run without -short")
	}
	// Other processes' load swings a shared machine's speed by far more than 10% within a
	// second; the test needs the CPUs mostly to itself.
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if load, err := strconv.ParseFloat(f[0], 64); err == nil && load > float64(runtime.NumCPU()) {
				t.Skipf("load average %.2f on %d CPUs: too busy to resolve a 10%% difference", load, runtime.NumCPU())
			}
		}
	}
	typed := stageScenario
	typed.Variants = func(cfg VariantConfig) []Variant { return stageScenario.Variants(cfg)[:1] }
	base := StrategyInfo{Name: "base", Factory: spunFactory(0)}

	// Calibrate the spins so the slow strategy really costs about 10% more: an isolated
	// busy loop overlaps with the staging work in an out-of-order core, so its cost in place
	// is found by measuring (medians of 3 interleaved pairs at a short benchtime).
	if err := setBenchtime("20ms"); err != nil {
		t.Fatal(err)
	}
	median := func(f deferral.Factory) float64 {
		c := Plan([]Scenario{typed}, []StrategyInfo{{Name: "x", Factory: f}}, false, nil)[0]
		var v []float64
		for range 5 {
			r, err := measure(c, "calibrate")
			if err != nil {
				t.Fatal(err)
			}
			ns, _ := r.Value("ns/op")
			v = append(v, ns)
		}
		sort.Float64s(v)
		return v[2]
	}
	spins, ratio, calibrated := 4, 1.0, false
	for range 8 {
		ratio = median(spunFactory(spins)) / median(spunFactory(0))
		if ratio >= 1.08 && ratio <= 1.14 {
			calibrated = true
			break
		}
		next := float64(spins) * 0.10 / max(ratio-1, 0.01)
		spins = max(1, min(int(math.Round(next)), 4*spins))
	}
	if !calibrated {
		t.Skipf("could not calibrate a 10%% cost (last: %d spins, %+.1f%%): machine too noisy", spins, 100*(ratio-1))
	}
	t.Logf("adding %d spins per staged command: calibrated at %+.1f%%", spins, 100*(ratio-1))

	slow := StrategyInfo{Name: "slow", Factory: spunFactory(spins)}
	opt := Options{Scenarios: []Scenario{typed}, Strategies: []StrategyInfo{base, slow}, Count: sensitivityRounds, Benchtime: sensitivityBenchtime}
	var old, new []*benchfmt.Result
	err := Run(context.Background(), opt, func(r *benchfmt.Result) error {
		r = r.Clone()
		name := string(r.Name)
		r.Name = benchfmt.Name(strings.Replace(strings.Replace(name, "/strategy=base", "", 1), "/strategy=slow", "", 1))
		if strings.Contains(name, "strategy=slow") {
			new = append(new, r)
		} else {
			old = append(old, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The runner interleaves the two strategies within each repetition, so repetition i of
	// one pairs with repetition i of the other: the test is on the per-repetition ratios
	// (Wilcoxon signed-rank), which cancels the drift that hits both of a pair alike.
	for _, c := range CompareRuns(old, new, CompareOptions{Paired: true}).Rows {
		if c.Unit != "ns/op" {
			continue
		}
		t.Logf("%s: %+.1f%% (paired ratio CI %.3f…%.3f), p=%.4f", c.Name, 100*c.Change, c.Ratio.Lo, c.Ratio.Hi, c.P)
		if c.Method != MethodPaired || c.Verdict != Worse {
			t.Errorf("%s: a strategy ~10%% slower is reported %+.1f%% with p=%.4f (%s, verdict %s); want significantly slower", c.Name, 100*c.Change, c.P, c.Method, c.Verdict)
		}
		return
	}
	t.Fatal("no ns/op comparison")
}

func TestPlot(t *testing.T) {
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
	rs := results("Stage/strategy=cmdbuffer/cmd=typed-2", 30, 31, 29, 30, 30, 31, 29, 30)
	rs = append(rs, results("Stage/strategy=baseline/cmd=typed-2", 20, 21, 19, 20, 20, 21, 19, 20)...)
	var b strings.Builder
	meta := ReportMeta{Config: []Config{{"goarch", "arm64"}}, Throttled: "yes", Partial: "true (3 of 9)",
		Attribution: []Attribution{{Strategy: "cmdbuffer", CPU: 1, Share: map[string]float64{"stage": 0.5}}},
		Plots:       []string{"plots/Stage.svg", "plots/Stage.png"}}
	if err := WriteReport(&b, rs, meta); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**partial: 3 of 9 benchmarks finished**", "**Throttled**", "| goarch | arm64 |", "## Stage (GOMAXPROCS=2)",
		"| ns/op | cmdbuffer | baseline |", "| cmd=typed | 30 ns ±3% | 20 ns ±5% |", "| cmdbuffer | 1.00 |", "50.0%", "![Stage](plots/Stage.svg)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestIgnoreProcs(t *testing.T) {
	old := append(results("Stage/strategy=a/cmd=typed-4", 1), results("Frame/strategy=a/entities=1000", 1)...)
	for _, suffix := range []string{"", "-4", "-8"} {
		old = append(old, results("Contention/strategy=a/producers=2"+suffix, 1)...)
	}
	new := append(results("Stage/strategy=a/cmd=typed-16", 1), results("Contention/strategy=a/producers=2-16", 1)...)
	kept := IgnoreProcs(old, new)
	if len(kept) != 1 || kept[0] != "Contention/strategy=a/producers=2" {
		t.Errorf("IgnoreProcs kept %q apart, want only the Contention benchmark run at three GOMAXPROCS", kept)
	}
	var got []string
	for _, r := range append(old, new...) {
		got = append(got, string(r.Name))
	}
	want := []string{"Stage/strategy=a/cmd=typed", "Frame/strategy=a/entities=1000",
		"Contention/strategy=a/producers=2", "Contention/strategy=a/producers=2-4", "Contention/strategy=a/producers=2-8",
		"Stage/strategy=a/cmd=typed", "Contention/strategy=a/producers=2-16"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("IgnoreProcs names:\n got %q\nwant %q", got, want)
	}
	// The GOMAXPROCS variants stay apart: one row each, never one pooled row.
	cs := Compare(old, old, 0)
	if len(cs) != 5 {
		t.Errorf("Compare after IgnoreProcs: %d rows, want 5 (the three GOMAXPROCS apart)", len(cs))
	}
}

func TestUnmatched(t *testing.T) {
	old := append(results("A-2", 1, 2), results("B-2", 1)...)
	new := append(results("B-2", 1), results("C-2", 1, 2)...)
	o, n := Unmatched(old, new)
	if strings.Join(o, ",") != "A-2" || strings.Join(n, ",") != "C-2" {
		t.Errorf("Unmatched = %q, %q; want [A-2], [C-2]", o, n)
	}
}

func TestPartial(t *testing.T) {
	rs := results("A-2", 1)
	if got := Partial(rs); got != "" {
		t.Errorf("Partial of a complete run = %q", got)
	}
	rs[0].Config = append(rs[0].Config, benchfmt.Config{Key: PartialKey, Value: []byte("true (1 of 9 benchmarks: interrupted)"), File: true})
	if got := Partial(rs); got != "true (1 of 9 benchmarks: interrupted)" {
		t.Errorf("Partial = %q", got)
	}
}

func TestReadResultsErrors(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	os.WriteFile(readme, []byte("# deferbench\n\nA benchmark.\n"), 0o644)
	if _, err := ReadResults(readme); !errors.Is(err, ErrNotResults) || !strings.Contains(err.Error(), readme) {
		t.Errorf("ReadResults(README.md) = %v; want ErrNotResults naming the file", err)
	}
	if _, err := ReadResults(filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadResults(missing) = %v; want fs.ErrNotExist", err)
	}
	if _, err := ReadResults(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadResults(directory without bench.txt) = %v; want fs.ErrNotExist", err)
	}
	os.WriteFile(filepath.Join(dir, "bench.txt"), []byte("goos: linux\nBenchmarkA-2 10 5 ns/op\n"), 0o644)
	if rs, err := ReadResults(dir); err != nil || len(rs) != 1 {
		t.Errorf("ReadResults(results directory) = %d results, %v; want 1", len(rs), err)
	}
}
