package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/ecs"
)

// writeBench writes a bench.txt of lines (benchmark lines without the Benchmark prefix, each
// repeated 6 times with a little noise) into a new directory under t's temp dir, after the
// config lines, and returns the directory.
func writeBench(t *testing.T, config []string, lines ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if !slices.ContainsFunc(config, func(c string) bool { return strings.HasPrefix(c, "deferbench:") }) {
		fmt.Fprintln(&b, "deferbench: test") // what deferbench run writes: report rebuilds only such files
	}
	for _, c := range config {
		fmt.Fprintln(&b, c)
	}
	for i := range 6 {
		for _, l := range lines {
			name, ns, _ := strings.Cut(l, " ")
			fmt.Fprintf(&b, "Benchmark%s 1000 %s%d ns/op\n", name, ns, i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cli runs deferbench with args and returns its stdout, stderr and exit status.
func cli(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = exitCode(runContext(context.Background(), args, &o, &e), &e)
	return o.String(), e.String(), code
}

func TestCompareBadInputs(t *testing.T) {
	good := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	readme := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(readme, []byte("# deferbench\n\nNot results.\n"), 0o644)
	empty := t.TempDir()
	// A benchmark line cut short (no unit after the last value) and one whose value is out
	// of range: refused with the file and line, not as "not a results file", by plot and
	// report, and by compare when no line of the file is well-formed (compare skips them
	// with a note otherwise: TestCompareVerboseGoTest).
	cut := filepath.Join(t.TempDir(), "cut.txt")
	os.WriteFile(cut, []byte("goarch: amd64\n\nBenchmarkX-2 10 5 ns/op\nBenchmarkX-2 10 5 ns/op 0 B/op 0\n"), 0o644)
	huge := filepath.Join(t.TempDir(), "huge.txt")
	os.WriteFile(huge, []byte("BenchmarkX-2 10 1e309 ns/op\n"), 0o644)
	cutDir := filepath.Join(t.TempDir(), "killed")
	os.Mkdir(cutDir, 0o755)
	os.WriteFile(filepath.Join(cutDir, "bench.txt"), []byte("BenchmarkX-2 10 5 ns/op\r\nBenchmarkX-2 10 5 ns/op 4\r\n"), 0o644)
	// Unreadable inputs: a folder named bench.txt, a symlink loop.
	dirBench := t.TempDir()
	os.Mkdir(filepath.Join(dirBench, "bench.txt"), 0o755)
	loop := filepath.Join(t.TempDir(), "loop")
	os.Symlink(loop, loop)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", dirBench, good}, "deferbench: compare: " + filepath.Join(dirBench, "bench.txt") + ": cannot read it (is a directory): give a readable bench.txt or a results directory\n"},
		{[]string{"report", dirBench}, "deferbench: report: " + filepath.Join(dirBench, "bench.txt") + ": cannot read it (is a directory): give a readable bench.txt or a results directory\n"},
		{[]string{"compare", good, loop}, "deferbench: compare: " + loop + ": cannot read it (too many levels of symbolic links): give a readable bench.txt or a results directory\n"},
		{[]string{"compare", "/nonexistent/old", good}, "deferbench: compare: /nonexistent/old: no such file: give a bench.txt or a results directory\n"},
		{[]string{"compare", good, readme}, "deferbench: compare: " + readme + " is not a Go benchmark results file: give a bench.txt that deferbench run or go test -bench wrote, or a results directory\n"},
		{[]string{"compare", empty, good}, "deferbench: compare: " + empty + " has no bench.txt: give a bench.txt or a results directory\n"},
		{[]string{"compare", good, good, "-bogus"}, "deferbench: compare: unknown flag -bogus (valid: -alpha, -fail, -format, -full, -ignore, -ignore-procs, -paired)\n"},
		{[]string{"compare", good, good, "-alpha", "2"}, "deferbench: compare: -alpha 2: want a value in (0, 1)\n"},
		{[]string{"compare", good, "-ignore-procs"}, "deferbench: compare: want two arguments OLD NEW, got 1 (e.g. deferbench compare results/OLD-RUN results/NEW-RUN)\n"},
		{[]string{"plot", empty}, "deferbench: plot: " + empty + " has no bench.txt: give a bench.txt or a results directory\n"},
		{[]string{"plot", readme}, "deferbench: plot: " + readme + " is not a Go benchmark results file: give a bench.txt that deferbench run or go test -bench wrote, or a results directory\n"},
		{[]string{"compare", huge, good}, "deferbench: compare: " + huge + ":1: malformed benchmark line: parsing measurement: value out of range: correct or delete that line\n"},
		{[]string{"plot", cut}, "deferbench: plot: " + cut + ":4: malformed benchmark line: missing units: correct or delete that line\n"},
		{[]string{"report", cutDir}, "deferbench: report: " + filepath.Join(cutDir, "bench.txt") + ":2: malformed benchmark line: missing units: correct or delete that line\n"},
		// A gate on a unit neither run has could never fail: a typo, refused.
		{[]string{"compare", "-fail", "SEC/OP>5%", good, good}, "deferbench: compare: -fail: condition \"SEC/OP>5%\": neither run has a metric in SEC/OP (units: sec/op)\n"},
		{[]string{"compare", "-fail", "sec/op>5%,allocs>0", good, good}, "deferbench: compare: -fail: condition \"allocs>0\": neither run has a metric in allocs (units: sec/op)\n"},
	} {
		out, errOut, code := cli(c.args...)
		if code != 2 || errOut != c.want || out != "" {
			t.Errorf("deferbench %q: exit %d, stderr %q, stdout %q; want exit 2, stderr %q, no output", c.args, code, errOut, out, c.want)
		}
	}
}

// TestCompareFlagsAfterArgs: flags after OLD NEW count as if they came first.
func TestCompareFlagsAfterArgs(t *testing.T) {
	old := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	new := writeBench(t, nil, "Stage/strategy=a/cmd=typed-8 10")
	for _, args := range [][]string{
		{"compare", "-ignore-procs", old, new},
		{"compare", old, new, "-ignore-procs"},
		{"compare", old, "-ignore-procs", new},
		{"compare", old, new, "-ignore-procs", "-alpha=0.1"},
	} {
		out, errOut, code := cli(args...)
		if code != 0 || !strings.Contains(out, "Stage/strategy=a/cmd=typed ") {
			t.Errorf("deferbench %q: exit %d, stderr %q; want the matched row:\n%s", args, code, errOut, out)
		}
	}
	if _, errOut, code := cli("compare", old, new); code != 2 || !strings.Contains(errOut, "try -ignore-procs") {
		t.Errorf("no common benchmark: exit %d, stderr %q; want exit 2 and a hint at -ignore-procs", code, errOut)
	}
	if out, _, code := cli("compare", old, new, "-h"); code != 0 || !strings.Contains(out, "usage: deferbench compare") {
		t.Errorf("compare OLD NEW -h: exit %d, output %q; want the help", code, out)
	}
}

// TestCompareNotes: a benchmark in only one file and a partial input are each noted in one
// line on stderr; the table still compares what both have.
func TestCompareNotes(t *testing.T) {
	old := writeBench(t, nil, "A-2 10", "OnlyOld-2 10")
	new := writeBench(t, []string{"partial: 2 of 3 benchmarks finished (interrupted)"}, "A-2 10", "OnlyNew-2 10", "OnlyNew2-2 10")
	out, errOut, code := cli("compare", old, new)
	if code != 0 || !strings.Contains(out, "A-2") || strings.Contains(out, "Only") {
		t.Errorf("exit %d; want 0 and only the common row:\n%s", code, out)
	}
	for _, want := range []string{
		"deferbench: compare: note: " + new + ": partial: 2 of 3 benchmarks finished (interrupted)\n",
		"deferbench: compare: note: 1 benchmark only in " + old + ", not compared: OnlyOld-2\n",
		"deferbench: compare: note: 2 benchmarks only in " + new + ", not compared: OnlyNew-2, OnlyNew2-2\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(noSummary(errOut), "\n"); n != 3 {
		t.Errorf("stderr has %d lines besides the summary, want 3:\n%s", n, errOut)
	}
}

// TestCompareIgnoreProcsKeepsApart: -ignore-procs never pools one file's GOMAXPROCS variants
// of a benchmark into one row.
func TestCompareIgnoreProcsKeepsApart(t *testing.T) {
	old := writeBench(t, nil, "Contention/strategy=a/producers=2 10", "Contention/strategy=a/producers=2-4 20", "Stage/strategy=a/cmd=typed-4 30")
	new := writeBench(t, nil, "Contention/strategy=a/producers=2 10", "Contention/strategy=a/producers=2-8 20", "Stage/strategy=a/cmd=typed-8 30")
	out, errOut, code := cli("compare", "-ignore-procs", old, new)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Contention/strategy=a/producers=2 ", "Stage/strategy=a/cmd=typed "} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output has %q %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	for _, s := range []string{"n=12", "n=6+12", "n=12+6"} {
		if strings.Contains(out, s) {
			t.Errorf("output pools GOMAXPROCS variants (%s):\n%s", s, out)
		}
	}
	for _, want := range []string{"-ignore-procs: 1 benchmark run at several GOMAXPROCS, kept apart", "only in " + old + ", not compared: Contention/strategy=a/producers=2-4"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestPlotCommand: plot takes a results directory or its bench.txt, writes DIR/plots, and
// reports the number of files it wrote.
func TestPlotCommand(t *testing.T) {
	dir := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10", "Frame/strategy=a/entities=1000-2 100", "Frame/strategy=a/entities=10000-2 900")
	for _, arg := range []string{dir, filepath.Join(dir, "bench.txt")} {
		os.RemoveAll(filepath.Join(dir, "plots"))
		_, errOut, code := cli("plot", arg)
		files, _ := os.ReadDir(filepath.Join(dir, "plots"))
		want := fmt.Sprintf("deferbench: %d plot files (%d charts as SVG and PNG) in %s\n", len(files), len(files)/2, filepath.Join(dir, "plots"))
		if code != 0 || errOut != want || len(files) != 8 {
			t.Errorf("plot %s: exit %d, stderr %q, %d files; want 0, %q, 8 files (Stage, Frame, Frame-scaling, Frame-per-entity)", arg, code, errOut, len(files), want)
		}
	}
}

// writeFile writes content into name under a new temp directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompareRefusesBadSamples: one bad value anywhere in either input is refused with its
// file, line and value (exit 2), before any statistics run; a NaN used to hang compare.
func TestCompareRefusesBadSamples(t *testing.T) {
	good := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	head := "goos: linux\ngoarch: amd64\n\nBenchmarkStage/strategy=a/cmd=typed-2 1000 10 ns/op 0 allocs/op\n"
	for _, c := range []struct{ line, want string }{
		{"BenchmarkStage/strategy=a/cmd=typed-2 1000 NaN ns/op 0 allocs/op", "has NaN ns/op: want a finite number ≥ 0"},
		{"BenchmarkStage/strategy=a/cmd=typed-2 1000 Inf ns/op 0 allocs/op", "has +Inf ns/op: want a finite number ≥ 0"},
		{"BenchmarkStage/strategy=a/cmd=typed-2 1000 -Inf ns/op 0 allocs/op", "has -Inf ns/op: want a finite number ≥ 0"},
		{"BenchmarkStage/strategy=a/cmd=typed-2 1000 10 ns/op -3 allocs/op", "has -3 allocs/op: want a finite number ≥ 0"},
		{"BenchmarkStage/strategy=a/cmd=typed-2 0 10 ns/op 0 allocs/op", "ran 0 iterations: want at least 1"},
		// One line, one sample per unit: a repeat would count as a second sample.
		{"BenchmarkStage/strategy=a/cmd=typed-2 1000 10 ns/op 0 allocs/op 11 ns/op", "has ns/op twice (ns/op and ns/op): want each unit once"},
		{"BenchmarkStage/strategy=a/cmd=typed-2 1000 10 ns/op 1e-8 sec/op", "has ns/op twice (ns/op and sec/op): want each unit once"},
	} {
		bad := writeFile(t, "bench.txt", head+c.line+"\n")
		for _, args := range [][]string{{"compare", good, bad}, {"compare", bad, good}, {"plot", bad}} {
			out, errOut, code := cli(args...)
			want := "deferbench: " + args[0] + ": " + bad + ":5: bad benchmark value: BenchmarkStage/strategy=a/cmd=typed-2 " + c.want
			if code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 || out != "" {
				t.Errorf("%q with %q: exit %d, stderr %q, stdout %q; want exit 2 and one line starting %q", args, c.line, code, errOut, out, want)
			}
		}
	}
}

// TestCompareKeepsMachinesApart: runs from different machines are never pooled silently.
func TestCompareKeepsMachinesApart(t *testing.T) {
	amd := writeBench(t, []string{"goarch: amd64", "cpu: AMD EPYC 7B13"}, "Stage/strategy=a/cmd=typed-2 10")
	intel := writeBench(t, []string{"goarch: amd64", "cpu: Intel Xeon Platinum 8375C"}, "Stage/strategy=a/cmd=typed-2 19")
	out, errOut, code := cli("compare", amd, intel)
	if code != 2 || out != "" || !strings.Contains(errOut, "differ in cpu (AMD EPYC 7B13 / Intel Xeon Platinum 8375C): kept apart, never pooled; to compare across them, add -ignore machine") {
		t.Errorf("AMD vs Intel: exit %d, stdout %q, stderr %q; want exit 2, no table, the cpu named", code, out, errOut)
	}
	out, errOut, code = cli("compare", "-ignore", "cpu", amd, intel)
	if code != 0 || !strings.Contains(out, "AMD EPYC 7B13") || !strings.Contains(out, "+87.80%") || !strings.Contains(errOut, "comparing across machines") {
		t.Errorf("-ignore cpu: exit %d, stderr %q; want the two CPUs side by side:\n%s", code, errOut, out)
	}
	// A file holding two machines' results: never pooled, each part with its like only.
	mixed := filepath.Join(t.TempDir(), "mixed.txt")
	a, _ := os.ReadFile(filepath.Join(amd, "bench.txt"))
	b, _ := os.ReadFile(filepath.Join(intel, "bench.txt"))
	os.WriteFile(mixed, append(a, b...), 0o644)
	out, errOut, code = cli("compare", mixed, intel)
	if code != 0 || !strings.Contains(errOut, "OLD mixes results that differ in cpu") || !strings.Contains(out, "[cpu=Intel Xeon Platinum 8375C]") || !strings.Contains(out, "n=6+6") {
		t.Errorf("mixed OLD: exit %d, stderr %q; want the Intel rows only, n=6+6:\n%s", code, errOut, out)
	}
}

// TestCompareSelf: comparing a file with itself, or a directory with its own bench.txt, is noted.
func TestCompareSelf(t *testing.T) {
	dir := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	for _, args := range [][]string{{dir, dir}, {dir, filepath.Join(dir, "bench.txt")}} {
		out, errOut, code := cli("compare", args[0], args[1])
		if code != 0 || !strings.Contains(errOut, "note: OLD and NEW are the same file") || !strings.Contains(out, "~") {
			t.Errorf("compare %q: exit %d, stderr %q:\n%s", args, code, errOut, out)
		}
	}
	// A file read once for both sides notes its skipped lines once.
	bench := filepath.Join(dir, "bench.txt")
	b, err := os.ReadFile(bench)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bench, append(b, "BenchmarkBad 1 x ns/op\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli("compare", dir, bench)
	if n := strings.Count(errOut, "skipped, not a well-formed"); code != 0 || n != 1 {
		t.Errorf("compare of one file with a malformed line, twice: exit %d, the skip noted %d times, want once:\n%s", code, n, errOut)
	}
}

// stagingRun is a bench.txt of typed staging for cmdbuffer: ns per command and allocs/op
// per repetition.
func stagingRun(t *testing.T, ns []float64, allocs float64) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n\n")
	for _, x := range ns {
		fmt.Fprintf(&b, "BenchmarkStage/strategy=cmdbuffer/cmd=typed-2 100000 %v ns/op %v B/op %v allocs/op\n", x, allocs*72, allocs)
	}
	return writeFile(t, "bench.txt", b.String())
}

// TestCompareGate: exit 1 only when a metric is worse beyond its threshold and significant.
func TestCompareGate(t *testing.T) {
	base := stagingRun(t, []float64{31.5, 31.8, 31.6, 31.9, 31.4, 31.7}, 0)
	slower := stagingRun(t, []float64{413, 420, 415, 418, 411, 419}, 4)
	slightly := stagingRun(t, []float64{32.1, 32.4, 32.2, 32.5, 32.0, 32.3}, 0)
	amortised := stagingRun(t, []float64{31.6, 31.7, 31.5, 31.9, 31.4, 31.8}, 1.4e-6)
	oneAlloc := stagingRun(t, []float64{31.6}, 1)
	oneRep := stagingRun(t, []float64{31.9}, 0)
	const gate = "sec/op>5%,allocs/op>0,B/op>0"
	for _, c := range []struct {
		name     string
		old, new string
		code     int
		want     string
	}{
		{"lazyguarded's staging in cmdbuffer", base, slower, 1, "new: 4 allocs/op"},
		{"+2% is within 5%", base, slightly, 0, "gate -fail " + gate + ": pass"},
		{"amortised allocations do not trip allocs/op>0", base, amortised, 0, ": pass"},
		{"0 → 1 alloc at n=1", base, oneAlloc, 1, "new: 1 allocs/op"},
		{"faster is fine", slower, base, 0, ": pass"},
		// One repetition cannot judge time: not a pass, and exit 3, not 0.
		{"a metric without a verdict makes the gate inconclusive", base, oneRep, 3, ": INCONCLUSIVE: 1 of 3 metrics could not be judged"},
		{"a failure beside an unjudged metric still fails", oneRep, oneAlloc, 1, "1 more could not be judged"},
	} {
		out, errOut, code := cli("compare", "-fail", gate, c.old, c.new)
		if code != c.code || !strings.Contains(out, c.want) || strings.Contains(out, "NaN") {
			t.Errorf("%s: exit %d (want %d), stderr %q; want %q in:\n%s", c.name, code, c.code, errOut, c.want, out)
		}
		if c.code == 1 && !strings.Contains(errOut, "gate failed") {
			t.Errorf("%s: stderr %q lacks the gate failure", c.name, errOut)
		}
		if c.code == 3 && !strings.Contains(errOut, "gate inconclusive") {
			t.Errorf("%s: stderr %q lacks the inconclusive gate", c.name, errOut)
		}
	}
	if _, errOut, code := cli("compare", base, slower); code != 0 {
		t.Errorf("without -fail: exit %d (%s), want 0", code, errOut)
	}
	for _, bad := range []string{"sec/op", "sec/op>x", "sec/op>5%,,"} {
		if _, errOut, code := cli("compare", "-fail", bad, base, slower); code != 2 || !strings.HasPrefix(errOut, "deferbench: compare: -fail: ") {
			t.Errorf("-fail %q: exit %d, stderr %q; want exit 2", bad, code, errOut)
		}
	}
	if _, errOut, code := cli("compare", "-format", "html", base, slower); code != 2 || !strings.Contains(errOut, "want one of text, markdown, csv, json") {
		t.Errorf("-format html: exit %d, stderr %q", code, errOut)
	}
}

// TestCompareJSON decodes compare -format json: every row with medians, CIs, change, p,
// verdict and gate; a change from 0 is null, not NaN.
func TestCompareJSON(t *testing.T) {
	base := stagingRun(t, []float64{31.5, 31.8, 31.6, 31.9, 31.4, 31.7}, 0)
	slower := stagingRun(t, []float64{413, 420, 415, 418, 411, 419}, 4)
	out, errOut, code := cli("compare", "-format", "json", "-fail", "sec/op>5%,allocs/op>0", base, slower)
	if code != 1 {
		t.Fatalf("exit %d (%s), want 1", code, errOut)
	}
	var doc struct {
		Gate   string
		Failed int
		Alpha  float64
		Rows   []struct {
			Name, Unit, Verdict, Gate, Method string
			Change, P                         *float64
			Old, New                          struct {
				N      int
				Median float64
				Lo     float64 `json:"ci95_lo"`
				Hi     float64 `json:"ci95_hi"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Gate != "fail" || doc.Failed != 2 || doc.Alpha != 0.05 || len(doc.Rows) != 3 {
		t.Fatalf("gate %q failed %d alpha %v rows %d; want fail, 2 (ns/op, allocs/op), 0.05, 3:\n%s", doc.Gate, doc.Failed, doc.Alpha, len(doc.Rows), out)
	}
	for _, r := range doc.Rows {
		if r.Verdict != "worse" || r.Old.N != 6 || r.New.N != 6 || r.New.Lo > r.New.Median || r.New.Hi < r.New.Median {
			t.Errorf("row %+v", r)
		}
		switch r.Unit {
		case "ns/op":
			if r.Change == nil || *r.Change < 11 || r.P == nil || *r.P >= 0.05 || r.Gate != "fail" || r.Method != "u-test" {
				t.Errorf("ns/op row: %+v", r)
			}
		case "allocs/op":
			if r.Change != nil || r.P != nil || r.Method != "exact" || r.New.Median != 4 || r.Gate != "fail" {
				t.Errorf("allocs/op row: change %v p %v %+v; want null change and p, exact, 4, fail", r.Change, r.P, r)
			}
		}
	}
	csvOut, _, _ := cli("compare", "-format", "csv", base, slower)
	if recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll(); err != nil || len(recs) != 4 || recs[0][0] != "name" {
		t.Errorf("csv: %v, %d records:\n%s", err, len(recs), csvOut)
	}
}

// TestCompareMarkdownGolden renders compare -format markdown of two fixed runs against a
// golden file: gate result, its failures, the other worse rows, the better ones, unchanged
// rows collapsed.
func TestCompareMarkdownGolden(t *testing.T) {
	out, errOut, code := cli("compare", "-format", "markdown", "-fail", "sec/op>5%,allocs/op>0,B/op>0",
		"testdata/gate/old.txt", "testdata/gate/new.txt")
	if code != 1 {
		t.Fatalf("exit %d (%s), want 1", code, errOut)
	}
	golden := "testdata/gate/compare.md.golden"
	if *update {
		os.WriteFile(golden, []byte(out), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("markdown differs from %s (go test -run TestCompareMarkdownGolden -update to rewrite):\n%s", golden, out)
	}
	fail, worse, imp, det := strings.Index(out, "#### Gate failures"), strings.Index(out, "<details><summary>Worse, but within the gate"),
		strings.Index(out, "<details><summary>Better"), strings.Index(out, "<details><summary>No significant change")
	if !(fail >= 0 && fail < worse && worse < imp && imp < det) {
		t.Errorf("sections out of order (failures %d, other worse %d, better %d, unchanged %d)", fail, worse, imp, det)
	}
}

// TestCompareBoards runs docs/boards.md's recipes on runs shaped like an x86 VM, a Pi 4 and
// a Pi 5: without -ignore they are kept apart; with it the machines are side by side, the
// columns named by what tells them apart (goarch, or the board model for two arm64 boards).
func TestCompareBoards(t *testing.T) {
	const doc = "../../docs/boards.md"
	recipes, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	const recipe = "deferbench compare -ignore machine "
	if !strings.Contains(string(recipes), recipe+"results/<x86-run> results/<pi-run>") || !strings.Contains(string(recipes), recipe+"results/<pi4-run> results/<pi5-run>") {
		t.Fatalf("%s lacks the recipes %q", doc, recipe)
	}
	// .ci/run runs the stock benchstat recipes on the same boards: they must be the documented ones.
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	ciRecipes := regexp.MustCompile(`-col (goarch|host-model) \\\n\s*(-ignore \S+)`).FindAllStringSubmatch(string(ci), -1)
	if len(ciRecipes) != 2 {
		t.Fatalf(".ci/run: found %d benchstat board recipes, want 2 (-col goarch, -col host-model)", len(ciRecipes))
	}
	for _, m := range ciRecipes {
		if r := "benchstat -col " + m[1] + " " + m[2]; !strings.Contains(string(recipes), r) {
			t.Errorf(".ci/run runs %q, which %s does not document", r, doc)
		}
	}
	for _, c := range []struct {
		old, new   string
		oldL, newL string
	}{
		{"x86", "pi4", "amd64", "arm64"},
		{"pi4", "pi5", "Raspberry Pi 4 Model B Rev 1.5", "Raspberry Pi 5 Model B Rev 1.0"},
	} {
		o, n := "testdata/boards/"+c.old, "testdata/boards/"+c.new
		if _, errOut, code := cli("compare", o, n); code != 2 || !strings.Contains(errOut, "kept apart") {
			t.Errorf("%s vs %s without -ignore: exit %d, stderr %q; want them kept apart", c.old, c.new, code, errOut)
		}
		out, errOut, code := cli("compare", "-ignore", "machine", o, n)
		header := regexp.MustCompile(`(?m)^ns/op\s+` + regexp.QuoteMeta(c.oldL) + `\s+` + regexp.QuoteMeta(c.newL) + `\s+delta`)
		if code != 0 || !header.MatchString(out) || strings.Count(out, "Stage/strategy=cmdbuffer/cmd=typed-4 ") != 3 || strings.Contains(out, "?") {
			t.Errorf("%s vs %s: exit %d, stderr %q; want the boards side by side, every row with a verdict:\n%s", c.old, c.new, code, errOut, out)
		}
	}
}

// TestCIExpectations: .ci/expect-quick.txt names, for distinct-states = 1, exactly the
// strategies that declare a reproducible order, and the gate .ci/run applies with it fails
// when typed staging starts allocating or a reproducible strategy stops being reproducible.
func TestCIExpectations(t *testing.T) {
	const expect = "../../.ci/expect-quick.txt"
	b, err := os.ReadFile(expect)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range harness.Strategies {
		if s.Factory != nil && s.Factory(ecs.NewWorld()).Capabilities().ReproducibleOrder {
			want = append(want, s.Name)
		}
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^BenchmarkDeterminism/strategy=([^/]+)/.* 1 distinct-states$`).FindAllStringSubmatch(string(b), -1) {
		got = append(got, m[1])
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s expects distinct-states = 1 of %v; the strategies declaring a reproducible order are %v", expect, got, want)
	}

	// A quick run's shape: typed staging and Determinism at GOMAXPROCS 2, three repetitions.
	run := func(cmdbufferAllocs float64, hybridStates int) string {
		var sb strings.Builder
		sb.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n\n")
		for range 3 {
			for _, s := range []string{"baseline", "cmdbuffer", "lazyguarded", "handrolled", "hybrid", "versioned"} {
				allocs := 0.0
				switch s {
				case "lazyguarded":
					allocs = 4
				case "cmdbuffer":
					allocs = cmdbufferAllocs
				}
				fmt.Fprintf(&sb, "BenchmarkStage/strategy=%s/cmd=typed-2 500000 40 ns/op %v B/op %v allocs/op\n", s, 72*allocs, allocs)
			}
			for _, s := range []string{"cmdbuffer", "lazyguarded", "handrolled", "hybrid", "versioned"} {
				states := 6
				switch s {
				case "cmdbuffer", "versioned":
					states = 1
				case "hybrid":
					states = hybridStates
				}
				fmt.Fprintf(&sb, "BenchmarkDeterminism/strategy=%s/runs=6/frames=4-2 1 2e7 ns/op 2e6 B/op 1700 allocs/op %d distinct-states\n", s, states)
			}
		}
		return writeFile(t, "bench.txt", sb.String())
	}
	gate := []string{"compare", "-ignore", "*", "-ignore-procs", "-fail", "allocs/op>0,distinct-states>0", expect}
	full, err := os.ReadFile(run(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	fullRun := writeFile(t, "bench.txt", strings.ReplaceAll(string(full), "runs=6", "runs=9"))
	// A run whose versioned Determinism row is gone (a benchmark that stopped running, or was
	// renamed) beside the scenario's other rows, while versioned ran Stage.
	var kept []string
	for _, l := range strings.Split(string(full), "\n") {
		if !strings.HasPrefix(l, "BenchmarkDeterminism/strategy=versioned/") {
			kept = append(kept, l)
		}
	}
	lost := writeFile(t, "bench.txt", strings.Join(kept, "\n"))
	for _, c := range []struct {
		name   string
		path   string
		code   int
		failed string
	}{
		{"the contract holds", run(0, 1), 0, ""},
		{"amortised growth is not an allocation", run(2e-6, 1), 0, ""},
		{"cmdbuffer's typed staging allocates", run(1, 1), 1, "Stage/strategy=cmdbuffer/cmd=typed "},
		{"hybrid is no longer reproducible", run(0, 2), 1, "Determinism/strategy=hybrid/runs=6/frames=4 "},
		// A full run's Determinism rows are runs=9: no distinct-states row matches the
		// expectations, so the gate on it is not passed but inconclusive, and named.
		{"distinct-states matched nothing", fullRun, 3, "-fail distinct-states>0 matched no row"},
		// A gated benchmark NEW lost from a scenario it ran is not a pass.
		{"a gated row vanished", lost, 3, "missing from NEW: Determinism/strategy=versioned/runs=6/frames=4"},
	} {
		out, errOut, code := cli(append(gate, c.path)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q:\n%s", c.name, code, c.code, errOut, out)
			continue
		}
		if c.code == 3 {
			if !strings.Contains(out, "INCONCLUSIVE") || !strings.Contains(out, c.failed) || !strings.Contains(errOut, c.failed) {
				t.Errorf("%s: want INCONCLUSIVE naming %q on stdout and stderr; stderr %q:\n%s", c.name, c.failed, errOut, out)
			}
			continue
		}
		if c.failed != "" && !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(c.failed)+`.*FAIL`).MatchString(out) {
			t.Errorf("%s: no FAIL on %q:\n%s", c.name, c.failed, out)
		}
	}
}

// TestGateInconclusive: a gate that could not judge a gated row neither passes nor fails, in
// every format: exit 3, "gate": "inconclusive" in JSON with the rows counted, no gated row
// without a verdict marked "pass", and the same for paired rounds too few to test (ab -rounds 3).
func TestGateInconclusive(t *testing.T) {
	base := stagingRun(t, []float64{31.5, 31.8, 31.6, 31.9, 31.4, 31.7}, 0)
	oneRep := stagingRun(t, []float64{31.9}, 0)
	threeA := stagingRun(t, []float64{31.5, 31.8, 31.6}, 0)
	threeB := stagingRun(t, []float64{31.6, 31.7, 31.5}, 0)
	for _, c := range []struct {
		name string
		args []string
		// want: the JSON gate and how many rows it could not judge.
		inconclusive int
	}{
		{"6 samples against 1", []string{base, oneRep}, 1},
		{"3 paired rounds (ab -rounds 3 HEAD HEAD)", []string{"-paired", threeA, threeB}, 1},
	} {
		out, errOut, code := cli(append([]string{"compare", "-format", "json", "-fail", "sec/op>5%,allocs/op>0"}, c.args...)...)
		if code != 3 {
			t.Errorf("%s: exit %d, want 3 (stderr %q)", c.name, code, errOut)
		}
		var doc struct {
			Gate         string `json:"gate"`
			Failed       int    `json:"failed"`
			Inconclusive int    `json:"inconclusive"`
			Rows         []struct {
				Unit, Verdict, Gate string
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v in %s", c.name, err, out)
		}
		if doc.Gate != "inconclusive" || doc.Failed != 0 || doc.Inconclusive != c.inconclusive {
			t.Errorf("%s: gate %q, failed %d, inconclusive %d; want inconclusive, 0, %d", c.name, doc.Gate, doc.Failed, doc.Inconclusive, c.inconclusive)
		}
		for _, r := range doc.Rows {
			if r.Verdict == "unknown" && r.Gate == "pass" {
				t.Errorf("%s: %s row without a verdict carries gate pass", c.name, r.Unit)
			}
		}
		md, _, code := cli(append([]string{"compare", "-format", "markdown", "-fail", "sec/op>5%"}, c.args...)...)
		if code != 3 || !strings.Contains(md, "**Gate inconclusive:**") || strings.Contains(md, "Gate passed") {
			t.Errorf("%s: markdown exit %d:\n%s", c.name, code, md)
		}
	}
	// Every row judged: pass, exit 0, "gate": "pass" and no inconclusive row.
	out, errOut, code := cli("compare", "-format", "json", "-fail", "sec/op>5%,allocs/op>0", base, base)
	if code != 0 || !strings.Contains(out, `"gate": "pass"`) || !strings.Contains(out, `"inconclusive": 0`) {
		t.Errorf("A/A with 6 samples: exit %d (%s):\n%s", code, errOut, out)
	}
}

// perturb rewrites a bench.txt with every ns/op of one benchmark in ten 3× slower and of
// another one in ten 2× faster (chosen by a hash of the name), the rest as they are (with
// every, all 3× slower): a full-size NEW side for the reference run. The changes are large
// so that the gate judges them however noisy the checked-in run is (at 30%, a run whose
// rows spread ±30% left every change inside the Holm-adjusted threshold: no failure).
func perturb(t *testing.T, src string, every bool) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "Benchmark") {
			continue
		}
		f := strings.Fields(l)
		h := fnv.New32a()
		h.Write([]byte(f[0]))
		factor := map[uint32]float64{0: 3, 1: 0.5}[h.Sum32()%10]
		if every {
			factor = 3
		}
		if factor == 0 {
			continue
		}
		for j := 2; j+1 < len(f); j += 2 {
			if f[j+1] == "ns/op" {
				x, _ := strconv.ParseFloat(f[j], 64)
				f[j] = strconv.FormatFloat(x*factor, 'g', -1, 64)
			}
		}
		lines[i] = strings.Join(f, " ")
	}
	return writeFile(t, "bench.txt", strings.Join(lines, "\n"))
}

// TestCompareMarkdownFitsAComment: the markdown of two full runs (the reference run against
// a perturbed copy of it, 1,058 rows) stays under 60,000 characters, however many rows
// changed: the gate's failures come first, the other changes are counted, no row whose
// gate passed sits under a heading of failures, and every row is in the -full file. Before
// this the same comparison printed 1,079 lines and 117,404 bytes.
func TestCompareMarkdownFitsAComment(t *testing.T) {
	ref, _ := filepath.Glob("../../results/*-*-*/bench.txt")
	if len(ref) == 0 {
		t.Skip("no reference run under results/ (a board runs the test binaries without the repository's results): skipped")
	}
	old := ref[0]
	for _, every := range []bool{false, true} {
		checkMarkdownSize(t, old, perturb(t, old, every))
	}
}

func checkMarkdownSize(t *testing.T, old, new string) {
	full := filepath.Join(t.TempDir(), "full.md")
	out, errOut, code := cli("compare", "-format", "markdown", "-full", full, "-fail", "sec/op>5%,allocs/op>0,B/op>0", old, new)
	if code != 1 {
		t.Fatalf("exit %d (want 1: the slowed rows fail): %s", code, errOut)
	}
	if n := utf8.RuneCountInString(out); n >= render.MarkdownLimit || n > 60000 {
		t.Errorf("markdown is %d characters, want under 60,000", n)
	}
	fails := strings.Index(out, "#### Gate failures (")
	if fails < 0 || strings.Index(out, "<details>") < fails || !strings.Contains(out, "Other significant changes: ") {
		t.Errorf("want the gate's failures first, then the other changes counted:\n%.2000s", out)
	}
	// Under the failures' heading, only failing rows.
	sec := out[fails:]
	if end := strings.Index(sec, "<details>"); end > 0 {
		sec = sec[:end]
	}
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| benchmark ") && !strings.Contains(l, "| **FAIL** ") {
			t.Errorf("a row under Gate failures that does not fail: %s", l)
		}
	}
	if !strings.Contains(out, "the full tables are in "+full) {
		t.Errorf("the markdown does not say where the full tables are:\n%s", out[max(0, len(out)-600):])
	}
	all, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	csv, _, _ := cli("compare", "-format", "csv", old, new)
	rows := strings.Count(csv, "\n") - 1
	if got := strings.Count(string(all), "\n| ") - strings.Count(string(all), "#### "); got != rows {
		t.Errorf("-full holds %d rows, want all %d", got, rows)
	}
}

// TestCompareFullRefusesInputs: -full naming a file compare did not write (its own input
// bench.txt, a run's report.md) or a directory is refused with one line, the file untouched;
// an earlier -full output is replaced.
func TestCompareFullRefusesInputs(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, ns int) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("BenchmarkStage/strategy=cmdbuffer/cmd=typed-2 100 %d ns/op\n", ns)
		if err := os.WriteFile(filepath.Join(d, "bench.txt"), []byte(strings.Repeat(line, 6)), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	old, new := run("old", 20), run("new", 21)
	report := filepath.Join(dir, "report.md")
	if err := os.WriteFile(report, []byte("# my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(old, "bench.txt"), report, dir} {
		before, _ := os.ReadFile(target)
		out, errOut, code := cli("compare", "-full", target, old, new)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "deferbench: compare: -full "+target) {
			t.Errorf("-full %s: exit %d, stdout %q, stderr %q; want exit 2 and one line", target, code, out, errOut)
		}
		if after, _ := os.ReadFile(target); string(after) != string(before) {
			t.Errorf("-full %s changed it", target)
		}
	}
	full := filepath.Join(dir, "full.md")
	for range 2 { // the second run replaces the first one's file
		if _, errOut, code := cli("compare", "-full", full, old, new); code != 0 {
			t.Fatalf("-full %s: exit %d: %s", full, code, errOut)
		}
	}
}

// TestCompareGateUnfinished: a gate over a run that did not finish is inconclusive (exit 3),
// never passed, whichever way it stopped: go test output that reports a failed benchmark
// (--- FAIL, FAIL), a crash (panic:, fatal error:) or deferbench's partial marker. The crash
// line is not read as a configuration line ("panic" would keep the results of a package
// after it apart). Without -fail the comparison is written as before, with a note.
func TestCompareGateUnfinished(t *testing.T) {
	pkg := func(name, bench string, ns int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "pkg: example.com/%s\n", name)
		for i := range 6 {
			fmt.Fprintf(&b, "Benchmark%s-2 1000 %d ns/op 0 allocs/op\n", bench, ns+i)
		}
		return b.String()
	}
	const head = "goos: linux\ngoarch: amd64\n"
	base := writeFile(t, "base.txt", head+pkg("a", "X", 100)+pkg("b", "Z", 200))
	for _, c := range []struct{ name, header, tail string }{
		{"--- FAIL", "", "--- FAIL: BenchmarkY-2\n    y_test.go:9: wrong state\nFAIL\nexit status 1\nFAIL\texample.com/a\t1.2s\n"},
		{"FAIL alone", "", "FAIL\texample.com/a\t1.2s\n"},
		{"panic", "", "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:\nexit status 2\n"},
		{"fatal error", "", "fatal error: concurrent map writes\n"},
		{"partial marker", "partial: 2 of 3 results finished (interrupted)\n", ""},
	} {
		newer := writeFile(t, "new.txt", c.header+head+pkg("a", "X", 100)+c.tail+pkg("b", "Z", 200))
		out, errOut, code := cli("compare", "-fail", "sec/op>5%,allocs/op>0", base, newer)
		if code != 3 || !strings.Contains(errOut, "gate inconclusive") || !strings.Contains(errOut, "NEW") || !strings.Contains(out, "did not finish") {
			t.Errorf("%s: exit %d, want 3 naming NEW; stderr:\n%s\nstdout:\n%s", c.name, code, errOut, out)
		}
		if strings.Contains(errOut, "records it") || strings.Contains(errOut, "only in") {
			t.Errorf("%s: the results after the failure line were not matched with OLD's: %s", c.name, errOut)
		}
		if _, errOut, code := cli("compare", base, newer); code != 0 || !strings.Contains(errOut, "partial") {
			t.Errorf("%s without -fail: exit %d, stderr %q; want 0 and a note that NEW is partial", c.name, code, errOut)
		}
		if _, errOut, code := cli("compare", "-fail", "sec/op>5%", newer, base); code != 3 || !strings.Contains(errOut, "OLD") {
			t.Errorf("%s as OLD: exit %d, stderr %q; want 3 naming OLD", c.name, code, errOut)
		}
	}
	// A failure does not hide a regression: a failed gate stays failed.
	slower := writeFile(t, "slow.txt", head+strings.ReplaceAll(pkg("a", "X", 400), " 0 allocs", " 3 allocs")+"--- FAIL: BenchmarkY-2\nFAIL\n")
	if _, errOut, code := cli("compare", "-fail", "sec/op>5%,allocs/op>0", base, slower); code != 1 {
		t.Errorf("a regression in a failed run: exit %d, want 1; stderr:\n%s", code, errOut)
	}
}

// TestCompareNotesUnitsOnOneSide: a unit one side reports for the benchmarks both ran and the
// other never does (B/op from -benchmem) is named in a note, not dropped without a word.
func TestCompareNotesUnitsOnOneSide(t *testing.T) {
	var withMem, without strings.Builder
	for i := range 6 {
		fmt.Fprintf(&withMem, "BenchmarkX-2 1000 %d ns/op 16 B/op 1 allocs/op\n", 100+i)
		fmt.Fprintf(&without, "BenchmarkX-2 1000 %d ns/op\n", 100+i)
	}
	old := writeFile(t, "old.txt", "goos: linux\n"+withMem.String())
	new := writeFile(t, "new.txt", "goos: linux\n"+without.String())
	_, errOut, code := cli("compare", old, new)
	if code != 0 || !strings.Contains(errOut, "B/op, allocs/op only in "+old) {
		t.Errorf("exit %d, stderr %q; want a note naming B/op, allocs/op only in OLD", code, errOut)
	}
	if _, errOut, _ := cli("compare", old, old); strings.Contains(errOut, "only in") {
		t.Errorf("same units on both sides: %q", errOut)
	}
}

// TestGateLineWording: the gate line gives the fix for too few samples once, and a gate that
// failed on exact comparisons of counts alone prints no empty parentheses; the markdown
// header names the exact comparison, not a test, as its method.
func TestGateLineWording(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var s1 strings.Builder
	s1.WriteString("BenchmarkFoo-2 1000 100 ns/op\n")
	for _, v := range []int{100, 101, 99, 102, 98, 100} {
		fmt.Fprintf(&s1, "BenchmarkBar-2 1000 %d ns/op\n", v)
	}
	p := write("s1.txt", s1.String())
	out, _, code := cli("compare", "-fail", "sec/op>5%", p, p)
	gateLine := out[strings.LastIndex(out, "gate -fail"):]
	if code != 3 || strings.Count(gateLine, "raise -count") != 1 {
		t.Errorf("self-compare with a 1-sample row: exit %d, fix given %d times in the gate line; want exit 3, once:\n%s", code, strings.Count(gateLine, "raise -count"), out)
	}
	bytesOf := func(n int) string {
		var b strings.Builder
		for range 6 {
			fmt.Fprintf(&b, "BenchmarkFoo-2 1000 100 ns/op %d B/op 0 allocs/op\n", n)
		}
		return b.String()
	}
	b0, b2 := write("b0.txt", bytesOf(0)), write("b2.txt", bytesOf(2))
	out, _, code = cli("compare", "-fail", "B/op>0", b0, b2)
	if code != 1 || strings.Contains(out, "()") || !strings.Contains(out, "FAIL: 1 of 1 metric worse") {
		t.Errorf("0 -> 2 B/op: exit %d; want 1 and a gate line without empty parentheses:\n%s", code, out)
	}
	out, _, _ = cli("compare", "-format", "markdown", "-fail", "B/op>0", b0, b2)
	if !strings.Contains(out, "(counts compared exactly, alpha 0.05)") {
		t.Errorf("markdown header of a gate failed on counts alone names no exact comparison:\n%s", out)
	}
}
