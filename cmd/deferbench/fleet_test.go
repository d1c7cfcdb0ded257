package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// fleetRun writes a results directory named name under parent: bench.txt with the config
// lines and each "Name value unit" line once, and env.json with the cores and temperatures.
func fleetRun(t *testing.T, parent, name string, cores int, tempBefore, tempAfter string, config []string, lines ...string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range config {
		fmt.Fprintln(&b, c)
	}
	b.WriteString("\n")
	for _, l := range lines {
		f := strings.Fields(l)
		if f[2] == "efficiency" {
			fmt.Fprintf(&b, "Benchmark%s 100 1000 ns/op %s efficiency\n", f[0], f[1])
		} else {
			fmt.Fprintf(&b, "Benchmark%s 100 %s %s\n", f[0], f[1], f[2])
		}
	}
	env := fmt.Sprintf(`{"deferbench":"test","started":"2026-01-02T03:04:05Z",
		"before":{"hostname":%q,"cores":%d,"temperature":%q},
		"after":{"hostname":%q,"cores":%d,"temperature":%q}}`, name, cores, tempBefore, name, cores, tempAfter)
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "env.json"), []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// row returns the table row whose first cell is head, after the line starting with after
// ("" for the first such row), or "" when there is none.
func row(table, after, head string) string {
	lines := strings.Split(table, "\n")
	on := after == ""
	for _, l := range lines {
		if !on && strings.HasPrefix(l, after) {
			on = true
			continue
		}
		if on && strings.HasPrefix(l, "| "+head+" |") {
			return l
		}
	}
	return ""
}

// TestFleetTable checks that each board's column holds its own figures, taken at
// GOMAXPROCS = cores and producers = cores, with "—" for a benchmark the run lacks.
func TestFleetTable(t *testing.T) {
	parent := t.TempDir()
	pi5 := fleetRun(t, parent, "20260102-030405-pi5-arm64", 4, "48.1 C", "61.0 C",
		[]string{"goos: linux", "goarch: arm64", "host-model: Raspberry Pi 5 Model B Rev 1.0", "throttled: no", "under-voltage: no", "emulated: no"},
		// -procs 1,4: the figures must come from the -4 variants.
		"Stage/strategy=cmdbuffer/cmd=typed 99 ns/op",
		"Stage/strategy=cmdbuffer/cmd=typed-4 20 ns/op",
		"Stage/strategy=hybrid/cmd=typed-4 25 ns/op",
		"Frame/strategy=cmdbuffer/entities=1000-4 30000 ns/op",
		"Frame/strategy=cmdbuffer/entities=100000-4 2500000 ns/op",
		"Frame/strategy=cmdbuffer/entities=100000 9900000 ns/op",
		"Contention/strategy=cmdbuffer/producers=2-4 0.5 efficiency",
		"Contention/strategy=cmdbuffer/producers=4-4 0.8 efficiency",
		"Contention/strategy=cmdbuffer/producers=4 0.1 efficiency",
	)
	pi4 := fleetRun(t, parent, "20260102-030406-pi4-arm64", 4, "unknown", "83.2 C",
		[]string{"goos: linux", "goarch: arm64", "host-model: Raspberry Pi 4 Model B Rev 1.4", "throttled: yes", "under-voltage: no",
			"partial: 3 of 10 benchmarks finished (interrupted)"},
		// A -quick run: Frame only at 1000 entities; no hybrid.
		"Stage/strategy=cmdbuffer/cmd=typed-4 45 ns/op",
		"Frame/strategy=cmdbuffer/entities=1000-4 70000 ns/op",
		"Contention/strategy=cmdbuffer/producers=4-4 0.6 efficiency",
	)
	emu := fleetRun(t, parent, "20260102-030407-vm-arm64-emulated", 2, "unknown", "unknown",
		[]string{"goos: linux", "goarch: arm64"},
		"Stage/strategy=cmdbuffer/cmd=typed-2 700 ns/op",
		"Contention/strategy=cmdbuffer/producers=2-2 1.5 efficiency",
	)
	stdout, stderr, code := cli("fleet", pi5, pi4, emu)
	if code != 0 {
		t.Fatalf("fleet: exit %d, stderr %q", code, stderr)
	}
	ns := func(v float64) string { return results.FormatValue(v, "ns/op") }
	eff := func(v float64) string { return results.FormatValue(v, "efficiency") }
	want := []struct{ after, head, cells string }{
		{"", "", "20260102-030405-pi5-arm64 | 20260102-030406-pi4-arm64 | 20260102-030407-vm-arm64-emulated"},
		{"", "model", "Raspberry Pi 5 Model B Rev 1.0 | Raspberry Pi 4 Model B Rev 1.4 | unknown"},
		{"", "cores (GOMAXPROCS of the figures)", "4 (4) | 4 (4) | 2 (2)"},
		{"", "emulated", "no | not recorded | yes"},
		{"", "complete", "yes | no (3 of 10 benchmarks finished (interrupted)) | yes"},
		{"", "throttled", "no | yes | unknown"},
		{"", "temperature before → after", "48.1 C → 61.0 C | unknown → 83.2 C | unknown → unknown"},
		{"| **Stage", "cmdbuffer", ns(20) + " | " + ns(45) + " | " + ns(700)},
		{"| **Stage", "hybrid", ns(25) + " | — | —"},
		{"| **Frame", "cmdbuffer", ns(2500000) + " | — | —"},
		{"| **Contention", "cmdbuffer", eff(0.8) + " | " + eff(0.6) + " | " + eff(1.5)},
	}
	for _, w := range want {
		got := row(stdout, w.after, w.head)
		if wantRow := "| " + w.head + " | " + w.cells + " |"; got != wantRow {
			t.Errorf("row %q after %q:\ngot  %s\nwant %s", w.head, w.after, got, wantRow)
		}
	}
	if t.Failed() {
		t.Logf("table:\n%s", stdout)
	}
}

// TestFleetOut checks -out: the table lands in the file, whole, with nothing else left in
// its folder, and nothing on stdout.
func TestFleetOut(t *testing.T) {
	parent := t.TempDir()
	a := fleetRun(t, parent, "a", 4, "40 C", "50 C", []string{"goarch: arm64"}, "Stage/strategy=cmdbuffer/cmd=typed-4 20 ns/op")
	outDir := t.TempDir()
	out := filepath.Join(outDir, "fleet.md")
	stdout, stderr, code := cli("fleet", "-out", out, a)
	if code != 0 || stdout != "" {
		t.Fatalf("fleet -out: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "# deferbench fleet\n") || !strings.Contains(string(b), "| cmdbuffer | "+results.FormatValue(20, "ns/op")+" |") {
		t.Errorf("fleet.md:\n%s", b)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Errorf("-out folder holds %d entries, want only fleet.md", len(entries))
	}
	// -out naming a directory is bad input: one line, exit 2, the directory left as it was.
	if stdout, stderr, code := cli("fleet", "-out", outDir, a); code != 2 || stdout != "" ||
		stderr != "deferbench: fleet: -out "+outDir+" is a directory: give a file name, e.g. "+out+"\n" {
		t.Errorf("fleet -out DIR: exit %d, stdout %q, stderr %q; want exit 2 and one line", code, stdout, stderr)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Errorf("after fleet -out DIR the folder holds %d entries, want only fleet.md", len(entries))
	}
	// -out naming a file deferbench fleet did not write (a run's bench.txt) is refused, the
	// file untouched; its own earlier table is replaced.
	bench := filepath.Join(a, "bench.txt")
	before, _ := os.ReadFile(bench)
	if stdout, stderr, code := cli("fleet", "-out", bench, a); code != 2 || stdout != "" ||
		!strings.Contains(stderr, "exists and was not written by this command") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("fleet -out DIR/bench.txt: exit %d, stdout %q, stderr %q; want exit 2 and one line", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(bench); string(after) != string(before) {
		t.Errorf("fleet -out overwrote the run's bench.txt")
	}
	if _, stderr, code := cli("fleet", "-out", out, a); code != 0 {
		t.Errorf("fleet -out over its own earlier table: exit %d, stderr %q", code, stderr)
	}
	// Flags after the directories work too.
	out2 := filepath.Join(outDir, "again.md")
	if _, stderr, code := cli("fleet", a, "-out", out2); code != 0 {
		t.Fatalf("fleet DIR -out: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out2); err != nil {
		t.Error(err)
	}
}

// TestFleetBadInputs: each bad input is one line naming it, exit status 2, no file written.
func TestFleetBadInputs(t *testing.T) {
	parent := t.TempDir()
	good := fleetRun(t, parent, "good", 4, "", "", []string{"goarch: arm64"}, "Stage/strategy=cmdbuffer/cmd=typed-4 20 ns/op")
	noEnv := fleetRun(t, parent, "noenv", 4, "", "", nil, "Stage/strategy=cmdbuffer/cmd=typed-4 20 ns/op")
	os.Remove(filepath.Join(noEnv, "env.json"))
	badEnv := fleetRun(t, parent, "badenv", 4, "", "", nil, "Stage/strategy=cmdbuffer/cmd=typed-4 20 ns/op")
	os.WriteFile(filepath.Join(badEnv, "env.json"), []byte("{"), 0o644)
	nullEnv := fleetRun(t, parent, "nullenv", 4, "", "", nil, "Stage/strategy=cmdbuffer/cmd=typed-4 20 ns/op")
	os.WriteFile(filepath.Join(nullEnv, "env.json"), []byte("null"), 0o644)
	empty := filepath.Join(parent, "empty")
	os.Mkdir(empty, 0o755)
	notBench := fleetRun(t, parent, "notbench", 4, "", "", nil)
	os.WriteFile(filepath.Join(notBench, "bench.txt"), []byte("hello\n"), 0o644)
	missingOut := filepath.Join(parent, "nope", "fleet.md")
	link := filepath.Join(parent, "link")
	os.Symlink(good, link)
	twoMachines := fleetRun(t, parent, "two", 4, "", "", []string{"goarch: arm64"}, "Stage/strategy=cmdbuffer/cmd=typed-4 20 ns/op")
	f, _ := os.OpenFile(filepath.Join(twoMachines, "bench.txt"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("goarch: amd64\nBenchmarkStage/strategy=cmdbuffer/cmd=typed-4 100 9 ns/op\n")
	f.Close()
	var lines []string
	for i := range 8 {
		lines = append(lines, fmt.Sprintf("Stage/strategy=cmdbuffer/cmd=typed-4 %d ns/op", 20+i))
	}
	joined := fleetRun(t, parent, "joined", 4, "", "", []string{"goarch: arm64"}, append(lines, lines...)...)
	cases := []struct {
		args []string
		want string
	}{
		{nil, "want one or more results directories"},
		{[]string{filepath.Join(parent, "missing")}, "missing is not a results directory"},
		{[]string{filepath.Join(good, "bench.txt")}, "bench.txt is not a results directory"},
		{[]string{good, empty}, "empty has no bench.txt"},
		{[]string{noEnv}, "noenv has no env.json"},
		{[]string{badEnv}, "badenv/env.json is not deferbench's env.json"},
		{[]string{nullEnv}, "nullenv/env.json is not deferbench's env.json"},
		{[]string{notBench}, "notbench/bench.txt holds no Go benchmark results"},
		{[]string{"-out", missingOut, good}, "does not exist"},
		{[]string{"-out", "", good}, "-out is empty"},
		{[]string{"-frobnicate", good}, "unknown flag -frobnicate"},
		// One board twice, or one file holding two runs, would stand as two boards or
		// count each sample twice (report refuses the latter too).
		{[]string{good, good}, "are the same results directory"},
		{[]string{good, link}, "are the same results directory"},
		{[]string{twoMachines}, "holds results of more than one machine"},
		{[]string{joined}, "repeat those from line"},
	}
	if runtime.GOOS == "linux" {
		// A folder no one can create a file in, root included: exit 2 with the fix, as
		// compare -full says it (exit 1 with the bare error before).
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"-out", "/proc/fleet.md", good}, "give a writable path"})
	}
	for _, c := range cases {
		stdout, stderr, code := cli(append([]string{"fleet"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("fleet %q: exit %d, stdout %q, stderr %q; want status 2 and one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Dir(missingOut)); err == nil {
		t.Errorf("fleet created %s", filepath.Dir(missingOut))
	}
}

// TestFleetPutsModelBesideCounter: a count run with Pi models (isa: pi4, pi5 rows) and a Pi 4
// board's run with the PMU's counter give one instructions table: a column per model and one
// for the counter, whose cell says the Pi 4 model's ratio to it (the board is arm64 without
// LSE atomics: the Pi 4 model, not the Pi 5's).
func TestFleetPutsModelBesideCounter(t *testing.T) {
	parent := t.TempDir()
	const name = "Stage/strategy=lazyguarded/cmd=typed"
	model := filepath.Join(parent, "model")
	os.MkdirAll(model, 0o755)
	bench := "goarch: amd64\nemulated: no\n\nBenchmark" + name + " 100 1593 instr/op\n\n" +
		"goarch: arm64\nisa: pi4\nlse-atomics: no\n\nBenchmark" + name + " 100 1556 instr/op\n\n" +
		"isa: pi5\nlse-atomics: yes\n\nBenchmark" + name + " 100 1552 instr/op\n"
	os.WriteFile(filepath.Join(model, "bench.txt"), []byte(bench), 0o644)
	os.WriteFile(filepath.Join(model, "env.json"), []byte(`{"before":{"hostname":"vm","cores":2}}`), 0o644)
	board := fleetRun(t, parent, "pi4-board", 4, "40 C", "50 C", []string{"goarch: arm64", "lse-atomics: no"},
		name+" 1580 hw-instr/op", name+" 12 ns/op")
	stdout, stderr, code := cli("fleet", model, board)
	if code != 0 {
		t.Fatalf("fleet: exit %d, stderr %q", code, stderr)
	}
	head := row(stdout, "## Instructions per op", "row")
	for _, col := range []string{"model: instr/op (cachegrind)", "model: Pi 4 model", "model: Pi 5 model", "pi4-board: hw-instr/op"} {
		if !strings.Contains(head, col) {
			t.Errorf("instructions table heading %q lacks %q:\n%s", head, col, stdout)
		}
	}
	if got, want := row(stdout, "## Instructions per op", name), "| "+name+" | 1593 | 1556 | 1552 | 1580 (model 0.985×) |"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	if got := row(stdout, "", "goarch"); !strings.Contains(got, "| amd64 |") {
		t.Errorf("the model run's goarch row is %q: want the machine it ran on (amd64), not a model's", got)
	}
}

// TestCompareLinesUpModelWithBoard: compare puts a Pi model's count beside a board's PMU
// counter for the same rows, whichever side each is on, choosing the model of the board that
// ran (a Pi 5: arm64 with LSE atomics, so the pi5 rows, not pi4's); a row the board ran only
// at another GOMAXPROCS is not lined up; a -fail gate has nothing to judge (exit 3), and a
// format without the table is refused (exit 2).
func TestCompareLinesUpModelWithBoard(t *testing.T) {
	parent := t.TempDir()
	const typed, closure = "Stage/strategy=lazyguarded/cmd=typed", "Stage/strategy=cmdbuffer/cmd=closure"
	model := filepath.Join(parent, "model")
	os.MkdirAll(model, 0o755)
	bench := "goarch: arm64\nisa: pi4\nlse-atomics: no\n\nBenchmark" + typed + " 100 1558 instr/op\nBenchmark" + closure + " 100 240 instr/op\n\n" +
		"isa: pi5\nlse-atomics: yes\n\nBenchmark" + typed + " 100 1552 instr/op\nBenchmark" + closure + " 100 238 instr/op\n"
	os.WriteFile(filepath.Join(model, "bench.txt"), []byte(bench), 0o644)
	os.WriteFile(filepath.Join(model, "env.json"), []byte(`{"before":{"hostname":"vm","cores":2}}`), 0o644)
	board := fleetRun(t, parent, "pi5-board", 4, "40 C", "50 C", []string{"goarch: arm64", "lse-atomics: yes"},
		typed+" 1600 hw-instr/op", typed+" 12 ns/op", closure+"-4 250 hw-instr/op")
	for _, args := range [][]string{{model, board}, {board, model}} {
		stdout, stderr, code := cli(append([]string{"compare"}, args...)...)
		if code != 0 {
			t.Fatalf("compare %v: exit %d, stderr %q", args, code, stderr)
		}
		if !strings.Contains(stdout, "Pi 5 model ("+model) || !strings.Contains(stdout, "board's PMU counter ("+board+"), 1 row") {
			t.Errorf("compare %v does not name the Pi 5 model and the board with one row:\n%s", args, stdout)
		}
		if !regexp.MustCompile(`(?m)^ *` + regexp.QuoteMeta(typed) + ` +1552 +1600 +0\.970×`).MatchString(stdout) {
			t.Errorf("compare %v: no row %s with 1552, 1600, 0.970×:\n%s", args, typed, stdout)
		}
		if strings.Contains(stdout, closure) {
			t.Errorf("compare %v lines up %s, which the board ran only at GOMAXPROCS 4:\n%s", args, closure, stdout)
		}
	}
	stdout, _, code := cli("compare", "-format", "markdown", model, board)
	if want := "| " + typed + " | 1552 | 1600 | 0.970× |"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("compare -format markdown: exit %d, want a row %q:\n%s", code, want, stdout)
	}
	if _, stderr, code := cli("compare", "-fail", "instr/op>1%", model, board); code != 3 || !strings.Contains(stderr, "judged") {
		t.Errorf("compare -fail on a model and a board: exit %d, stderr %q; want 3, saying the gate judged nothing", code, stderr)
	}
	if _, stderr, code := cli("compare", "-format", "csv", model, board); code != 2 || !strings.Contains(stderr, "-format text or markdown") {
		t.Errorf("compare -format csv on a model and a board: exit %d, stderr %q; want 2 naming the formats that line them up", code, stderr)
	}
}
