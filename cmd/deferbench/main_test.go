package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/runopts"
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
		{"run", "-count", "-3"},
		{"run", "-count", "abc"},
		{"run", "-benchtime", "1000h"},
		{"run", "-benchtime", "3s", "-count", "10"},
		// An iteration count counts toward the 2-hour guard at 1 ns per op (a count that fits
		// the int of 32-bit ARM, where the test runs too).
		{"run", "-benchtime", "2000000000x", "-count", "20"},
		{"run", "-stall-after", "0s"},
		{"run", "-stall-after", "-1m"},
		{"run", "-isa", "pi4"},
		{"run", "-isa", "pi9"}, // the wrong name first, before -measure
		{"run", "-measure", "instructions", "-isa", "pi3"},
		{"run", "-measure", "instructions", "-isa", "pi4,,pi5"},
		{"run", "-count", "1.5"},
		{"run", "-count", "99999999999999999999"},
		{"run", "-count"},
		{"run", "-scenarios"}, // a string flag: its help says what it takes
		{"run", "-quick=maybe"},
		{"run", "-benchtime", "soon"},
		{"run", "-benchtime", ""},
		{"run", "-scenarios", "Stage,Nope"},
		{"run", "-scenarios", ""},
		{"run", "-scenarios", "Stage,,Frame"},
		{"run", "-scenarios", "Stage,"},
		{"run", "-scenarios", " , "},
		{"run", "-strategies", "nope"},
		{"run", "-strategies", ""},
		{"run", "-strategies", ",baseline"},
		{"run", "-procs", "0"},
		{"run", "-procs", ""},
		{"run", "-procs", "1,,2"},
		{"run", "-procs", "2,"},
		{"run", "-procs", "x"},
		{"run", "-procs", "1,100000"},
		{"run", "-storages", "chunks"},
		{"run", "-storages", ""},
		{"run", "-scenarios", "Peer", "-strategies", "ark", "-storages", "slots"}, // ark runs on archetypes only
		{"run", "extra"},
		{"run", "-out", ""},
		{"run", "-measure", "cycles"},
		{"run", "-measure", "instructions", "-repeats", "0"},
		{"run", "-repeats", "5"}, // counts repeat; timed rows repeat with -count
		{"compare", "-fail", "instr/op>1", "a", "b"},
		{"ab", "-measure", "instructions,spin", "a", "b"},
		{"list", "-v"},
		{"env", "extra"},
		{"help", "nope"},
		{"compare", "a"},
		{"compare", "-alpha", "2", "a", "b"},
		{"plot"},
		{"plot", "/nonexistent-dir"},
		{"report"},
		{"report", "a", "b"},
		{"report", "/nonexistent-dir"},
	}
	var got bytes.Buffer
	for _, args := range cases {
		var stdout, stderr bytes.Buffer
		out := filepath.Join(t.TempDir(), "r")
		err := runContext(context.Background(), withOut(args, out), &stdout, &stderr)
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
		msg = strings.ReplaceAll(msg, fmt.Sprintf("maximum %d ", runopts.MaxProcs()), "maximum <max> ")
		fmt.Fprintf(&got, "deferbench %s\n%s", shellJoin(args), msg)
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

// shellJoin joins args as a shell would need them: empty ones and ones with spaces quoted.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t'\"") {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}

// withOut puts -out right after run for run commands whose flags parse, so a mistaken run
// lands in a temp dir.
func withOut(args []string, out string) []string {
	if len(args) > 0 && args[0] == "run" && !strings.HasPrefix(strings.Join(args, " "), "run extra") && !slices.Contains(args, "-out") {
		return append([]string{"run", "-out", out}, args[1:]...)
	}
	return args
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

// TestHelpRunListsOutputs checks that help run names every file a run writes.
func TestHelpRunListsOutputs(t *testing.T) {
	var stdout bytes.Buffer
	if err := runContext(context.Background(), []string{"help", "run"}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bench.txt", "env.json", "summary.json", "report.md", "plots/", "profiles/", "-profile"} {
		if !strings.Contains(stdout.String(), f) {
			t.Errorf("help run does not name %s:\n%s", f, stdout.String())
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

// TestOutErrors runs deferbench run with results directories it must refuse before any
// benchmark runs: status 2, one line naming -out, the problem and the fix (paths under the
// test's temp dir as <tmp>), and nothing created or removed.
func TestOutErrors(t *testing.T) {
	write := func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	readOnly := func(t *testing.T, dir string) {
		t.Helper()
		if os.Geteuid() == 0 {
			t.Skip("root writes into read-only directories")
		}
		if err := os.Mkdir(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, tmp string) string // returns -out
		want  string
	}{
		{"parent is a file", func(t *testing.T, tmp string) string {
			write(t, filepath.Join(tmp, "file"))
			return filepath.Join(tmp, "file", "r")
		}, "deferbench: run: -out <tmp>/file/r: cannot create it (<tmp>/file is not a directory): choose a writable directory\n"},
		{"grandparent is a file", func(t *testing.T, tmp string) string {
			write(t, filepath.Join(tmp, "file"))
			return filepath.Join(tmp, "file", "a", "r")
		}, "deferbench: run: -out <tmp>/file/a/r: cannot create it (<tmp>/file is not a directory): choose a writable directory\n"},
		{"out is a file", func(t *testing.T, tmp string) string {
			write(t, filepath.Join(tmp, "file"))
			return filepath.Join(tmp, "file")
		}, "deferbench: run: -out <tmp>/file: exists and is not a directory: choose a new -out or remove it\n"},
		{"out holds an earlier run", func(t *testing.T, tmp string) string {
			dir := filepath.Join(tmp, "old")
			os.Mkdir(dir, 0o755)
			write(t, filepath.Join(dir, "bench.txt"))
			return dir
		}, "deferbench: run: -out <tmp>/old: exists and is not empty: choose a new -out or remove it\n"},
		{"out held by another run", func(t *testing.T, tmp string) string {
			dir := filepath.Join(tmp, "busy")
			if _, err := results.OpenRunDir(dir); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "deferbench: run: -out <tmp>/busy: another deferbench run is writing into it (process <pid>, .deferbench.lock): choose a new -out\n"},
		{"read-only parent", func(t *testing.T, tmp string) string {
			readOnly(t, filepath.Join(tmp, "ro"))
			return filepath.Join(tmp, "ro", "a", "r")
		}, "deferbench: run: -out <tmp>/ro/a/r: cannot create it (permission denied): choose a writable directory\n"},
		{"read-only empty out", func(t *testing.T, tmp string) string {
			readOnly(t, filepath.Join(tmp, "ro"))
			return filepath.Join(tmp, "ro")
		}, "deferbench: run: -out <tmp>/ro: cannot write into it (permission denied): choose a writable directory\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			out := c.setup(t, tmp)
			before := tree(tmp)
			var stderr, line bytes.Buffer
			err := runContext(context.Background(), []string{"run", "-scenarios", "Stage", "-strategies", "baseline", "-benchtime", "1x", "-count", "1", "-out", out}, io.Discard, &stderr)
			if code := exitCode(err, &line); code != 2 {
				t.Errorf("exit status %d, want 2 (err %v)", code, err)
			}
			got := strings.ReplaceAll(line.String(), tmp, "<tmp>")
			got = strings.ReplaceAll(got, fmt.Sprintf("process %d,", os.Getpid()), "process <pid>,")
			if got != c.want {
				t.Errorf("error\n%q, want\n%q", got, c.want)
			}
			if stderr.Len() > 0 {
				t.Errorf("wrote to stderr before failing (a benchmark ran?):\n%s", stderr.String())
			}
			if after := tree(tmp); after != before {
				t.Errorf("the directory changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// tree lists the paths under dir, one a line.
func tree(dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		fmt.Fprintf(&b, "%s\n", strings.TrimPrefix(p, dir))
		return nil
	})
	return b.String()
}

// TestOutEmptyDirAndLock runs into an existing empty -out (allowed: mktemp -d), then checks
// that the lock file is gone and that a second run into the now full directory is refused.
func TestOutEmptyDirAndLock(t *testing.T) {
	out := t.TempDir()
	args := []string{"run", "-scenarios", "Stage", "-strategies", "baseline", "-benchtime", "1x", "-count", "1", "-out", out}
	if err := runContext(context.Background(), args, io.Discard, io.Discard); err != nil {
		t.Fatalf("run into an empty -out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, results.LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left behind after the run: %v", err)
	}
	bench, _ := os.ReadFile(filepath.Join(out, "bench.txt"))
	err := runContext(context.Background(), args, io.Discard, io.Discard)
	var line bytes.Buffer
	if code := exitCode(err, &line); code != 2 || !strings.Contains(line.String(), "exists and is not empty: choose a new -out or remove it") {
		t.Errorf("second run into %s: status %d, %q; want 2 and a refusal", out, code, line.String())
	}
	if again, _ := os.ReadFile(filepath.Join(out, "bench.txt")); !bytes.Equal(again, bench) {
		t.Error("the refused run changed bench.txt")
	}
}

// TestMain makes the test binary the deferbench command when DEFERBENCH_TEST_MAIN=1, so tests
// can run it as separate processes (deferbench's harness is process-global: one run per
// process).
func TestMain(m *testing.M) {
	if os.Getenv("DEFERBENCH_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// deferbenchCmd is deferbench args as a separate process (the test binary, see TestMain).
func deferbenchCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DEFERBENCH_TEST_MAIN=1")
	return cmd
}

// TestConcurrentRunsSameOut runs two deferbench processes with the same -out: one started
// while the other is running (it must be refused), then two started together (exactly one
// runs, the other is refused with status 2).
func TestConcurrentRunsSameOut(t *testing.T) {
	args := []string{"run", "-scenarios", "Stage", "-strategies", "baseline", "-benchtime", "1x", "-count", "1"}

	out := filepath.Join(t.TempDir(), "r")
	first := deferbenchCmd(append(args, "-count", "2", "-out", out)...)
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); errors.Is(err, syscall.ENOEXEC) {
		// Under qemu-user without binfmt_misc (make test-arm) the test binary cannot start
		// itself; the native run of this test covers it.
		t.Skipf("cannot run the test binary as a child process: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "[1/") {
	}
	// The first run has finished a benchmark; stopped, it holds -out until it continues.
	if err := first.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	second := deferbenchCmd(append(args, "-out", out)...)
	msg, err := second.CombinedOutput()
	if err := first.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code := second.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(msg), "another deferbench run is writing into it") {
		t.Errorf("second run into %s while the first runs: status %d (%v), output %q; want 2 and in use", out, code, err, msg)
	}
	io.Copy(io.Discard, stderr)
	if err := first.Wait(); err != nil {
		t.Errorf("first run: %v", err)
	}
	if rs := readBench(t, filepath.Join(out, "bench.txt")); len(rs) != 6 {
		t.Errorf("bench.txt has %d results, want the first run's 6", len(rs))
	}

	out = filepath.Join(t.TempDir(), "r")
	var cmds []*exec.Cmd
	for range 2 {
		c := deferbenchCmd(append(args, "-out", out)...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	var codes []int
	for _, c := range cmds {
		c.Wait()
		codes = append(codes, c.ProcessState.ExitCode())
	}
	if !(codes[0] == 0 && codes[1] == 2 || codes[0] == 2 && codes[1] == 0) {
		t.Errorf("two runs started together into %s: exit statuses %v, want one 0 and one 2", out, codes)
	}
	if rs := readBench(t, filepath.Join(out, "bench.txt")); len(rs) != 3 {
		t.Errorf("bench.txt has %d results, want the one run's 3", len(rs))
	}
}

// TestCountWarning: below 6 repetitions a run warns once on stderr; from 6 it does not.
func TestCountWarning(t *testing.T) {
	for _, c := range []struct {
		args []string
		warn string
	}{
		{[]string{"-count", "2"}, "deferbench: warning: -count 2 is below 6: benchstat needs at least 6 repetitions for a confidence interval; the medians will have none\n"},
		{[]string{"-quick", "-benchtime", "1x"}, "deferbench: warning: -quick's count 3 is below 6: benchstat needs at least 6 repetitions for a confidence interval; the medians will have none\n"},
		{[]string{"-count", "6"}, ""},
	} {
		var stderr bytes.Buffer
		args := append([]string{"run", "-scenarios", "Stage", "-strategies", "baseline", "-benchtime", "1x", "-out", filepath.Join(t.TempDir(), "r")}, c.args...)
		if err := runContext(context.Background(), args, io.Discard, &stderr); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		var warns []string
		for _, l := range strings.SplitAfter(stderr.String(), "\n") {
			if strings.Contains(l, "warning") {
				warns = append(warns, l)
			}
		}
		switch {
		case c.warn == "" && len(warns) > 0:
			t.Errorf("%q warned: %q", c.args, warns)
		case c.warn != "" && (len(warns) != 1 || warns[0] != c.warn):
			t.Errorf("%q: warnings %q, want %q", c.args, warns, c.warn)
		}
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
		"Frame/strategy=cmdbuffer/entities=1000", "Frame/strategy=cmdbuffer/entities=1000/storage=archetypes",
	} {
		if count[name+suffix] != 2 {
			t.Errorf("bench.txt has %d results for %s, want 2 (have %v)", count[name+suffix], name+suffix, count)
		}
	}
	if len(count) != 8 {
		t.Errorf("bench.txt has %d distinct benchmarks, want 8: %v", len(count), count)
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
// bench.txt, every file says what is there in one clean phrase, and the exit status is 130.
func TestInterruptedRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOnLine{marker: "[1/", cancel: cancel}
	err := runContext(ctx, []string{"run", "-scenarios", "Stage", "-strategies", "baseline", "-benchtime", "10x", "-count", "3", "-out", out}, io.Discard, w)
	var line bytes.Buffer
	if code := exitCode(err, &line); code != 130 {
		t.Fatalf("interrupted run: exit status %d (err %v), want 130", code, err)
	}
	want := "deferbench: run: interrupted after 1 of 9 results (3 benchmarks × 3 repetitions): kept them in " + out + "; bench.txt, env.json, summary.json and report.md say partial\n"
	if line.String() != want {
		t.Errorf("message\n%q, want\n%q", line.String(), want)
	}
	rs := readBench(t, filepath.Join(out, "bench.txt"))
	if len(rs) != 1 {
		t.Fatalf("bench.txt has %d results, want the 1 that finished", len(rs))
	}
	checkPartial(t, out, "1 of 9 results finished (3 benchmarks × 3 repetitions; interrupted)")
}

// TestInterruptedProfile cancels a -profile run while it profiles its first scenario and
// strategy: all timed results and that group's profiles stay, and every file says so.
func TestInterruptedProfile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOnLine{marker: "deferbench: profiling ", cancel: cancel}
	err := runContext(ctx, []string{"run", "-scenarios", "Stage", "-strategies", "baseline,cmdbuffer", "-benchtime", "10x", "-count", "1", "-profile", "-out", out}, io.Discard, w)
	var line bytes.Buffer
	if code := exitCode(err, &line); code != 130 {
		t.Fatalf("interrupted run: exit status %d (err %v), want 130", code, err)
	}
	want := "deferbench: run: interrupted while profiling: kept all 6 results and the profiles of 1 of 2 scenario-strategy pairs in " + out + "; bench.txt, env.json, summary.json and report.md say partial\n"
	if line.String() != want {
		t.Errorf("message\n%q, want\n%q", line.String(), want)
	}
	if rs := readBench(t, filepath.Join(out, "bench.txt")); len(rs) != 6 {
		t.Errorf("bench.txt has %d results, want 6", len(rs))
	}
	files, _ := filepath.Glob(filepath.Join(out, "profiles", "*.pb.gz"))
	if len(files) != 4 {
		t.Errorf("%d profiles, want the 4 of Stage-baseline: %v", len(files), files)
	}
	checkPartial(t, out, "all 6 results finished; profiles of 1 of 2 scenario-strategy pairs (interrupted)")
}

// checkPartial checks that bench.txt, env.json, summary.json and report.md in out all carry
// the partial marker want, and that no lock file is left.
func checkPartial(t *testing.T, out, want string) {
	t.Helper()
	for _, r := range readBench(t, filepath.Join(out, "bench.txt")) {
		if p := r.GetConfig("partial"); p != want {
			t.Errorf("bench.txt: partial config = %q, want %q", p, want)
			break
		}
	}
	for _, f := range []string{"env.json", "summary.json"} {
		var doc struct {
			Partial string `json:"partial"`
		}
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Partial != want {
			t.Errorf("%s: partial = %q, want %q", f, doc.Partial, want)
		}
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), want) {
		t.Errorf("report.md does not say %q:\n%s", want, report)
	}
	if _, err := os.Stat(filepath.Join(out, results.LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
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
	// Control rows (noop, the Peer worlds) run only in their own scenario, never in Stage.
	inStage := 0
	for _, s := range harness.Strategies {
		if s.ControlOf == "" || s.ControlOf == "Stage" {
			inStage++
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "profiles", "*.pb.gz"))
	if want := 4 * inStage; len(files) != want {
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
		Summaries   []results.Summary `json:"summaries"`
		Attribution struct {
			ByStrategy []results.Attribution `json:"by_strategy"`
		} `json:"attribution"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Summaries) == 0 || len(sum.Attribution.ByStrategy) != inStage {
		t.Errorf("summary.json: %d summaries, %d attribution rows; want some and %d", len(sum.Summaries), len(sum.Attribution.ByStrategy), inStage)
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
	// A strategy that runs in none of the scenarios asked for (noop is Contention's
	// control): one line that says how to find where it runs.
	stderr.Reset()
	code = exitCode(run([]string{"run", "-scenarios", "Stage", "-strategies", "noop"}, &stdout, &stderr), &stderr)
	if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "deferbench list says where each runs") {
		t.Errorf("run -scenarios Stage -strategies noop: status %d, stderr %q; want 2 and one line pointing to deferbench list", code, stderr.String())
	}
	stdout.Reset()
	if code := exitCode(run([]string{"list"}, &stdout, &stderr), &stderr); code != 0 || !strings.Contains(stdout.String(), "cmdbuffer") {
		t.Errorf("run list: status %d, output %q", code, stdout.String())
	}
}

// TestShellQuote: the benchstat command a run suggests stays one shell word per path, for
// paths with spaces or quotes too.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"results/20260101-host-amd64/bench.txt": "results/20260101-host-amd64/bench.txt",
		"with space/x y/bench.txt":              "'with space/x y/bench.txt'",
		"it's/bench.txt":                        `'it'\''s/bench.txt'`,
		"$HOME/b.txt":                           "'$HOME/b.txt'",
		"":                                      "''",
	} {
		if got := rundir.ShellQuote(in); got != want {
			t.Errorf("rundir.ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestRunCountBound: a -count whose results compare and report could not read back (more
// than results.MaxResults lines), or whose product with the benchmarks overflows, is bad
// input before anything is created; the bound itself is accepted.
func TestRunCountBound(t *testing.T) {
	sel := []string{"run", "-scenarios", "Stage", "-strategies", "baseline", "-procs", "1"}
	for _, c := range []struct{ count, want string }{
		{"66667", "deferbench: run: -count 66667: 3 benchmarks × 66667 is more than the 200000 results compare and report read: give -count 66666 or less, or fewer -scenarios, -strategies or -procs\n"},
		// The largest int (2^63-1, or 2^31-1 on 32-bit ARM): 3 × it would overflow.
		{strconv.Itoa(math.MaxInt), "deferbench: run: -count " + strconv.Itoa(math.MaxInt) + ": 3 benchmarks × " + strconv.Itoa(math.MaxInt) + " is more than the 200000 results compare and report read: give -count 66666 or less, or fewer -scenarios, -strategies or -procs\n"},
		// Past the largest int: the flag package's range error, said plainly.
		{"99999999999999999999", "deferbench: run: -count: \"99999999999999999999\" is too large: want a whole number ≥ 1\n"},
	} {
		out := filepath.Join(t.TempDir(), "r")
		stdout, stderr, code := cli(append(sel, "-count", c.count, "-out", out)...)
		if code != 2 || stderr != c.want || stdout != "" {
			t.Errorf("run -count %s: exit %d, stderr %q; want exit 2 and %q", c.count, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("run -count %s created %s", c.count, out)
		}
	}
}
