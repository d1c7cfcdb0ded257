package counts

import (
	"bytes"
	"debug/elf"
	"debug/gosym"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// TestUnitsTidy: every count unit but task-clock-ns/op is kept as it is by benchunit.Tidy (no
// "ns" or "MB" to rescale), task-clock-ns/op becomes task-clock-sec/op as ns/op becomes sec/op,
// and all are of the decimal class, so benchstat prints 1.2k, not 1.2Ki.
func TestUnitsTidy(t *testing.T) {
	for _, u := range Units {
		wantU, wantV := u, 3.0
		if u == TaskClockUnit {
			wantU, wantV = "task-clock-sec/op", 3e-9
		}
		if v, tu := benchunit.Tidy(3, u); tu != wantU || math.Abs(v-wantV) > 1e-12*wantV {
			t.Errorf("Tidy(3, %q) = %v %q, want %v %q", u, v, tu, wantV, wantU)
		}
		if c := benchunit.ClassOf(u); c != benchunit.Decimal {
			t.Errorf("ClassOf(%q) = %v, want Decimal", u, c)
		}
		if strings.ContainsAny(u, " \t") {
			t.Errorf("unit %q has a space", u)
		}
	}
}

// TestResultsRoundTrip writes count rows with benchfmt and reads them back: one result per
// repetition, named as the row, with every unit's sample.
func TestResultsRoundTrip(t *testing.T) {
	rows := []Row{{
		Name: "Stage/strategy=cmdbuffer/cmd=typed", Low: 2048, High: 34816,
		Measures: []Measure{
			{Unit: InstrUnit, Samples: []float64{69.5, 69.6, 69.55}},
			{Unit: SimD1MissUnit, Samples: []float64{0.01, 0.012, 0.011}},
		},
	}}
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	for _, r := range Results(rows, []benchfmt.Config{{Key: "goarch", Value: []byte("amd64"), File: true}}) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(buf.String(), "goarch: amd64\n") {
		t.Errorf("no configuration line in\n%s", buf.String())
	}
	rd := benchfmt.NewReader(&buf, "bench.txt")
	n := 0
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if string(res.Name) != rows[0].Name || res.Iters != 34816-2048 {
			t.Errorf("result %d: name %q iters %d", n, res.Name, res.Iters)
		}
		if v, ok := res.Value(InstrUnit); !ok || v != rows[0].Measures[0].Samples[n] {
			t.Errorf("result %d: %s = %v (%v), want %v", n, InstrUnit, v, ok, rows[0].Measures[0].Samples[n])
		}
		if _, ok := res.Value(SimD1MissUnit); !ok {
			t.Errorf("result %d: no %s", n, SimD1MissUnit)
		}
		n++
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("read %d results, want 3", n)
	}
}

func TestParseCachegrind(t *testing.T) {
	const sim = `desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: ./x
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=a.go
fn=main.main
1 10 1 1 4 2 0 3 1 0
summary: 17355214 1200 800 5000000 40000 2000 3000000 10000 500
`
	tot, err := ParseCachegrind(strings.NewReader(sim))
	if err != nil {
		t.Fatal(err)
	}
	if tot["Ir"] != 17355214 || tot["D1mw"] != 10000 || len(tot) != 9 {
		t.Errorf("totals %v", tot)
	}
	d1, _ := cacheEvent(tot, SimD1MissUnit)
	ll, _ := cacheEvent(tot, SimLLMissUnit)
	if d1 != 50000 || ll != 800+2000+500 {
		t.Errorf("D1 misses %d, LL misses %d", d1, ll)
	}
	// The excluded functions' lines are summed per event, every fl= they appear under.
	const two = "events: Ir Dr\nfl=a.go\nfn=runtime.(*pageAlloc).find\n10 3 1\n11 4\nfn=main.main\n1 100 7\nfl=b.go\nfn=runtime.(*pageAlloc).find\n5 2 2\nsummary: 1000 50\n"
	tot, excl, err := ParseCachegrindExcluding(strings.NewReader(two), Excluded)
	if err != nil || tot["Ir"] != 1000 || excl["Ir"] != 9 || excl["Dr"] != 3 {
		t.Errorf("excluding: totals %v, excluded %v, %v", tot, excl, err)
	}
	// An assembly function matches with the ELF symbol table's suffix .abi0 or without it; a
	// function whose name only begins like an excluded one does not.
	const abi = "events: Ir\nfn=runtime.usleep.abi0\n1 6\nfn=runtime.usleep\n2 5\nfn=runtime.sysmonx\n3 4\nfn=runtime.sysmon\n4 3\nsummary: 100\n"
	if _, excl, err := ParseCachegrindExcluding(strings.NewReader(abi), Excluded); err != nil || excl["Ir"] != 6+5+3 {
		t.Errorf("excluding .abi0 names: excluded %v (want Ir 14), %v", excl, err)
	}
	// Trailing zero totals may be left out.
	tot, err = ParseCachegrind(strings.NewReader("events: Ir D1mr\nsummary: 5\n"))
	if err != nil || tot["Ir"] != 5 || tot["D1mr"] != 0 {
		t.Errorf("short summary: %v, %v", tot, err)
	}
	if _, err := cacheEvent(map[string]int64{"Ir": 1}, SimD1MissUnit); err == nil {
		t.Error("D1 misses from a run without cache simulation: no error")
	}
	for _, bad := range []string{"", "events: Ir\n", "summary: 5\n", "events: Ir\nsummary: x\n", "events: Ir\nsummary: 1 2\n"} {
		if _, err := ParseCachegrind(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseCachegrind(%q): no error", bad)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"A=1", "GOGC=50", "GOMAXPROCS=8", "B=2", "GOMEMLIMIT=1"}, ControlEnv(""))
	want := "A=1 B=2 GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,memprofilerate=0"
	if runtime.GOARCH == "amd64" {
		want += ",cpu.rdtscp=off"
	}
	want += " GOMEMLIMIT=2GiB"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
}

func TestMeasureSpread(t *testing.T) {
	m := newMeasure(InstrUnit, []float64{100, 101, 99.5, 100.2, 100})
	if m.Median != 100 || m.Spread != 0.015 {
		t.Errorf("median %v spread %v, want 100 and 0.015", m.Median, m.Spread)
	}
	if m := newMeasure(InstrUnit, []float64{7}); m.Median != 7 || m.Spread != 0 {
		t.Errorf("one sample: %+v", m)
	}
}

func TestGrownHigh(t *testing.T) {
	c := Child{Low: 2, High: 10}
	for _, tc := range []struct {
		delta, min int64
		max, want  int
	}{
		{1000, 500, 0, 10},  // enough already
		{100, 1000, 0, 82},  // m = 10: 2 + 10·8
		{100, 1050, 0, 90},  // m = 11
		{100, 1000, 50, 50}, // bounded: 2 + 6·8
		{100, 1000, 12, 10}, // the bound leaves no whole span more
		{0, 1000, 0, 18},    // no difference: double
		{100, -1, 0, 10},    // no minimum
		{-5, 1000, 0, 18},   // negative: double
		{100, 1000, 0, 82},  // again
	} {
		c.MaxHigh = tc.max
		if got := grownHigh(c, tc.delta, tc.min); got != tc.want {
			t.Errorf("grownHigh(%+v, %d, %d) = %d, want %d", c, tc.delta, tc.min, got, tc.want)
		}
	}
}

// TestExcludedNamesExist: every function Count leaves out is named as this Go version names
// it (a renamed runtime function would silently stop being left out).
func TestExcludedNamesExist(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("not an ELF binary: %v", err)
	}
	defer f.Close()
	// The symbol table may be stripped (go test strips its binaries); the runtime's own table
	// of functions is always there.
	sec := f.Section(".gopclntab")
	if sec == nil {
		t.Skip("no .gopclntab section")
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, f.Section(".text").Addr))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, fn := range tab.Funcs {
		have[fn.Name] = true
	}
	for _, fn := range Excluded {
		if !have[fn] {
			t.Errorf("%s: no such function in this binary's symbol table (renamed in this Go version?)", fn)
		}
	}
}

// TestLastLine: a failing child's reason is its own last line, not valgrind's nor x/sys/cpu's
// note on the runtime's GODEBUG setting.
func TestLastLine(t *testing.T) {
	for in, want := range map[string]string{
		"boom\n==12== valgrind says\n--12-- more\n":                     ": boom",
		"GODEBUG sys/cpu: unknown cpu feature \"rdtscp\"\nbad case\n":   ": bad case",
		"bad case\nGODEBUG sys/cpu: unknown cpu feature \"rdtscp\"\n\n": ": bad case",
		"GODEBUG sys/cpu: unknown cpu feature \"rdtscp\"\n":             "",
		"": "",
	} {
		if got := lastLine([]byte(in)); got != want {
			t.Errorf("lastLine(%q) = %q, want %q", in, got, want)
		}
	}
}
