package render

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// stageRun is a bench.txt of Stage cmd=typed and Determinism: reps repetitions, each
// running every strategy once (interleaved as the runner does, or, with grouped, every
// repetition of one strategy before the next, as go test -count does). A repetition's drift
// multiplies every strategy's time alike; each strategy adds its own ±2% jitter.
type stageRun struct {
	ns       map[string]float64 // strategy → ns/op before drift
	allocs   map[string]float64
	distinct map[string]float64 // Determinism distinct-states
	grouped  bool
	samples  map[string][]float64 // strategy → its stageReps ns/op values, instead of ns
}

var stageOrder = []string{"baseline", "cmdbuffer", "lazyguarded", "handrolled", "hybrid"}

const stageReps = 10

func drift(rep int) float64 { return 1 + 0.06*math.Sin(float64(rep)*1.7) }

func jitter(st string, rep int) float64 {
	h := int64(0) // int64: the same jitter where int has 32 bits (GOARCH=arm)
	for _, c := range st {
		h = h*31 + int64(c)
	}
	return 1 + 0.02*math.Sin(float64(h%97)+float64(rep)*2.3)
}

func (r stageRun) value(st string, rep int) float64 {
	if v, ok := r.samples[st]; ok {
		return v[rep]
	}
	return r.ns[st] * drift(rep) * jitter(st, rep)
}

// skewed is r run grouped (so the ratios are unpaired) with two bimodal strategies whose
// median of cross ratios to the best orders them the other way round from their medians:
// handrolled's median is 33 ns, cmdbuffer's 34 ns, but 4 of cmdbuffer's 10 samples are 25 ns.
func (r stageRun) skewed() stageRun {
	r.grouped = true
	r.samples = map[string][]float64{
		"handrolled": {33, 33, 33, 33, 33, 33, 33, 33, 33, 33},
		"cmdbuffer":  {25, 34, 25, 34, 25, 34, 25, 34, 34, 34},
	}
	return r
}

func (r stageRun) text() string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n\n")
	line := func(st string, rep int) {
		fmt.Fprintf(&b, "BenchmarkStage/strategy=%s/cmd=typed-2 1000 %v ns/op %v allocs/op\n", st, r.value(st, rep), r.allocs[st])
	}
	if r.grouped {
		for _, st := range stageOrder {
			for rep := range stageReps {
				line(st, rep)
			}
		}
	} else {
		for rep := range stageReps {
			for _, st := range stageOrder {
				line(st, rep)
			}
		}
	}
	for range stageReps {
		for _, st := range stageOrder[1:] {
			fmt.Fprintf(&b, "BenchmarkDeterminism/strategy=%s/runs=6/frames=4-2 1 1e7 ns/op %v distinct-states\n", st, r.distinct[st])
		}
	}
	return b.String()
}

func defaultStageRun() stageRun {
	return stageRun{
		ns:       map[string]float64{"baseline": 17, "cmdbuffer": 32.0, "lazyguarded": 440, "handrolled": 32.0, "hybrid": 32.0},
		allocs:   map[string]float64{"baseline": 0, "cmdbuffer": 0, "lazyguarded": 4, "handrolled": 0, "hybrid": 0},
		distinct: map[string]float64{"cmdbuffer": 1, "lazyguarded": 6, "handrolled": 4, "hybrid": 1},
	}
}

// report parses the bench.txt text and returns report.md.
func (r stageRun) report(t *testing.T, meta ReportMeta) string {
	t.Helper()
	rd := benchfmt.NewReader(strings.NewReader(r.text()), "bench.txt")
	var rs []*benchfmt.Result
	for rd.Scan() {
		if res, ok := rd.Result().(*benchfmt.Result); ok {
			rs = append(rs, res.Clone())
		}
	}
	if meta.Cores == 0 {
		meta.Cores = 2
	}
	meta.Config = append(meta.Config, results.FileConfig(rs)...)
	var b strings.Builder
	if err := writeBoth(&b, rs, meta); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// section returns the lines of report from the one holding start up to the next heading.
func section(report, start string) string {
	i := strings.Index(report, start)
	if i < 0 {
		return ""
	}
	rest := report[i:]
	if j := strings.Index(rest[1:], "\n#"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

// medianRatio is median(a) / median(b) over the repetitions, computed here from the
// generator, independently of the report's code.
func (r stageRun) medianRatio(a, b string) float64 {
	med := func(name string) float64 {
		var v []float64
		for rep := range stageReps {
			v = append(v, r.value(name, rep))
		}
		sort.Float64s(v)
		return (v[stageReps/2-1] + v[stageReps/2]) / 2
	}
	return med(a) / med(b)
}

// TestFindingsFollowTheData: the Findings and "Which to pick" sentences come from bench.txt:
// changing the data changes them, and their numbers are the data's.
func TestFindingsFollowTheData(t *testing.T) {
	run := defaultStageRun()
	rep := run.report(t, ReportMeta{})
	stage := section(rep, "### Stage cmd=typed: ns/op")
	if g := firstGroup(stage); g != "cmdbuffer handrolled hybrid" || !strings.Contains(stage, "**, then lazyguarded. Ratios paired.") {
		t.Errorf("Stage ranking: want cmdbuffer ≈ handrolled ≈ hybrid (any order), then lazyguarded, paired; first group %q:\n%s", g, stage)
	}
	// The ratio of lazyguarded to baseline is the ratio of their medians (the quantity the
	// ranking orders by); its interval, by the paired method, holds the median of the
	// per-repetition ratios.
	want := results.Sig3(run.medianRatio("lazyguarded", "baseline"), false) + "×"
	if !strings.Contains(stage, "| lazyguarded | ") || !strings.Contains(stage, want) {
		t.Errorf("Stage: want lazyguarded × baseline %s:\n%s", want, stage)
	}
	pick := section(rep, "## Which to pick, per variant")
	for _, w := range []string{
		"| no allocation while staging (typed commands; under 0.01 allocs/op, amortised buffer growth, counts as none) | cmdbuffer, handrolled, hybrid |",
		"| reproducible order (lockstep, replays) | cmdbuffer, hybrid |",
		"declares ReproducibleOrder: sort key",
	} {
		if !strings.Contains(pick, w) {
			t.Errorf("Which to pick lacks %q:\n%s", w, pick)
		}
	}
	// Three of the four strategies are inseparable at the top: being there is no evidence
	// of the lowest cost, so the requirement is undecided, for none and against none.
	if g := pickRow(pick, "lowest staging cost"); g != "none shown" || !strings.Contains(pick, "undecided, noise cannot tell") {
		t.Errorf("lowest staging cost: %q, want undecided (3 of 4 inseparable at the top):\n%s", g, pick)
	}
	if !strings.Contains(rep, "ratios paired, 0 unpaired") {
		t.Errorf("interleaved repetitions: want every ratio paired:\n%s", section(rep, "## Findings"))
	}

	// handrolled 1.5× slower: it leaves the best group and its ratio says 1.5.
	slow := defaultStageRun()
	slow.ns["handrolled"] *= 1.5
	rep = slow.report(t, ReportMeta{})
	stage = section(rep, "### Stage cmd=typed: ns/op")
	if g := firstGroup(stage); g != "cmdbuffer hybrid" || !strings.Contains(stage, "**, then handrolled, then lazyguarded.") {
		t.Errorf("handrolled ×1.5: want it in a group of its own:\n%s", stage)
	}
	if want := results.Sig3(slow.medianRatio("handrolled", "hybrid"), false) + "×"; !strings.Contains(stage, "| handrolled | ") || !strings.Contains(stage, want) {
		t.Errorf("handrolled ×1.5: want × best %s:\n%s", want, stage)
	}
	if g := pickRow(rep, "lowest staging cost"); g != "cmdbuffer hybrid" {
		t.Errorf("handrolled ×1.5 still meets lowest staging cost:\n%s", section(rep, "## Which to pick, per variant"))
	}

	// hybrid allocates; cmdbuffer is seen with two final states.
	bad := defaultStageRun()
	bad.allocs["hybrid"] = 1
	bad.distinct["cmdbuffer"] = 2
	rep = bad.report(t, ReportMeta{})
	pick = section(rep, "## Which to pick, per variant")
	for _, w := range []string{
		"| no allocation while staging (typed commands; under 0.01 allocs/op, amortised buffer growth, counts as none) | cmdbuffer, handrolled |",
		"| reproducible order (lockstep, replays) | hybrid |",
	} {
		if !strings.Contains(pick, w) {
			t.Errorf("perturbed run: Which to pick lacks %q:\n%s", w, pick)
		}
	}

	// go test -count order (no interleaving): the ratios cannot be paired.
	grouped := defaultStageRun()
	grouped.grouped = true
	rep = grouped.report(t, ReportMeta{})
	if !strings.Contains(section(rep, "### Stage cmd=typed: ns/op"), "Ratios unpaired.") {
		t.Errorf("repetitions not interleaved: want unpaired ratios:\n%s", section(rep, "## Findings"))
	}
}

// TestTrustFlags: the first lines say when the timings are not to be trusted.
func TestTrustFlags(t *testing.T) {
	run := defaultStageRun()
	rep := run.report(t, ReportMeta{})
	head := rep[:strings.Index(rep, "## Which to pick, per variant")]
	for _, no := range []string{"**Emulated**", "**Loaded**", "**Noisy**", "**Oversubscribed**"} {
		if strings.Contains(head, no) {
			t.Errorf("quiet native run flagged %s:\n%s", no, head)
		}
	}
	rep = run.report(t, ReportMeta{Config: []results.Config{{Key: "emulated", Value: "yes"}}, LoadBefore: "0.5 0.4 0.3", Cores: 2})
	head = rep[:strings.Index(rep, "## Which to pick, per variant")]
	for _, w := range []string{"**Emulated**", "timings say nothing"} {
		if !strings.Contains(head, w) {
			t.Errorf("trust flags lack %q:\n%s", w, head)
		}
	}
	if strings.Contains(head, "**Loaded**") {
		t.Errorf("load before (0.5) flagged:\n%s", head)
	}
}

// TestLoadedFlag: the Loaded flag says how much of the CPU other work took during the run,
// measured; the load average after a run counts the run's own threads and never raises it.
func TestLoadedFlag(t *testing.T) {
	run := defaultStageRun()
	head := func(meta ReportMeta) string {
		rep := run.report(t, meta)
		return rep[:strings.Index(rep, "## Which to pick, per variant")]
	}
	for _, tt := range []struct {
		name string
		meta ReportMeta
		want []string // "" = not flagged
	}{
		// An idle machine: the run accounts for all busy time; no load average after
		// the run reaches the report.
		{"idle, measured", ReportMeta{Cores: 2, LoadBefore: "0.05 0.10 0.08", OtherWork: &OtherWork{CPUs: 2, Seconds: 60, Other: 0.01}}, nil},
		{"other work 40%", ReportMeta{Cores: 2, OtherWork: &OtherWork{CPUs: 2, Seconds: 60, Other: 0.40}},
			[]string{"**Loaded**: other processes used 40% of the 2 CPUs' time during the run", "flagged above 10%"}},
		{"steal", ReportMeta{Cores: 2, OtherWork: &OtherWork{CPUs: 2, Other: 0.05, Steal: 0.08}},
			[]string{"**Loaded**: other work took 13% of the 2 CPUs' time during the run: other processes 5%, and the hypervisor 8% as steal"}},
		// Shown in whole percents, the total is the sum of its parts.
		{"rounded", ReportMeta{Cores: 2, OtherWork: &OtherWork{CPUs: 2, Other: 0.507, Steal: 0.007}},
			[]string{"other work took 52% of the 2 CPUs' time during the run: other processes 51%, and the hypervisor 1% as steal"}},
		{"at the limit", ReportMeta{Cores: 2, OtherWork: &OtherWork{CPUs: 2, Other: 0.06, Steal: 0.04}}, nil},
		// A previous run (deferbench ab's rounds, say) leaves the 1-minute average high
		// as this one starts; what was measured during the run decides.
		{"measured wins over load before", ReportMeta{Cores: 2, LoadBefore: "3.50 2.0 1.0", OtherWork: &OtherWork{CPUs: 2, Other: 0.02}}, nil},
		// An env.json without the measurement (an older deferbench): the load before the
		// run still says other work was running.
		{"not measured, loaded before", ReportMeta{Cores: 2, LoadBefore: "3.50 2.0 1.0"},
			[]string{"**Loaded**: the 1-minute load average before the run was 3.50, above the 2 cores: other work was running as it started", "not measured"}},
		{"not measured, idle before", ReportMeta{Cores: 2, LoadBefore: "0.10 2.0 1.0"}, nil},
		// A run killed outright has no closing capture: the report says so, not that
		// the deferbench was older.
		{"killed, loaded before", ReportMeta{Cores: 2, LoadBefore: "3.50 2.0 1.0", Partial: "20 results finished (run killed; files rebuilt by deferbench report)"},
			[]string{"not measured: the run was killed before its closing capture)"}},
	} {
		h := head(tt.meta)
		if tt.want == nil {
			if strings.Contains(h, "**Loaded**") {
				t.Errorf("%s: flagged Loaded:\n%s", tt.name, h)
			}
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(h, w) {
				t.Errorf("%s: trust flags lack %q:\n%s", tt.name, w, h)
			}
		}
	}
	// The measured figure is in report.md also when it raises no flag.
	rep := run.report(t, ReportMeta{Cores: 2, OtherWork: &OtherWork{CPUs: 2, Seconds: 61, Other: 0.01, Steal: 0.004}})
	if w := "Other work during the run (1m1s): 1% of the 2 CPUs' time, of which steal 0%"; !strings.Contains(rep, w) {
		t.Errorf("report lacks %q:\n%s", w, rep)
	}
	if rep := run.report(t, ReportMeta{Cores: 2}); strings.Contains(rep, "Other work during") {
		t.Errorf("report states other work it did not measure:\n%s", rep)
	}

	noisy := defaultStageRun()
	noisy.ns["lazyguarded"] = 440
	rs := parse(t, noisy.text())
	for i, r := range rs {
		if strings.Contains(string(r.Name), "lazyguarded/cmd=typed") && i%2 == 0 {
			r.Values[0].Value *= 1.8
			r.Values[0].OrigValue *= 1.8
		}
	}
	rs = append(rs, sampleResults("Contention/strategy=cmdbuffer/producers=2-4", 40, 41, 39, 40, 40, 41, 39)...)
	rs = append(rs, sampleResults("Contention/strategy=cmdbuffer/producers=2-2", 40, 41, 39, 40, 40, 41, 39)...)
	var b strings.Builder
	if err := writeBoth(&b, rs, ReportMeta{Cores: 2}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"**Noisy**: 1 headline medians have a 95% CI wider than ±10%", "lazyguarded Stage cmd=typed",
		"**Oversubscribed**: rows at GOMAXPROCS=4 exceed NumCPU=2", "| producers=2 GOMAXPROCS=4 (oversubscribed) |"} {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}

// TestNoisyFlagNamesWidest: the Noisy flag names the median with the widest CI, which the
// tables print only as ±>100%, even when it is not among the first examples it lists.
func TestNoisyFlagNamesWidest(t *testing.T) {
	rs := parse(t, defaultStageRun().text())
	for i, r := range rs {
		if i%2 != 0 || !strings.Contains(string(r.Name), "/cmd=typed") {
			continue
		}
		f := 1.3
		if strings.Contains(string(r.Name), "strategy=lazyguarded/") {
			f = 4
		} else if strings.Contains(string(r.Name), "strategy=baseline/") {
			continue
		}
		r.Values[0].Value *= f
		r.Values[0].OrigValue *= f
	}
	var b strings.Builder
	if err := writeBoth(&b, rs, ReportMeta{Cores: 2}); err != nil {
		t.Fatal(err)
	}
	var flag string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "**Noisy**") {
			flag = l
		}
	}
	if !strings.Contains(flag, "**Noisy**: 4 headline medians") || !strings.Contains(flag, "%, lazyguarded Stage cmd=typed ns/op; e.g. ") {
		t.Fatalf("Noisy flag does not name the widest CI (lazyguarded, ranked last):\n%s", flag)
	}
	if ex := flag[strings.Index(flag, "e.g. "):]; strings.Contains(ex, "lazyguarded") {
		t.Fatalf("test setup: lazyguarded is among the examples, so the flag would name it anyway:\n%s", flag)
	}
}

func parse(t *testing.T, text string) []*benchfmt.Result {
	t.Helper()
	rd := benchfmt.NewReader(strings.NewReader(text), "bench.txt")
	var rs []*benchfmt.Result
	for rd.Scan() {
		if res, ok := rd.Result().(*benchfmt.Result); ok {
			rs = append(rs, res.Clone())
		}
	}
	return rs
}

// firstGroup is the best group of a ranking section, its names sorted: "a b c".
func firstGroup(sec string) string {
	i := strings.Index(sec, "**")
	if i < 0 {
		return ""
	}
	j := strings.Index(sec[i+2:], "**")
	names := strings.Split(sec[i+2:i+2+j], " ≈ ")
	sort.Strings(names)
	return strings.Join(names, " ")
}

// pickRow is the strategies of the "Which to pick" row whose requirement starts with need,
// sorted: "a b".
func pickRow(report, need string) string {
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "| "+need) {
			cells := strings.Split(l, " | ")
			names := strings.Split(cells[1], ", ")
			sort.Strings(names)
			return strings.Join(names, " ")
		}
	}
	return ""
}

// TestFindingsTooFewRepetitions: with 3 repetitions the U test cannot judge; the report says
// so and names no strategy as meeting a need by its median alone.
func TestFindingsTooFewRepetitions(t *testing.T) {
	seen := map[string]int{}
	var rs []*benchfmt.Result
	for _, r := range parse(t, defaultStageRun().text()) {
		if seen[string(r.Name)]++; seen[string(r.Name)] <= 3 {
			rs = append(rs, r)
		}
	}
	var b strings.Builder
	if err := writeBoth(&b, rs, ReportMeta{Cores: 2}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"**Too few repetitions**",
		"| lowest staging cost (typed commands) | none shown | Stage cmd=typed: undecided, the U test gave no verdict",
		" ? ", "| reproducible order (lockstep, replays) | cmdbuffer, hybrid |",
		"need >= 4 samples to detect a difference at alpha level 0.05; raise -count to 6 or more, which also gives each median a 95% CI"} {
		if !strings.Contains(out, w) {
			t.Errorf("3-repetition report lacks %q:\n%s", w, out)
		}
	}
	// No ranking line sets its first strategy in bold: the order before a "?" is the
	// medians' alone, and bold reads as the pick.
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " ? ") && strings.Contains(l, "**") && strings.Contains(l, "ns/op") {
			t.Errorf("an untested ranking is bold: %q", l)
		}
	}
}

// TestFindingsUndecidedHigherIsBetter: an undecided row of a higher-is-better metric
// (Contention cmds/s) names the highest median, not a "lowest" one.
func TestFindingsUndecidedHigherIsBetter(t *testing.T) {
	var text strings.Builder
	for rep := range 3 {
		for _, s := range []struct {
			name string
			eff  float64
		}{{"cmdbuffer", 0.9}, {"handrolled", 0.5}} {
			fmt.Fprintf(&text, "BenchmarkContention/strategy=%s/producers=2-2 1000 20 ns/op %g cmds/s %g efficiency\n", s.name, 1e8*s.eff+float64(rep)*1e6, s.eff+float64(rep)/100)
		}
	}
	var b strings.Builder
	if err := writeBoth(&b, parse(t, text.String()), ReportMeta{Cores: 2}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "undecided, the U test gave no verdict"
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| many parallel producers") {
			row = l
		}
	}
	if !strings.HasPrefix(row, "| many parallel producers (cmds/s of all producers together, producers = 2 at GOMAXPROCS = 2) |") ||
		!strings.Contains(row, want) || !strings.Contains(row, "highest median cmdbuffer 91.0M") || strings.Contains(row, "lowest") {
		t.Errorf("throughput row = %q, want %q naming the highest median cmdbuffer 91.0M", row, want)
	}
}

// TestFindingsRatiosFollowTheRanking: down every ranking table the × best column moves one
// way only (a strategy ranked below another never shows a ratio nearer the best), also when
// the data are skewed so that the median of the cross ratios and the ratio of the medians
// disagree.
func TestFindingsRatiosFollowTheRanking(t *testing.T) {
	for _, run := range []stageRun{defaultStageRun(), defaultStageRun().skewed()} {
		rep := run.report(t, ReportMeta{})
		var prev []float64
		check := func() {
			up, down := true, true
			for i := 1; i < len(prev); i++ {
				up = up && prev[i] >= prev[i-1]
				down = down && prev[i] <= prev[i-1]
			}
			if !up && !down {
				t.Errorf("× best out of ranking order %v in:\n%s", prev, rep)
			}
			prev = nil
		}
		inTable := false
		for _, line := range strings.Split(rep, "\n") {
			if strings.HasPrefix(line, "| strategy | median | × best") {
				inTable = true
				continue
			}
			if !inTable || strings.HasPrefix(line, "|---") {
				continue
			}
			cells := strings.Split(line, "|")
			if !strings.HasPrefix(line, "| ") || len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "*") {
				inTable = false
				check()
				continue
			}
			f := strings.Fields(strings.TrimSpace(cells[3]))
			if len(f) == 0 {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "×"), 64)
			if err != nil {
				continue // no ratio (e.g. a zero best)
			}
			prev = append(prev, v)
		}
		check()
	}
}

// TestRatioLineWithoutIntervals: a run too short for any ratio's CI (a -quick run) says so in
// words instead of comparing "none" with "none".
func TestRatioLineWithoutIntervals(t *testing.T) {
	got := ratioLine(nil)
	if strings.Contains(got, "none") || !strings.Contains(got, "no ratio has both a paired and an unpaired 95% CI") {
		t.Errorf("ratioLine without intervals = %q", got)
	}
}
