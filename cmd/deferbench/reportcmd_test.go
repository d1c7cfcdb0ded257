package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/internal/racetest"
)

// tinyRun runs a small suite into a new directory and returns it.
func tinyRun(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r")
	args := []string{"run", "-scenarios", "Stage", "-strategies", "baseline,cmdbuffer", "-benchtime", "20x", "-count", "2", "-out", out}
	if err := runContext(context.Background(), args, io.Discard, io.Discard); err != nil {
		t.Fatalf("deferbench %q: %v", args, err)
	}
	return out
}

// exitedPID is the id of a process that has exited.
func exitedPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skipf("cannot start a process: %v", err)
	}
	return c.Process.Pid
}

// TestReportRebuildsCompleteRun: report DIR on a finished run writes the same summary.json
// and report.md as the run did.
func TestReportRebuildsCompleteRun(t *testing.T) {
	out := tinyRun(t)
	sum, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	rep, _ := os.ReadFile(filepath.Join(out, "report.md"))
	os.Remove(filepath.Join(out, "summary.json"))
	os.Remove(filepath.Join(out, "report.md"))
	os.RemoveAll(filepath.Join(out, "plots"))
	_, errOut, code := cli("report", out)
	if code != 0 || !strings.Contains(errOut, "rebuilt summary.json, report.md, details.md and plots/") || strings.Contains(errOut, "note") {
		t.Fatalf("report %s: exit %d, stderr %q", out, code, errOut)
	}
	sum2, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	rep2, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !bytes.Equal(sum, sum2) || !bytes.Equal(rep, rep2) {
		t.Errorf("report rebuilt different files:\nsummary.json equal %v\nreport.md was\n%s\nnow\n%s", bytes.Equal(sum, sum2), rep, rep2)
	}
	if fi, err := os.Stat(filepath.Join(out, "plots", "Stage.png")); err != nil || fi.Size() == 0 {
		t.Errorf("plots/Stage.png: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, results.LockFile)); !os.IsNotExist(err) {
		t.Errorf("report left its lock file: %v", err)
	}
}

// TestReportFinishesKilledRun: a run killed outright leaves bench.txt and env.json marked "run
// in progress", its lock file and no summary or report; report DIR reclaims the lock with a
// note, marks every file partial and writes the rest.
func TestReportFinishesKilledRun(t *testing.T) {
	out := tinyRun(t)
	rs := readBench(t, filepath.Join(out, "bench.txt"))
	if err := results.RewriteBenchFile(filepath.Join(out, "bench.txt"), rs[:3], results.InProgress); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "env.json"))
	json.Unmarshal(b, &doc)
	doc["partial"] = results.InProgress
	delete(doc, "after")
	b, _ = json.Marshal(doc)
	os.WriteFile(filepath.Join(out, "env.json"), b, 0o644)
	os.Remove(filepath.Join(out, "summary.json"))
	os.Remove(filepath.Join(out, "report.md"))
	os.RemoveAll(filepath.Join(out, "plots"))
	pid := exitedPID(t)
	os.WriteFile(filepath.Join(out, results.LockFile), []byte(fmt.Sprintf("%d\n", pid)), 0o644)

	_, errOut, code := cli("report", out)
	if code != 0 {
		t.Fatalf("report of a killed run: exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{fmt.Sprintf("note: reclaimed the stale lock file %s of process %d, which no longer exists", filepath.Join(out, results.LockFile), pid),
		"note: the run was killed"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	checkPartial(t, out, "3 results finished (run killed; files rebuilt by deferbench report)")
	if fi, err := os.Stat(filepath.Join(out, "plots", "Stage.svg")); err != nil || fi.Size() == 0 {
		t.Errorf("plots/Stage.svg: %v", err)
	}

	// A live run's directory is refused, nothing rewritten.
	os.WriteFile(filepath.Join(out, results.LockFile), []byte(fmt.Sprint(os.Getpid())), 0o644)
	before, _ := os.ReadFile(filepath.Join(out, "report.md"))
	_, errOut, code = cli("report", out)
	if code != 2 || !strings.Contains(errOut, "another deferbench run is writing into it") || !strings.Contains(errOut, "wait for that run to finish") ||
		!strings.Contains(errOut, "remove "+filepath.Join(out, results.LockFile)) {
		t.Errorf("report of a live run's directory: exit %d, stderr %q; want 2, in use, and how to remove a lock no run holds", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "report.md")); !bytes.Equal(before, after) {
		t.Error("the refused report changed report.md")
	}
	// plot writes into the same directory: refused the same way, plots/ untouched, the
	// live run's lock left in place.
	svg := filepath.Join(out, "plots", "Stage.svg")
	os.WriteFile(svg, []byte("kept"), 0o644)
	_, errOut, code = cli("plot", out)
	if code != 2 || !strings.Contains(errOut, "another deferbench run is writing into it") || !strings.Contains(errOut, "wait for that run to finish") {
		t.Errorf("plot of a live run's directory: exit %d, stderr %q; want 2 and in use", code, errOut)
	}
	if b, _ := os.ReadFile(svg); string(b) != "kept" {
		t.Error("the refused plot rewrote plots/Stage.svg")
	}
	if _, err := os.Stat(filepath.Join(out, results.LockFile)); err != nil {
		t.Errorf("the refused plot removed the live run's lock file: %v", err)
	}
}

// TestReportPassesOverCutLastLine: a bench.txt whose last line is cut off inside it (a run
// killed, or a copy from a board cut short, while it wrote the line) is reported from the
// lines before it, with a note naming the line, as compare reads it; a malformed line
// anywhere else is still refused.
func TestReportPassesOverCutLastLine(t *testing.T) {
	out := tinyRun(t)
	bench := filepath.Join(out, "bench.txt")
	b, _ := os.ReadFile(bench)
	cut := append(bytes.Clone(b), "BenchmarkStage/strategy=cmdbuffer/cmd=typed-2 100 2"...)
	os.WriteFile(bench, cut, 0o644)
	_, errOut, code := cli("report", out)
	if code != 0 || !strings.Contains(errOut, "skipped, the file ends inside it") {
		t.Errorf("report of a bench.txt cut in its last line: exit %d, stderr %q; want 0 and a note", code, errOut)
	}
	bad := bytes.Replace(b, []byte("\nBenchmark"), []byte("\nBenchmarkStage/strategy=x 1 2 ns/op extra\nBenchmark"), 1)
	bad = append(bad, "BenchmarkStage/strategy=cmdbuffer/cmd=typed-2 100 2"...)
	os.WriteFile(bench, bad, 0o644)
	if _, errOut, code := cli("report", out); code != 2 || !strings.Contains(errOut, "malformed benchmark line") {
		t.Errorf("report of a bench.txt with a malformed middle line: exit %d, stderr %q; want 2", code, errOut)
	}
}

// TestReportBadInputs: a directory without bench.txt, or a file that is not one.
func TestReportBadInputs(t *testing.T) {
	empty := t.TempDir()
	notBench := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(notBench, []byte("# hello\n"), 0o644)
	killedEarly := t.TempDir()
	os.WriteFile(filepath.Join(killedEarly, "env.json"), []byte("{}\n"), 0o644)
	for _, c := range []struct{ arg, want string }{
		{empty, "deferbench: report: " + empty + " has no bench.txt: give a bench.txt or a results directory\n"},
		{notBench, "deferbench: report: " + notBench + " is not a Go benchmark results file: give a bench.txt that deferbench run or go test -bench wrote, or a results directory\n"},
		// A run killed before its first benchmark finished leaves env.json alone.
		{killedEarly, "deferbench: report: " + killedEarly + " has env.json but no bench.txt: a run stopped before its first benchmark finished, nothing to read; remove it and run again\n"},
	} {
		_, errOut, code := cli("report", c.arg)
		if code != 2 || errOut != c.want {
			t.Errorf("report %s: exit %d, %q; want 2, %q", c.arg, code, errOut, c.want)
		}
		if entries, _ := os.ReadDir(empty); len(entries) != 0 {
			t.Errorf("report %s left %v", c.arg, entries)
		}
	}
}

// TestStopper: the first interrupt of a run cancels it (stop after the current benchmark)
// and says so; the second runs the hard stop, stops the children (killing them and
// removing the temporary directories) and exits 130. Outside a run the first stops the
// children and exits.
func TestStopper(t *testing.T) {
	var mu sync.Mutex
	var events []string
	rec := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	var stderr bytes.Buffer
	s := &stopper{cancel: func() { rec("cancel") }, stderr: &stderr, stopChildren: func() { rec("stop children") }, exit: func(c int) { rec(fmt.Sprint("exit ", c)) }}
	s.Begin()
	s.SetHard(func(string) { rec("hard") })
	s.interrupt()
	if !strings.Contains(stderr.String(), "the run stops after the current benchmark") {
		t.Errorf("first interrupt said %q", stderr.String())
	}
	s.interrupt()
	if got := strings.Join(events, ", "); got != "cancel, hard, stop children, exit 130" {
		t.Errorf("two interrupts: %s; want cancel, hard, stop children, exit 130", got)
	}
	events = nil
	idle := &stopper{cancel: func() { rec("cancel") }, stderr: io.Discard, stopChildren: func() { rec("stop children") }, exit: func(c int) { rec(fmt.Sprint("exit ", c)) }}
	idle.interrupt()
	if got := strings.Join(events, ", "); got != "stop children, exit 130" {
		t.Errorf("interrupt outside a run: %s; want stop children, exit 130", got)
	}
}

// TestRunReturnWaitsForStopAtOnce: a run that returns (its children killed) while SIGTERM's
// stop at once is still stopping them waits for that stop to exit with 143, instead of
// exiting 1 on the run's error first (TestTerminateRemovesCrossBuiltChildren saw exit 1).
func TestRunReturnWaitsForStopAtOnce(t *testing.T) {
	var mu sync.Mutex
	var events []string
	rec := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	release := make(chan struct{})
	s := &stopper{cancel: func() {}, stderr: io.Discard,
		stopChildren: func() { <-release; rec("stop children") }, exit: func(c int) { rec(fmt.Sprint("exit ", c)) }}
	s.Begin()
	go s.terminate()
	for !s.atOnce.Load() {
		time.Sleep(time.Millisecond)
	}
	returned := make(chan struct{})
	go func() { s.waitAtOnce(); rec("run returned"); close(returned) }()
	select {
	case <-returned:
		t.Fatal("the run returned while the stop at once was still stopping the children")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not return after the stop at once exited")
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(events, ", "); got != "stop children, exit 143, run returned" {
		t.Errorf("events %s; want stop children, exit 143, run returned", got)
	}
	var idle stopper
	start := time.Now()
	idle.waitAtOnce()
	if d := time.Since(start); d > time.Second {
		t.Errorf("with no stop at once, the run's return waited %v", d)
	}
}

// TestInterruptTwice interrupts a real run process twice: the first interrupt says the run
// stops after the current benchmark, the second stops it at once with status 130 and every
// file marked partial with what finished.
func TestInterruptTwice(t *testing.T) {
	for _, twice := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "r")
		cmd, lines := startRun(t, "-scenarios", "Stage", "-strategies", "baseline,cmdbuffer", "-benchtime", "300ms", "-count", "3", "-out", out)
		wait := func(marker string) bool { return waitLine(lines, marker, 60*time.Second) }
		if !wait("[1/") {
			cmd.Process.Kill()
			t.Fatal("the run never finished a benchmark")
		}
		cmd.Process.Signal(os.Interrupt)
		if !wait("the run stops after the current benchmark") {
			t.Error("the first interrupt did not say the run stops after the current benchmark")
		}
		if twice {
			cmd.Process.Signal(os.Interrupt)
		}
		kept := false // the last words say where the results are, both ways
		for l := range lines {
			kept = kept || strings.Contains(l, "kept them in "+out+"; bench.txt, env.json, summary.json and report.md say partial")
		}
		cmd.Wait()
		if !kept {
			t.Errorf("twice=%v: stderr never said where the results were kept", twice)
		}
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("twice=%v: exit status %d, want 130", twice, code)
		}
		rs := readBench(t, filepath.Join(out, "bench.txt"))
		want := fmt.Sprintf("%d of 18 results finished (6 benchmarks × 3 repetitions; interrupted)", len(rs))
		if twice {
			want = fmt.Sprintf("%d of 18 results finished (6 benchmarks × 3 repetitions; stopped at once by a second interrupt)", len(rs))
		}
		if len(rs) == 0 || len(rs) >= 18 {
			t.Errorf("twice=%v: %d results kept, want some but not all", twice, len(rs))
		}
		checkPartial(t, out, want)
	}
}

// TestReportLoadedFlag: report DIR rebuilds the Loaded flag from env.json: from the measured
// share of other work where env.json has it, never from the load average after the run,
// which counts the run's own threads (an env.json of an older deferbench has no share).
func TestReportLoadedFlag(t *testing.T) {
	out := tinyRun(t)
	envPath := filepath.Join(out, "env.json")
	b, _ := os.ReadFile(envPath)
	var orig map[string]any
	if err := json.Unmarshal(b, &orig); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		if _, ok := orig["before"].(map[string]any)["cpu_time"]; !ok {
			t.Errorf("env.json before has no cpu_time on linux:\n%s", b)
		}
	}
	for _, tt := range []struct {
		name   string
		share  any // env.json's cpu_share; nil: absent (an older deferbench)
		loadAt [2]string
		want   string // "" = no Loaded flag
		line   string // a line report.md must hold, "" = none
	}{
		{"older env.json, idle machine, busy run", nil, [2]string{"0.10 0.05 0.01", "2.10 1.00 0.50"}, "", ""},
		{"older env.json, loaded before", nil, [2]string{"3.20 1.00 0.50", "2.10 1.00 0.50"},
			"**Loaded**: the 1-minute load average before the run was 3.20, above the 2 cores", ""},
		{"measured idle", map[string]any{"wall_seconds": 30, "cpus": 2, "run_fraction": 0.97, "other_cpu_fraction": 0.01, "steal_fraction": 0},
			[2]string{"0.10 0.05 0.01", "2.10 1.00 0.50"}, "", "Other work during the run (30s): 1% of the 2 CPUs' time"},
		{"measured other work", map[string]any{"wall_seconds": 30, "cpus": 2, "run_fraction": 0.5, "other_cpu_fraction": 0.4, "steal_fraction": 0.02},
			[2]string{"0.10 0.05 0.01", "2.10 1.00 0.50"},
			"**Loaded**: other work took 42% of the 2 CPUs' time during the run: other processes 40%, and the hypervisor 2% as steal", ""},
	} {
		doc := map[string]any{}
		json.Unmarshal(b, &doc)
		delete(doc, "cpu_share")
		if tt.share != nil {
			doc["cpu_share"] = tt.share
		}
		for i, when := range []string{"before", "after"} {
			c := doc[when].(map[string]any)
			c["cores"], c["load_avg"] = 2, tt.loadAt[i]
			delete(c, "cpu_time")
		}
		nb, _ := json.Marshal(doc)
		os.WriteFile(envPath, nb, 0o644)
		if _, errOut, code := cli("report", out); code != 0 {
			t.Fatalf("%s: report: exit %d, stderr %q", tt.name, code, errOut)
		}
		rep, _ := os.ReadFile(filepath.Join(out, "report.md"))
		head := string(rep)
		if i := strings.Index(head, "## Configuration"); i >= 0 {
			head = head[:i]
		}
		switch {
		case tt.want == "" && strings.Contains(head, "**Loaded**"):
			t.Errorf("%s: flagged Loaded:\n%s", tt.name, head)
		case tt.want != "" && !strings.Contains(head, tt.want):
			t.Errorf("%s: report.md lacks %q:\n%s", tt.name, tt.want, head)
		}
		if tt.line != "" && !strings.Contains(string(rep), tt.line) {
			t.Errorf("%s: report.md lacks %q", tt.name, tt.line)
		}
	}
}

// TestTerminateStopsAtOnce: SIGTERM (timeout(1), a CI cancel, a container stop) does not wait
// for the benchmark in progress, which may last -benchtime and more: the run marks its files
// partial with what finished, says where it kept them and exits with status 143 at once.
func TestTerminateStopsAtOnce(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it waits for a child's first 30 s benchmark, which the detector stretches; the signal paths run under it in TestInterruptTwice and TestInterruptedRun")
	out := filepath.Join(t.TempDir(), "r")
	// The second benchmark alone would take 30 s (-benchtime): a soft stop would wait for it.
	cmd, lines := startRun(t, "-scenarios", "Stage", "-strategies", "baseline,cmdbuffer", "-benchtime", "30s", "-count", "1", "-out", out)
	if !waitLine(lines, "[1/", 2*time.Minute) {
		cmd.Process.Kill()
		t.Fatal("the run never finished a benchmark")
	}
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	kept := false
	for l := range lines {
		kept = kept || strings.Contains(l, "kept them in "+out)
	}
	cmd.Wait()
	if took := time.Since(sent); took > 20*time.Second {
		t.Errorf("SIGTERM took %v to stop the run, want at once (the benchmark in progress runs 30 s)", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit status %d, want 143", code)
	}
	if !kept {
		t.Error("stderr never said where the results were kept")
	}
	rs := readBench(t, filepath.Join(out, "bench.txt"))
	checkPartial(t, out, fmt.Sprintf("%d of 6 results finished (6 benchmarks × 1 repetition; stopped at once by SIGTERM)", len(rs)))
}

// startRun starts "deferbench run args..." as a child process and returns it with its stderr,
// line by line (the channel closes at its end); it skips the test where the test binary cannot
// start itself (ENOEXEC under qemu-user).
func startRun(t *testing.T, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd, stderr := startWithStderr(t, append([]string{"run"}, args...)...)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return cmd, lines
}

// startWithStderr starts "deferbench args..." as a child process and returns it with its
// stderr; it skips the test where the test binary cannot start itself (ENOEXEC under
// qemu-user).
func startWithStderr(t *testing.T, args ...string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := deferbenchCmd(args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot run the test binary as a child process: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	return cmd, stderr
}

// waitLine reads lines until one contains marker (true), or they end or d passes (false).
func waitLine(lines <-chan string, marker string, d time.Duration) bool {
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return false
			}
			if strings.Contains(l, marker) {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// TestHangupStopsAtOnce: SIGHUP (a closed terminal, an ssh session to a Pi that dropped) on the
// signal channel stops a run at once, as SIGTERM does: its hard stop marks the files partial
// "by SIGHUP", its children are stopped and the process exits with 129 (128 + SIGHUP). Before,
// SIGHUP killed the process and left the run's lock behind.
func TestHangupStopsAtOnce(t *testing.T) {
	var events []string
	s := &stopper{cancel: func() {}, stderr: io.Discard,
		stopChildren: func() { events = append(events, "stop children") },
		exit:         func(c int) { events = append(events, fmt.Sprint("exit ", c)) }}
	s.Begin()
	s.SetHard(func(why string) { events = append(events, "hard: "+why) })
	sigs, done := make(chan os.Signal, 1), make(chan struct{})
	finished := make(chan struct{})
	go func() { s.watch(sigs, done); close(finished) }()
	sigs <- syscall.SIGHUP
	for !s.exited.Load() {
		time.Sleep(time.Millisecond)
	}
	close(done)
	<-finished
	if got := strings.Join(events, ", "); got != "hard: stopped at once by SIGHUP, stop children, exit 129" {
		t.Errorf("SIGHUP: %s; want hard: stopped at once by SIGHUP, stop children, exit 129", got)
	}
}

// TestClosedPipeLosesOutputNotRun: a run whose stderr is a pipe closed after the first line
// (deferbench run ... 2>&1 | head -1) finishes and writes its results, its lock released:
// SIGPIPE killed it before, leaving a partial run and a stale lock.
func TestClosedPipeLosesOutputNotRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	cmd, stderr := startWithStderr(t, "run", "-scenarios", "Stage", "-strategies", "baseline", "-benchtime", "1x", "-count", "2", "-out", out)
	bufio.NewReader(stderr).ReadString('\n')
	stderr.Close() // the reader goes away: every later write to stderr fails with EPIPE
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d, want 0 (the run finishes; only its messages are lost)", code)
	}
	if fileExists(filepath.Join(out, ".deferbench.lock")) || !fileExists(filepath.Join(out, "summary.json")) {
		t.Errorf("%s: want its summary.json and no lock", out)
	}
}

// TestLoadUnknownWithoutEnv: a report of a bench.txt without env.json (go test's output, or
// results copied without it) says the machine's load was never recorded, and none of its
// timed verdicts reads firm; with the run's env.json (other work measured) it says neither.
// Verdicts met within a bound on every sample (Determinism, Spike) read no time and stay
// as they are.
func TestLoadUnknownWithoutEnv(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it rebuilds two reports of the reference run, on one goroutine")
	path, src := referenceRun(t, "")
	for _, withEnv := range []bool{false, true} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bench.txt"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		if withEnv {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(path), "env.json"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "env.json"), b, 0o644)
		}
		if err := runContext(t.Context(), []string{"report", dir}, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		rep, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(rep), "## Which to pick")
		flagged := strings.Contains(first, "**Load unknown**") && strings.Contains(string(rep), "Other work during the run: not measured (no env.json")
		if flagged == withEnv {
			t.Errorf("env.json given: %v; Load unknown flagged and named: %v:\n%s", withEnv, flagged, first)
		}
		for _, l := range strings.Split(first, "\n") {
			timed := strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| Determinism") && !strings.HasPrefix(l, "| Spike") && !strings.HasPrefix(l, "| need") && !strings.HasPrefix(l, "|---")
			if !withEnv && timed && strings.HasSuffix(l, "| firm |") {
				t.Errorf("without env.json a timed need reads firm: %s", l)
			}
			if !withEnv && timed && !strings.Contains(l, "Load unknown") {
				t.Errorf("without env.json a timed need does not name the unknown load: %s", l)
			}
		}
	}
}
