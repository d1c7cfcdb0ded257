package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/harness"
	"github.com/google/pprof/profile"
	"golang.org/x/perf/benchfmt"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestUsageErrors runs the CLI with bad input: each must fail with status 2 and one line
// naming the bad input and the valid values (testdata/usage-errors.golden), and run nothing.
func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{},
		{"frobnicate"},
		{"run", "-frobnicate"},
		{"run", "-count", "0"},
		{"run", "-count", "x"},
		{"run", "-benchtime", "soon"},
		{"run", "-scenarios", "Stage,Nope"},
		{"run", "-strategies", "nope"},
		{"run", "-procs", "0"},
		{"run", "extra"},
		{"list", "-v"},
		{"env", "extra"},
		{"help", "nope"},
		{"compare", "a"},
		{"compare", "-alpha", "2", "a", "b"},
		{"plot"},
		{"plot", "/nonexistent-dir"},
	}
	var got bytes.Buffer
	for _, args := range cases {
		var stdout, stderr bytes.Buffer
		out := filepath.Join(t.TempDir(), "r")
		err := runContext(context.Background(), append(args, withOut(args, out)...), &stdout, &stderr)
		var line bytes.Buffer
		code := exitCode(err, &line)
		if code != 2 {
			t.Errorf("deferbench %q: exit status %d, want 2 (err %v)", args, code, err)
		}
		if n := strings.Count(line.String(), "\n"); n != 1 {
			t.Errorf("deferbench %q: error is %d lines, want 1: %q", args, n, line.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("deferbench %q: created %s", args, out)
		}
		// The tables grow as strategies and scenarios are added; the golden file names them
		// by placeholder.
		msg := strings.ReplaceAll(line.String(), strings.Join(harness.StrategyNames(), ", "), "<strategies>")
		msg = strings.ReplaceAll(msg, strings.Join(harness.ScenarioNames(), ", "), "<scenarios>")
		fmt.Fprintf(&got, "deferbench %s\n%s", strings.Join(args, " "), msg)
	}
	golden := filepath.Join("testdata", "usage-errors.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("usage errors differ from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", golden, got.String(), want)
	}
}

// withOut adds -out to run commands whose flags parse, so a mistaken run lands in a temp dir.
func withOut(args []string, out string) []string {
	if len(args) > 0 && args[0] == "run" && !strings.HasPrefix(strings.Join(args, " "), "run extra") {
		return []string{"-out", out}
	}
	return nil
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"help", "run"}, {"run", "-h"}, {"list", "-help"}} {
		var stdout, stderr bytes.Buffer
		if err := runContext(context.Background(), args, &stdout, &stderr); err != nil {
			t.Errorf("deferbench %q: %v", args, err)
		}
		if !strings.HasPrefix(stdout.String(), "usage: deferbench") {
			t.Errorf("deferbench %q printed %q, want usage", args, stdout.String())
		}
	}
}

func TestList(t *testing.T) {
	var stdout bytes.Buffer
	if err := runContext(context.Background(), []string{"list"}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scenarios:", "Stage ", "StageApply ", "Frame ", "strategies:", "baseline ", "cmdbuffer "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("list output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestEnv(t *testing.T) {
	var stdout bytes.Buffer
	if err := runContext(context.Background(), []string{"env"}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		t.Fatalf("env output is not JSON: %v\n%s", err, stdout.String())
	}
	if m["goarch"] == nil || m["go_version"] == nil {
		t.Errorf("env output lacks goarch or go_version: %s", stdout.String())
	}
}

// TestUnwritableOut checks that an -out that cannot be created fails before any benchmark
// runs.
func TestUnwritableOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := runContext(context.Background(), []string{"run", "-quick", "-out", filepath.Join(file, "r")}, io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "output directory") {
		t.Fatalf("run with -out under a file: err %v, want an output directory error", err)
	}
	if exitCode(err, io.Discard) != 1 {
		t.Errorf("exit status %d, want 1", exitCode(err, io.Discard))
	}
	if strings.Contains(stderr.String(), "[1/") {
		t.Errorf("a benchmark ran before the output check failed:\n%s", stderr.String())
	}
}

// readBench parses a bench.txt with benchfmt.Reader.
func readBench(t *testing.T, path string) []*benchfmt.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rs []*benchfmt.Result
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result(); rec := rec.(type) {
		case *benchfmt.Result:
			rs = append(rs, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("%s: %v", path, rec)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestTinyRun runs a real, tiny suite into a temp dir and reads bench.txt back with
// benchfmt.Reader: the expected names, units and file-level config, nothing partial.
func TestTinyRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	var stderr bytes.Buffer
	args := []string{"run", "-scenarios", "Stage,Frame", "-strategies", "baseline,cmdbuffer", "-quick", "-count", "2", "-benchtime", "20x", "-out", out}
	if err := runContext(context.Background(), args, io.Discard, &stderr); err != nil {
		t.Fatalf("deferbench %q: %v\n%s", args, err, stderr.String())
	}
	rs := readBench(t, filepath.Join(out, "bench.txt"))
	count := map[string]int{}
	for _, r := range rs {
		count[string(r.Name.Full())]++
		for _, unit := range []string{"sec/op", "B/op", "allocs/op"} {
			if _, ok := r.Value(unit); !ok {
				t.Errorf("%s lacks %s", r.Name, unit)
			}
		}
		for _, key := range []string{"goos", "goarch", "go", "deferbench", "kernel"} {
			if r.GetConfig(key) == "" {
				t.Errorf("%s lacks config %q", r.Name, key)
			}
		}
		if p := r.GetConfig("partial"); p != "" {
			t.Errorf("%s marked partial %q after a complete run", r.Name, p)
		}
	}
	suffix := ""
	if p := gomaxprocs(); p != 1 {
		suffix = fmt.Sprintf("-%d", p)
	}
	for _, name := range []string{
		"Stage/strategy=baseline/cmd=typed", "Stage/strategy=cmdbuffer/cmd=typed",
		"Stage/strategy=baseline/cmd=closure", "Stage/strategy=cmdbuffer/cmd=closure",
		"Stage/strategy=baseline/cmd=closure-large", "Stage/strategy=cmdbuffer/cmd=closure-large",
		"Frame/strategy=cmdbuffer/entities=1000",
	} {
		if count[name+suffix] != 2 {
			t.Errorf("bench.txt has %d results for %s, want 2 (have %v)", count[name+suffix], name+suffix, count)
		}
	}
	if len(count) != 7 {
		t.Errorf("bench.txt has %d distinct benchmarks, want 7: %v", len(count), count)
	}
	var env struct {
		Partial string          `json:"partial"`
		Before  json.RawMessage `json:"before"`
		After   json.RawMessage `json:"after"`
	}
	b, err := os.ReadFile(filepath.Join(out, "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	if env.Partial != "" || env.Before == nil || env.After == nil {
		t.Errorf("env.json: partial %q, before %d bytes, after %d bytes; want complete with both captures", env.Partial, len(env.Before), len(env.After))
	}
	for _, f := range []string{"summary.json", "report.md", "plots/Stage.svg", "plots/Frame.png"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(out, ".*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// cancelOnLine cancels a context when the progress output shows the n-th finished benchmark.
type cancelOnLine struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOnLine) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.cancel()
	}
	return len(p), nil
}

// TestInterruptedRun cancels a run after its first benchmark: the finished result stays in
// bench.txt, marked partial, and the exit status is 130.
func TestInterruptedRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOnLine{marker: "[1/", cancel: cancel}
	err := runContext(ctx, []string{"run", "-scenarios", "Stage", "-strategies", "baseline", "-benchtime", "10x", "-count", "3", "-out", out}, io.Discard, w)
	if code := exitCode(err, io.Discard); code != 130 {
		t.Fatalf("interrupted run: exit status %d (err %v), want 130", code, err)
	}
	rs := readBench(t, filepath.Join(out, "bench.txt"))
	if len(rs) != 1 {
		t.Fatalf("bench.txt has %d results, want the 1 that finished", len(rs))
	}
	if p := rs[0].GetConfig("partial"); !strings.HasPrefix(p, "true") {
		t.Errorf("partial config = %q, want true (…)", p)
	}
}

// TestCancelledBeforeAnything leaves nothing behind: no results, no directory.
func TestCancelledBeforeAnything(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := runContext(ctx, []string{"run", "-quick", "-out", out}, io.Discard, io.Discard)
	if code := exitCode(err, io.Discard); code != 130 {
		t.Fatalf("exit status %d (err %v), want 130", code, err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(out)
		t.Errorf("%s left behind (%v)", out, entries)
	}
}

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }

// TestProfileAndCompare runs a tiny suite with -profile, checks the profiles parse and
// summary.json has summaries and the attribution, then compares the run with itself.
func TestProfileAndCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the profiler over every strategy")
	}
	out := filepath.Join(t.TempDir(), "r")
	var stdout, stderr bytes.Buffer
	args := []string{"run", "-scenarios", "Stage", "-count", "2", "-benchtime", "50x", "-profile", "-out", out}
	if err := runContext(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("deferbench %q: %v\n%s", args, err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "CPU attribution") {
		t.Errorf("no attribution table on stdout:\n%s", stdout.String())
	}
	files, _ := filepath.Glob(filepath.Join(out, "profiles", "*.pb.gz"))
	if want := 4 * len(harness.Strategies); len(files) != want {
		t.Errorf("%d profiles, want %d: %v", len(files), want, files)
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := profile.Parse(r); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		r.Close()
	}
	var sum struct {
		Summaries   []harness.Summary `json:"summaries"`
		Attribution struct {
			ByStrategy []harness.Attribution `json:"by_strategy"`
		} `json:"attribution"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Summaries) == 0 || len(sum.Attribution.ByStrategy) != len(harness.Strategies) {
		t.Errorf("summary.json: %d summaries, %d attribution rows; want some and %d", len(sum.Summaries), len(sum.Attribution.ByStrategy), len(harness.Strategies))
	}

	stdout.Reset()
	if err := runContext(context.Background(), []string{"compare", out, filepath.Join(out, "bench.txt")}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "Stage/strategy=cmdbuffer/cmd=typed") || !strings.Contains(stdout.String(), "ns/op") {
		t.Errorf("compare output lacks rows:\n%s", stdout.String())
	}
}

// TestRunEntryPoint drives run itself (the function main wraps) with a bad flag: one line on
// stderr through exitCode, status 2.
func TestRunEntryPoint(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := exitCode(run([]string{"run", "-strategies", "nope"}, &stdout, &stderr), &stderr)
	if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), `unknown strategy "nope"`) {
		t.Errorf("run -strategies nope: status %d, stderr %q; want 2 and one line naming nope", code, stderr.String())
	}
	stdout.Reset()
	if code := exitCode(run([]string{"list"}, &stdout, &stderr), &stderr); code != 0 || !strings.Contains(stdout.String(), "cmdbuffer") {
		t.Errorf("run list: status %d, output %q", code, stdout.String())
	}
}
