package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// bruteSignedRank is the two-sided signed-rank p-value by enumerating every sign assignment.
func bruteSignedRank(d []float64) float64 {
	var abs []float64
	var pos []bool
	for _, x := range d {
		if x != 0 {
			abs = append(abs, math.Abs(x))
			pos = append(pos, x > 0)
		}
	}
	n := len(abs)
	rank := make([]float64, n)
	for i := range abs {
		less, eq := 0, 0
		for j := range abs {
			if abs[j] < abs[i] {
				less++
			} else if abs[j] == abs[i] {
				eq++
			}
		}
		rank[i] = float64(less) + float64(eq+1)/2
	}
	w := 0.0
	for i := range abs {
		if pos[i] {
			w += rank[i]
		}
	}
	le, ge := 0, 0
	for m := 0; m < 1<<n; m++ {
		s := 0.0
		for i := range n {
			if m>>i&1 == 1 {
				s += rank[i]
			}
		}
		if s <= w+1e-9 {
			le++
		}
		if s >= w-1e-9 {
			ge++
		}
	}
	return math.Min(1, 2*float64(min(le, ge))/float64(int(1)<<n))
}

func TestSignedRankP(t *testing.T) {
	for _, d := range [][]float64{
		{1, 2, 3, 4, 5, 6},
		{1, 2, 3, -4, 5, 6, 7, -0.5, 9, 10},
		{1, 2, 2, -4, 5, 5, 7, -0.5, 9, 10, 0},
		{-1, 1, -2, 2, 3, -3},
		{0.1, -0.2, 0.3, -0.4, 0.5, 0.6, -0.7, 0.8, 0.9, -1, 1.1, 1.2},
	} {
		p, _ := SignedRankP(d)
		if want := bruteSignedRank(d); math.Abs(p-want) > 1e-12 {
			t.Errorf("SignedRankP(%v) = %v, want %v", d, p, want)
		}
	}
	if p, n := SignedRankP([]float64{0, 0}); p != 1 || n != 0 {
		t.Errorf("all-zero differences: p=%v n=%d, want 1, 0", p, n)
	}
	// Beyond the exact limit the normal approximation must agree with the exact test's
	// neighbourhood: 60 differences all positive are overwhelmingly significant.
	d := make([]float64, 60)
	for i := range d {
		d[i] = float64(i + 1)
	}
	if p, _ := SignedRankP(d); p > 1e-6 {
		t.Errorf("60 positive differences: p = %v, want < 1e-6", p)
	}
}

func TestParseThresholds(t *testing.T) {
	ts, err := ParseThresholds("sec/op>5%, allocs/op>0,B/op>16")
	if err != nil {
		t.Fatal(err)
	}
	want := []Threshold{{"ns/op", 0.05, true, "sec/op>5%"}, {"allocs/op", 0, false, "allocs/op>0"}, {"B/op", 16, false, "B/op>16"}}
	if fmt.Sprint(ts) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", ts, want)
	}
	for _, bad := range []string{"", "sec/op", "sec/op>", "sec/op>x%", "sec/op>-1%", ">5%", "sec/op>NaN", "sec/op>5%,,", "ns/op>1,sec/op>2"} {
		if _, err := ParseThresholds(bad); err == nil {
			t.Errorf("ParseThresholds(%q): no error", bad)
		}
	}
}

// cfgResults builds results named name with the given values of unit (one result each).
func cfgResults(config string, name, unit string, vals ...float64) []*benchfmt.Result {
	var b strings.Builder
	b.WriteString(config)
	for _, v := range vals {
		fmt.Fprintf(&b, "Benchmark%s 100 %v %s\n", name, v, unit)
	}
	r := benchfmt.NewReader(strings.NewReader(b.String()), "x")
	var rs []*benchfmt.Result
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			rs = append(rs, res.Clone())
		}
	}
	return rs
}

func TestCompareRunsGate(t *testing.T) {
	gate, _ := ParseThresholds("sec/op>5%,allocs/op>0,B/op>0,distinct-states>0")
	noisy := func(m float64) []float64 {
		return []float64{m, m * 1.01, m * 0.99, m * 1.005, m * 0.995, m * 1.002}
	}
	for _, c := range []struct {
		name     string
		unit     string
		old, new []float64
		paired   bool
		verdict  string
		gate     string
		method   string
	}{
		{"0 to 1 alloc at n=1 is exact and fails", "allocs/op", []float64{0}, []float64{1}, false, Worse, "fail", MethodExact},
		{"amortised growth is no allocation", "allocs/op", []float64{0, 0, 0}, []float64{1e-6, 2e-6, 1.4e-6}, false, Unchanged, "pass", MethodExact},
		{"amortised 4 to 4.00002 is no change", "allocs/op", []float64{4, 4.00001}, []float64{4.00002, 4.00002}, false, Unchanged, "pass", MethodExact},
		{"B/op 0 to 1 is within the tolerance (help: of at most 1 byte)", "B/op", []float64{0, 0, 0}, []float64{1, 1, 1}, false, Unchanged, "pass", MethodExact},
		{"B/op 0 to 2 exceeds it", "B/op", []float64{0, 0, 0}, []float64{2, 2, 2}, false, Worse, "fail", MethodExact},
		{"B/op 0 to 48", "B/op", []float64{0, 0, 0}, []float64{48, 48, 48}, false, Worse, "fail", MethodExact},
		{"distinct-states 1 to 3", "distinct-states", []float64{1}, []float64{3}, false, Worse, "fail", MethodExact},
		{"fewer allocations", "allocs/op", []float64{4}, []float64{0}, false, Better, "pass", MethodExact},
		{"+10% time, significant", "ns/op", noisy(100), noisy(110), false, Worse, "fail", MethodUTest},
		{"+3% time, significant but within 5%", "ns/op", noisy(100), noisy(103), false, Worse, "pass", MethodUTest},
		{"-10% time", "ns/op", noisy(100), noisy(90), false, Better, "pass", MethodUTest},
		{"+10% time at n=1 is no verdict", "ns/op", []float64{100}, []float64{110}, false, NoVerdict, "inconclusive", MethodUTest},
		{"+10% time paired", "ns/op", noisy(100), noisy(110), true, Worse, "fail", MethodPaired},
		{"paired at 3 rounds: no verdict", "ns/op", []float64{100, 101, 99}, []float64{110, 111, 109}, true, NoVerdict, "inconclusive", MethodPaired},
		{"lower throughput is worse", "cmds/s", noisy(100), noisy(80), false, Worse, "", MethodUTest},
		{"equal timing samples at n=1 are no verdict", "ns/op", []float64{100}, []float64{100}, false, NoVerdict, "inconclusive", MethodUTest},
		{"equal timing samples at n=6 are tested: unchanged", "ns/op", []float64{100, 100, 100, 100, 100, 100}, []float64{100, 100, 100, 100, 100, 100}, false, Unchanged, "pass", MethodUTest},
	} {
		cmp := CompareRuns(cfgResults("", "X", c.unit, c.old...), cfgResults("", "X", c.unit, c.new...),
			CompareOptions{Thresholds: gate, Paired: c.paired})
		if len(cmp.Rows) != 1 {
			t.Errorf("%s: %d rows, want 1", c.name, len(cmp.Rows))
			continue
		}
		r := cmp.Rows[0]
		if r.Verdict != c.verdict || r.Gate != c.gate || r.Method != c.method {
			t.Errorf("%s: verdict %s, gate %q, method %s (p=%v, note %q); want %s, %q, %s", c.name, r.Verdict, r.Gate, r.Method, r.P, r.Note, c.verdict, c.gate, c.method)
		}
	}
}

// TestGateUntestableEqualRowsLeaveHolmAlone: a 2x slowdown of 6 samples against 6 fails the
// gate beside 30 rows of one sample a side, whether those single samples are equal or not.
// Equal ones were counted as tested: Holm's correction over 31 rows then spared the slowdown
// (exit 3, inconclusive) where 30 rows of unequal samples left it failing (exit 1).
func TestGateUntestableEqualRowsLeaveHolmAlone(t *testing.T) {
	gate, _ := ParseThresholds("sec/op>5%")
	for _, bar := range []float64{100, 101} {
		var old, new []*benchfmt.Result
		for i := range 6 {
			old = append(old, cfgResults("", "Foo-2", "ns/op", float64(100+i))...)
			new = append(new, cfgResults("", "Foo-2", "ns/op", float64(200+i))...)
		}
		for k := range 30 {
			old = append(old, cfgResults("", fmt.Sprintf("Bar%d-2", k), "ns/op", 100)...)
			new = append(new, cfgResults("", fmt.Sprintf("Bar%d-2", k), "ns/op", bar)...)
		}
		cmp := CompareRuns(old, new, CompareOptions{Thresholds: gate})
		failed := 0
		for _, r := range cmp.Rows {
			if r.Gate == GateFail {
				failed++
				if !strings.HasPrefix(r.Name, "Foo") {
					t.Errorf("Bar rows at %v: row %s fails", bar, r.Name)
				}
			}
		}
		if failed != 1 || cmp.Tested != 1 {
			t.Errorf("Bar rows 100 against %v: %d rows fail, %d tested; want Foo failing, 1 tested", bar, failed, cmp.Tested)
		}
	}
}

func TestCompareRunsKeepsConfigsApart(t *testing.T) {
	amd := "goarch: amd64\ncpu: AMD EPYC\n"
	intel := "goarch: amd64\ncpu: Intel Xeon\n"
	old := cfgResults(amd, "X", "ns/op", 10, 11, 10, 11, 10, 11)
	new := cfgResults(intel, "X", "ns/op", 20, 21, 20, 21, 20, 21)
	c := CompareRuns(old, new, CompareOptions{})
	if len(c.Rows) != 0 || fmt.Sprint(c.Differ) != "[cpu]" || !strings.Contains(strings.Join(c.Notes, "\n"), "differ in cpu (AMD EPYC / Intel Xeon): kept apart") {
		t.Errorf("AMD vs Intel: rows %v, differ %v, notes %q; want no row, cpu named", c.Rows, c.Differ, c.Notes)
	}
	// The note names OLD's value first whichever sorts first (Intel as OLD here).
	c = CompareRuns(new, old, CompareOptions{})
	if !strings.Contains(strings.Join(c.Notes, "\n"), "differ in cpu (Intel Xeon / AMD EPYC): kept apart") {
		t.Errorf("Intel vs AMD: notes %q; want OLD's cpu (Intel Xeon) first", c.Notes)
	}
	c = CompareRuns(old, new, CompareOptions{Ignore: []string{"cpu"}})
	if len(c.Rows) != 1 || c.OldLabel != "AMD EPYC" || c.NewLabel != "Intel Xeon" {
		t.Errorf("-ignore cpu: %d rows, labels %q %q; want 1 row labelled by cpu", len(c.Rows), c.OldLabel, c.NewLabel)
	}
	// go test's cpu line can end in padding (a virtual machine's brand string); the
	// label, a column heading, does not.
	padded := cfgResults("goarch: amd64\ncpu: Oxide Virtual Processor      \n", "X", "ns/op", 20, 21, 20, 21, 20, 21)
	c = CompareRuns(old, padded, CompareOptions{Ignore: []string{"*"}})
	if len(c.Rows) != 1 || c.NewLabel != "Oxide Virtual Processor" {
		t.Errorf("-ignore * with a padded cpu: %d rows, NEW label %q; want 1 row labelled %q", len(c.Rows), c.NewLabel, "Oxide Virtual Processor")
	}
	// One input mixing two machines: each part is compared only with its like.
	mixed := append(cfgResults(amd, "X", "ns/op", 10, 11, 10, 11, 10, 11), cfgResults(intel, "X", "ns/op", 30, 31, 30, 31, 30, 31)...)
	c = CompareRuns(mixed, new, CompareOptions{})
	if len(c.Rows) != 1 || c.Rows[0].Old.Median != 30.5 || c.Rows[0].Config != "cpu=Intel Xeon" || !strings.Contains(c.Notes[0], "OLD mixes") {
		t.Errorf("mixed OLD: rows %+v, notes %q; want the Intel part only, labelled", c.Rows, c.Notes)
	}
	// The build under test, a throttled run and a partial marker are not the machine.
	c = CompareRuns(cfgResults("deferbench: v1+aaaa\n"+amd, "X", "ns/op", 1), cfgResults("deferbench: v1+bbbb\nthrottled: yes\n"+amd, "X", "ns/op", 1), CompareOptions{})
	if len(c.Rows) != 1 || len(c.Differ) != 0 || !strings.Contains(strings.Join(c.Notes, "\n"), "NEW was throttled") {
		t.Errorf("two builds on one machine: rows %d, differ %v, notes %q", len(c.Rows), c.Differ, c.Notes)
	}
}

func TestTolerance(t *testing.T) {
	for unit, want := range map[string]float64{"allocs/op": 0.01, "B/op": 1, "heap-B/cmd": 1, "replica-B/entity": 1, "ns/op": 0, "distinct-states": 0, "cmds/s": 0} {
		if got := results.Tolerance(unit); got != want {
			t.Errorf("Tolerance(%q) = %v, want %v", unit, got, want)
		}
	}
	// A heap-B/cmd shift of a hundredth of a byte, however consistent, is no change.
	old := []float64{82.43, 82.431, 82.432, 82.433, 82.434, 82.435}
	new := []float64{82.44, 82.441, 82.442, 82.443, 82.444, 82.445}
	if r := CompareRuns(cfgResults("", "X", "heap-B/cmd", old...), cfgResults("", "X", "heap-B/cmd", new...), CompareOptions{}).Rows[0]; r.Verdict != Unchanged {
		t.Errorf("heap-B/cmd +0.01 B: verdict %s (p=%v), want unchanged", r.Verdict, r.P)
	}
}

// TestPairedVerdictFollowsRatios: in 19 of 20 rounds NEW is 10% slower than OLD; in the
// round that holds OLD's median it is twice as fast, so NEW's median is below OLD's. The paired
// verdict follows the rounds: worse, +10%.
func TestPairedVerdictFollowsRatios(t *testing.T) {
	var old, new []float64
	for i := range 10 {
		old = append(old, float64(10+i), float64(1000+i))
	}
	for _, x := range old {
		if x == 1000 {
			new = append(new, x/2)
		} else {
			new = append(new, 1.1*x)
		}
	}
	gate, _ := ParseThresholds("sec/op>5%")
	r := CompareRuns(cfgResults("", "X", "ns/op", old...), cfgResults("", "X", "ns/op", new...), CompareOptions{Paired: true, Thresholds: gate}).Rows[0]
	if r.Diff >= 0 {
		t.Fatalf("test data: NEW's median is not below OLD's (diff %+.1f)", r.Diff)
	}
	if r.Method != MethodPaired || r.Verdict != Worse || math.Abs(r.Change-0.1) > 1e-9 || r.Gate != "fail" {
		t.Errorf("verdict %s, change %+.3f, p %.4f, gate %s, diff of medians %+.1f; want worse, +0.100, fail", r.Verdict, r.Change, r.P, r.Gate, r.Diff)
	}
}

// TestPairedFallbackNoted: a paired comparison whose sides have different sample counts
// (a round missing on one) cannot pair them: the row is tested with the U test, a note says
// so, and when no row was paired the comparison's method is the U test, not signed-rank.
func TestPairedFallbackNoted(t *testing.T) {
	old := []float64{100, 101, 102, 103, 104, 105}
	c := CompareRuns(cfgResults("", "X", "ns/op", old...), cfgResults("", "X", "ns/op", old[:5]...), CompareOptions{Paired: true})
	if c.Rows[0].Method != MethodUTest || c.Method != MethodUTest {
		t.Errorf("6 against 5 samples: row method %s, comparison method %s; want both %s", c.Rows[0].Method, c.Method, MethodUTest)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "1 of 1 tested rows could not be paired") || !strings.Contains(c.Notes[0], "6 against 5") {
		t.Errorf("notes %q, want one saying the row could not be paired, 6 against 5 samples", c.Notes)
	}
	c = CompareRuns(cfgResults("", "X", "ns/op", old...), cfgResults("", "X", "ns/op", old...), CompareOptions{Paired: true})
	if c.Method != MethodPaired || len(c.Notes) != 0 {
		t.Errorf("equal counts: method %s, notes %q; want %s and no note", c.Method, c.Notes, MethodPaired)
	}
}

// TestUTestMinP: the smallest two-sided U-test p for n1+n2 samples is 2 / C(n1+n2, n1).
func TestUTestMinP(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		want   float64
	}{{6, 1, 2.0 / 7}, {3, 3, 2.0 / 20}, {4, 4, 2.0 / 70}, {10, 10, 2.0 / 184756}, {0, 5, 1}, {1, 1, 1}} {
		if got := uTestMinP(c.n1, c.n2); math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("uTestMinP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.want)
		}
	}
}

// TestPairedKeepsRoundOrder: an A/A run of deferbench ab (one binary on both sides, order
// randomized per round) of a row whose values vary 1.9× from round to round. Paired in
// round order, HEAD is slower in 9 of 12 rounds and the signed-rank test finds nothing.
// Pairing the sorted samples instead (what happens when a summary sorts the caller's slice
// in place before the pairing) made HEAD slower in all 12 "pairs": +12%, p = 0.0005, a
// false alarm. The ratio must be the median of the true per-round ratios.
func TestPairedKeepsRoundOrder(t *testing.T) {
	base := []float64{221, 259, 283, 181, 282, 220, 269, 307, 276, 236, 233, 216}
	head := []float64{309, 266, 246, 231, 325, 286, 302, 215, 241, 322, 245, 242}
	var logs, ratios []float64
	for i := range base {
		ratios = append(ratios, head[i]/base[i])
		logs = append(logs, math.Log(head[i]/base[i]))
	}
	wantP := bruteSignedRank(logs)
	sort.Float64s(ratios)
	wantRatio := (ratios[5] + ratios[6]) / 2
	gate, _ := ParseThresholds("sec/op>5%")
	r := CompareRuns(cfgResults("", "X", "ns/op", base...), cfgResults("", "X", "ns/op", head...), CompareOptions{Paired: true, Thresholds: gate}).Rows[0]
	if r.Method != MethodPaired || math.Abs(r.P-wantP) > 1e-9 || r.Ratio == nil || math.Abs(r.Ratio.Median-wantRatio) > 1e-9 {
		t.Fatalf("method %s, p %.4g, ratio %+v; want signed-rank on the rounds as given: p %.4g, median ratio %.4f", r.Method, r.P, r.Ratio, wantP, wantRatio)
	}
	if wantP < 0.05 || r.Verdict == Worse || r.Gate == "fail" {
		t.Errorf("A/A: verdict %s, gate %s at p %.4g; want no significant change", r.Verdict, r.Gate, r.P)
	}
}

// TestGateErrInconclusiveNamesEachCommandsFlag: the inconclusive gate's error names the
// flag that gives more samples with the command that has it (ab has -rounds, no -count).
func TestGateErrInconclusiveNamesEachCommandsFlag(t *testing.T) {
	c := &RunComparison{Rows: []Row{
		{Name: "Stage/strategy=cmdbuffer", Unit: "sec/op", Gate: GateInconclusive},
		{Name: "Stage/strategy=hybrid", Unit: "sec/op", Gate: GatePass},
	}}
	err := c.GateErr(true)
	if !errors.Is(err, ErrGateInconclusive) {
		t.Fatalf("GateErr: got %v, want ErrGateInconclusive", err)
	}
	for _, want := range []string{"1 metric of 2 gated", "-count (deferbench run, go test)", "-rounds (deferbench ab)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("GateErr: %q lacks %q", err, want)
		}
	}
}

// TestNoVerdictNamesTheFix: a row with too few samples for a verdict says which flag gives
// more: -repeats for a counted unit, -count or -rounds for a timed one.
func TestNoVerdictNamesTheFix(t *testing.T) {
	for _, c := range []struct {
		unit, want string
		old, new   []float64
	}{
		{"instr/op", "-repeats", []float64{100}, []float64{110}},
		{"instr/op", "-repeats", []float64{100, 100, 100, 100, 100, 100}, []float64{110}},
		{"ns/op", "-count", []float64{100}, []float64{110}},
		{"ns/op", "-count", []float64{100, 100, 100, 100, 100, 100}, []float64{110}},
	} {
		cmp := CompareRuns(cfgResults("", "X", c.unit, c.old...), cfgResults("", "X", c.unit, c.new...), CompareOptions{})
		r := cmp.Rows[0]
		if r.Verdict != NoVerdict || !strings.Contains(r.Note, c.want) {
			t.Errorf("%s %d+%d samples: verdict %s, note %q; want %s and a note naming %s", c.unit, len(c.old), len(c.new), r.Verdict, r.Note, NoVerdict, c.want)
		}
		if c.unit == "ns/op" && strings.Contains(r.Note, "-repeats") {
			t.Errorf("%s: note %q names -repeats, which times nothing", c.unit, r.Note)
		}
	}
}

// TestGateVanishedBenchmark: a gated benchmark OLD has and NEW lacks, in a scenario NEW ran
// with a strategy NEW ran, under the same configuration, leaves the gate inconclusive and
// is named (in a note too, which -format json keeps). Subset runs pass: a scenario NEW did
// not run (-scenarios), a strategy it did not select (-strategies: neither a result nor its
// capabilities header line), a GOMAXPROCS its machine does not reach (Contention's sweep,
// -ignore-procs). So do a metric no threshold names, a NEW from another configuration (kept
// apart), and a benchmark NEW has without the gated unit (a unit only OLD has, noted).
func TestGateVanishedBenchmark(t *testing.T) {
	gate, _ := ParseThresholds("allocs/op>0")
	const amd = "goarch: amd64\n"
	res := func(config string, names ...string) []*benchfmt.Result {
		var rs []*benchfmt.Result
		for _, n := range names {
			rs = append(rs, cfgResults(config, n, "allocs/op", 0)...)
		}
		return rs
	}
	old := res(amd, "Stage/strategy=a-2", "Stage/strategy=b-2", "Spike/strategy=a-2", "Contention/strategy=a-4", "Foo/size-2048")
	for _, c := range []struct {
		name string
		new  []*benchfmt.Result
		ts   []Threshold
		want []string
		skip int // NEW's skipped lines
	}{
		{"all there", res(amd, "Stage/strategy=a-2", "Stage/strategy=b-2", "Spike/strategy=a-2", "Contention/strategy=a-4"), gate, nil, 0},
		{"one gone from a scenario NEW ran, its strategy running elsewhere", res(amd, "Stage/strategy=a-2", "Spike/strategy=a-2", "Spike/strategy=b-2", "Contention/strategy=a-4"), gate, []string{"Stage/strategy=b-2"}, 0},
		{"its strategy selected, by the header", res(amd+"capabilities-b: order=commit\n", "Stage/strategy=a-2", "Spike/strategy=a-2", "Contention/strategy=a-4"), gate, []string{"Stage/strategy=b-2"}, 0},
		{"its strategy not selected", res(amd, "Stage/strategy=a-2", "Spike/strategy=a-2", "Contention/strategy=a-4"), gate, nil, 0},
		{"a scenario left out whole", res(amd, "Stage/strategy=a-2", "Stage/strategy=b-2", "Contention/strategy=a-4"), gate, nil, 0},
		{"a GOMAXPROCS the machine does not reach", res(amd, "Stage/strategy=a-2", "Stage/strategy=b-2", "Spike/strategy=a-2", "Contention/strategy=a-2"), gate, nil, 0},
		{"no threshold on the unit", res(amd, "Stage/strategy=a-2"), nil, nil, 0},
		{"another configuration", res("goarch: arm64\n", "Stage/strategy=a-2"), gate, nil, 0},
		{"there without the unit, which its scenario reports nowhere", append(res(amd, "Spike/strategy=a-2", "Contention/strategy=a-4"), append(cfgResults(amd, "Stage/strategy=a-2", "ns/op", 5), cfgResults(amd, "Stage/strategy=b-2", "ns/op", 5)...)...), gate, nil, 0},
		{"there without the unit, which its scenario reports elsewhere", append(res(amd, "Stage/strategy=a-2", "Spike/strategy=a-2", "Contention/strategy=a-4"), cfgResults(amd, "Stage/strategy=b-2", "ns/op", 5)...), gate, []string{"Stage/strategy=b-2"}, 0},
		// Every Spike line of NEW unreadable (skipped): not a subset, the gate cannot tell.
		{"a scenario left out whole, lines skipped", res(amd, "Stage/strategy=a-2", "Stage/strategy=b-2", "Contention/strategy=a-4"), gate, []string{"Spike/strategy=a-2"}, 2},
		// go test's own benchmarks: -bench filters at every level of a name (Foo/b), and a
		// sub-benchmark's -2048 at GOMAXPROCS 1 reads as a GOMAXPROCS: not judged.
		{"a plain benchmark", res(amd, "Stage/strategy=a-2", "Stage/strategy=b-2", "Spike/strategy=a-2", "Contention/strategy=a-4"), gate, nil, 0},
	} {
		cmp := CompareRuns(old, c.new, CompareOptions{Thresholds: c.ts, NewSkipped: c.skip})
		if fmt.Sprint(cmp.Vanished) != fmt.Sprint(c.want) {
			t.Errorf("%s: Vanished %q, want %q", c.name, cmp.Vanished, c.want)
		}
		err := cmp.GateErr(len(c.ts) > 0)
		if len(c.want) > 0 {
			if !errors.Is(err, ErrGateInconclusive) || !strings.Contains(err.Error(), c.want[0]) {
				t.Errorf("%s: gate error %v, want inconclusive naming %s", c.name, err, c.want[0])
			}
			if !slices.ContainsFunc(cmp.Notes, func(n string) bool { return strings.Contains(n, c.want[0]) }) {
				t.Errorf("%s: no note names %s: %q", c.name, c.want[0], cmp.Notes)
			}
		}
	}
}
