package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// TestRunNoValgrind: counting without valgrind is one line naming the package to install,
// exit status 2, and no results directory.
func TestRunNoValgrind(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	cmd := deferbenchCmd("run", "-measure", "time,instructions", "-quick", "-scenarios", "Stage", "-out", out)
	cmd.Env = append(cmd.Env, "PATH="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot run the test binary as a child process: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "apt-get install valgrind") {
		t.Errorf("status %d, stderr %q; want 2 and one line naming valgrind's package", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was created", out)
	}
}

// writeCounts writes a bench.txt of instr/op rows: per name, its samples.
func writeCountsFile(t *testing.T, rows map[string][]float64) string {
	t.Helper()
	var b strings.Builder
	for name, xs := range rows {
		for _, x := range xs {
			fmt.Fprintf(&b, "Benchmark%s 1000 %g instr/op\n", name, x)
		}
	}
	p := filepath.Join(t.TempDir(), "bench.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompareCountGate: -fail 'instr/op>1%' passes an unchanged run and a change within the
// measured spread, fails +2 % (exit 1, the row named), is inconclusive (exit 3) where a side
// were counted once, and refuses a count threshold when neither run has the unit (exit 2).
func TestCompareCountGate(t *testing.T) {
	const a, b = "Stage/strategy=cmdbuffer/cmd=typed", "Stage/strategy=baseline/cmd=typed"
	old := writeCountsFile(t, map[string][]float64{a: {89.50, 89.52, 89.48}, b: {64.00, 64.01, 63.99}})
	cases := []struct {
		name string
		new  map[string][]float64
		code int
		want string
	}{
		{"unchanged", map[string][]float64{a: {89.51, 89.49, 89.50}, b: {64.00, 64.02, 64.00}}, 0, "2 pass (0 better), 0 fail"},
		{"+0.5%", map[string][]float64{a: {89.95, 89.94, 89.96}, b: {64.00, 64.01, 63.99}}, 0, "2 pass (0 better), 0 fail"},
		{"+2%", map[string][]float64{a: {91.29, 91.30, 91.28}, b: {64.00, 64.01, 63.99}}, 1, "FAIL " + a + " instr/op 89.5 → 91.3"},
		{"-2%", map[string][]float64{a: {87.71, 87.70, 87.72}, b: {64.00, 64.01, 63.99}}, 0, "better " + a},
		// Counted once against a side whose spread was measured (CI against the committed
		// expectation): judged against that spread.
		{"new counted once", map[string][]float64{a: {89.51}, b: {64.00}}, 0, "2 pass (0 better), 0 fail"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		err := runContext(context.Background(), []string{"compare", "-fail", "instr/op>1%", old, writeCountsFile(t, c.new)}, io.Discard, &stderr)
		if code := exitCode(err, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: status %d, stderr %q; want %d and %q", c.name, code, stderr.String(), c.code, c.want)
		}
	}
	// Counted once on each side (-repeats 1 on both): no spread was measured, so the gate cannot judge
	// against it and says so, exit 3; it read "2 pass", exit 0.
	once := map[string][]float64{a: {89.50}, b: {64.00}}
	var onceErr bytes.Buffer
	err := runContext(context.Background(), []string{"compare", "-fail", "instr/op>1%", writeCountsFile(t, once), writeCountsFile(t, once)}, io.Discard, &onceErr)
	if code := exitCode(err, &onceErr); code != 3 || !strings.Contains(onceErr.String(), "inconclusive: 2 of 2 rows counted once on both sides") ||
		!strings.Contains(onceErr.String(), "raise -repeats") || strings.Contains(onceErr.String(), "2 pass") {
		t.Errorf("counted once: status %d, stderr %q; want 3, inconclusive, raise -repeats, and no pass count", code, onceErr.String())
	}
	timed := filepath.Join(t.TempDir(), "timed.txt")
	os.WriteFile(timed, []byte("BenchmarkX 10 5 ns/op\n"), 0o644)
	var stderr bytes.Buffer
	err = runContext(context.Background(), []string{"compare", "-fail", "instr/op>1%", timed, timed}, io.Discard, &stderr)
	if code := exitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), "-measure instructions") {
		t.Errorf("no counts: status %d, stderr %q; want 2 and how to count", code, stderr.String())
	}
}

// TestRunCountMode counts Stage under cachegrind beside its timed run at GOMAXPROCS=1: ns/op
// and instr/op under the same names in bench.txt, the spread over 2 repetitions in
// summary.json, a Counts section in report.md, and Contention listed in env.json as not
// counted, with the reason.
func TestRunCountMode(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("counting under valgrind takes a minute and does not run with -race")
	}
	if _, err := counts.LookValgrind(""); err != nil {
		t.Skip(err)
	}
	out := filepath.Join(t.TempDir(), "r")
	cmd := deferbenchCmd("run", "-measure", "time,instructions", "-repeats", "2", "-quick", "-count", "1", "-benchtime", "1x", "-procs", "1",
		"-scenarios", "Stage,Contention", "-strategies", "baseline,cmdbuffer", "-out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	units := map[string]map[string]bool{}
	for _, r := range readBench(t, filepath.Join(out, "bench.txt")) {
		if !strings.HasPrefix(string(r.Name), "Stage/") {
			continue
		}
		if units[string(r.Name)] == nil {
			units[string(r.Name)] = map[string]bool{}
		}
		for _, v := range r.Values {
			units[string(r.Name)][v.Unit] = true
		}
	}
	if len(units) == 0 {
		t.Fatal("no Stage rows in bench.txt")
	}
	for name, us := range units {
		if !us["sec/op"] || !us[counts.InstrUnit] {
			t.Errorf("%s: units %v, want sec/op (ns/op) and instr/op", name, us)
		}
	}
	var sum results.SummaryFile
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if len(sum.Counts) != len(units) {
		t.Errorf("summary.json: %d count rows, want %d", len(sum.Counts), len(units))
	}
	// The spread bound is a sanity check that the counts are counts (two children of one
	// row agree to a percent), not the tier's 0.3 % goal: an allocating row's spread reached
	// 0.45 % in one CI run, and the goal is measured (scripts/expect-counts.sh) and reported,
	// not asserted in a test.
	for _, c := range sum.Counts {
		if len(c.Samples) != 2 || c.Median <= 0 || c.Spread > 0.01 {
			t.Errorf("summary.json: %+v: want 2 samples, a median > 0 and a spread ≤ 1%%", c)
		}
	}
	var env results.Env
	readJSON(t, filepath.Join(out, "env.json"), &env)
	if env.Counts == nil || env.Counts.Hardware == "" || env.Counts.Counted != len(units) || env.Options.Measure != "time,instructions" {
		t.Fatalf("env.json counts %+v, options %+v", env.Counts, env.Options)
	}
	if len(env.Counts.Uncounted) == 0 || !strings.HasPrefix(env.Counts.Uncounted[0].Name, "Contention/") || env.Counts.Uncounted[0].Reason == "" {
		t.Errorf("env.json uncounted: %+v, want Contention with the reason", env.Counts.Uncounted)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !bytes.Contains(md, []byte("## Counts (counted, not timed)")) || !bytes.Contains(md, []byte("- Contention (")) {
		t.Errorf("report.md has no counts section listing Contention as not counted:\n%s", md)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
