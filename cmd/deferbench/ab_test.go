package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deferbench/deferbench/internal/racetest"
)

// abBinary returns an executable that runs this test binary as deferbench (see TestMain),
// or skips where the test binary cannot start itself.
func abBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	p := filepath.Join(t.TempDir(), "deferbench")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nDEFERBENCH_TEST_MAIN=1 exec '"+exe+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command(p, "list").Run(); err != nil {
		t.Skipf("the test binary cannot start itself here: %v", err)
	}
	return p
}

// TestAB runs two binaries alternately, one round each at a time in a random order, keeps
// every round and the merged runs, and compares the rounds paired.
func TestAB(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "its rounds are child processes run one at a time, each rebuilding its report and plots")
	bin := abBinary(t)
	out := filepath.Join(t.TempDir(), "ab")
	stdout, stderr, code := cli("ab", "-rounds", "6", "-benchtime", "200x", "-scenarios", "Stage", "-strategies", "baseline,cmdbuffer",
		"-fail", "allocs/op>0", "-format", "json", "-seed", "3", "-out", out, bin, bin)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"round 6/6", "base, then head", "head, then base", "BASE (" + bin + ") in " + filepath.Join(out, "base"), "deferbench compare -paired"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var doc struct {
		Method, Gate string
		Rows         []struct {
			Unit, Method string
			New          struct{ N int }
			Ratio        *struct{ Median float64 }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if doc.Method != "signed-rank" || doc.Gate != "pass" || len(doc.Rows) == 0 {
		t.Fatalf("method %q gate %q rows %d; want signed-rank, pass, rows", doc.Method, doc.Gate, len(doc.Rows))
	}
	for _, r := range doc.Rows {
		if r.New.N != 6 || (r.Unit == "ns/op" && (r.Method != "signed-rank" || r.Ratio == nil || r.Ratio.Median <= 0)) {
			t.Errorf("row %+v: want 6 rounds, ns/op paired with a ratio", r)
		}
	}
	for _, side := range []string{"base", "head"} {
		for _, r := range []string{"001", "006"} {
			if _, err := os.Stat(filepath.Join(out, side, "rounds", r, "bench.txt")); err != nil {
				t.Error(err)
			}
		}
		b, _ := os.ReadFile(filepath.Join(out, side, "bench.txt"))
		if n := strings.Count(string(b), "BenchmarkStage/strategy=cmdbuffer/cmd=typed"); n != 6 {
			t.Errorf("%s/bench.txt has %d samples of cmdbuffer typed staging, want 6 (one per round)", side, n)
		}
	}
	// The kept folders compare again, paired.
	if again, errOut, code := cli("compare", "-paired", filepath.Join(out, "base"), filepath.Join(out, "head")); code != 0 || !strings.Contains(again, "6 rounds") {
		t.Errorf("compare -paired of the kept folders: exit %d (%s):\n%s", code, errOut, again)
	}
}

// TestABNotesBenchmarksOnOneSide: a HEAD whose benchmark is renamed (a revision that no
// longer runs one) is named in a note, as compare names it; ab dropped it without a word.
func TestABNotesBenchmarksOnOneSide(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "its rounds are child processes run one at a time")
	bin := abBinary(t)
	head := filepath.Join(t.TempDir(), "head")
	script := "#!/bin/sh\n'" + bin + "' \"$@\"; rc=$?\nout=; prev=\nfor a in \"$@\"; do [ \"$prev\" = -out ] && out=$a; prev=$a; done\n" +
		"[ -n \"$out\" ] && [ -f \"$out/bench.txt\" ] && sed -i 's#cmd=typed-#cmd=typed2-#' \"$out/bench.txt\"\nexit $rc\n"
	if err := os.WriteFile(head, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := cli("ab", "-rounds", "2", "-benchtime", "50x", "-scenarios", "Stage", "-strategies", "cmdbuffer",
		"-seed", "1", "-out", filepath.Join(t.TempDir(), "ab"), bin, head)
	if code != 0 && code != 3 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{"deferbench: ab: note: 1 benchmark only in ", "Stage/strategy=cmdbuffer/cmd=typed-", "Stage/strategy=cmdbuffer/cmd=typed2-"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestABBadInputs(t *testing.T) {
	bin := abBinary(t)
	notExec := filepath.Join(t.TempDir(), "bench.txt")
	os.WriteFile(notExec, []byte("x"), 0o644)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	neverMade := filepath.Join(t.TempDir(), "never")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ab", bin}, "ab: want two arguments BASE HEAD"},
		{[]string{"ab", "-rounds", "0", bin, bin}, "ab: -rounds 0: want a whole number from 1 to 1000"},
		{[]string{"ab", "-benchtime", "fast", bin, bin}, `ab: -benchtime "fast"`},
		{[]string{"ab", "-fail", "sec/op", bin, bin}, "ab: -fail: "},
		{[]string{"ab", "-out", full, bin, bin}, "ab: -out " + full + ": exists and is not empty"},
		{[]string{"ab", "-out", filepath.Join(t.TempDir(), "o"), "no-such-revision-xyz", bin}, `ab: BASE: "no-such-revision-xyz" is neither a deferbench binary nor a git revision`},
		{[]string{"ab", "-out", filepath.Join(t.TempDir(), "o"), bin, notExec}, "ab: HEAD: " + notExec + " is a file but not executable"},
		// Refused before anything is built or any directory made (was: exit 1 after both
		// builds, from the first round, leaving -out behind).
		{[]string{"ab", "-out", neverMade, "-scenarios", "Stage,Nope", bin, bin}, `ab: -scenarios: unknown name "Nope" (valid: Stage,`},
		{[]string{"ab", "-out", neverMade, "-strategies", "cmdbuffer,", bin, bin}, `ab: -strategies "cmdbuffer,": empty name in the list`},
		{[]string{"ab", "-out", neverMade, "-strategies", "cmdbufer", "no-such-revision-xyz", bin}, `ab: -strategies: unknown name "cmdbufer"`},
	} {
		out, errOut, code := cli(c.args...)
		if code != 2 || !strings.HasPrefix(errOut, "deferbench: "+c.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(neverMade); !os.IsNotExist(err) {
		t.Errorf("a refused ab made its -out %s (stat: %v)", neverMade, err)
	}
}

// TestABGitRevisions builds two revisions of this repository in temporary worktrees.
func TestABGitRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds deferbench twice: run without -short")
	}
	if err := exec.Command("git", "rev-parse", "HEAD").Run(); err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	// What an ab run killed while it built leaves: its temporary directory with a registered
	// worktree (locked, as during git worktree add), and an entry whose directory is gone.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	killed := killedABDir(t, tmp, "deferbench-ab-killed")
	t.Cleanup(func() { // leave no entry in this repository whatever ab did
		exec.Command("git", "worktree", "remove", "--force", "--force", filepath.Join(killed, "base-src")).Run()
		exec.Command("git", "worktree", "prune").Run()
	})
	git(t, "worktree", "add", "--detach", filepath.Join(killed, "base-src"), "HEAD")
	git(t, "worktree", "lock", filepath.Join(killed, "base-src"))
	git(t, "worktree", "add", "--detach", filepath.Join(tmp, "deferbench-ab-gone", "head-src"), "HEAD")
	os.RemoveAll(filepath.Join(tmp, "deferbench-ab-gone"))
	out := filepath.Join(t.TempDir(), "ab")
	_, stderr, code := cli("ab", "-rounds", "1", "-benchtime", "100x", "-scenarios", "Stage", "-strategies", "cmdbuffer", "-out", out, "HEAD", "HEAD")
	// One round is too few samples for the gate to judge every metric: exit 3, inconclusive,
	// is the honest outcome of such a run, as 0 is when it could judge them all.
	if inconclusive := code == 3 && strings.Contains(stderr, "gate inconclusive"); code != 0 && !inconclusive ||
		!strings.Contains(stderr, "building base (HEAD") || !strings.Contains(stderr, "an A/A run") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if fileExists(killed) {
		t.Errorf("the killed run's directory %s is left", killed)
	}
	// Only this test's entries: other checkouts of the repository (a developer's worktrees
	// running their own tests) share the worktree list.
	mine := tmp
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		mine = r
	}
	if b, _ := exec.Command("git", "worktree", "list").Output(); strings.Contains(string(b), filepath.Join(mine, "deferbench-ab-")) {
		t.Errorf("a temporary worktree is left under %s:\n%s", mine, b)
	}
}

// git runs git in the working directory, failing the test on an error.
func git(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, b)
	}
}

// killedABDir makes the temporary directory name in tmp of an ab run that was killed: its pid
// file names a process that has exited.
func killedABDir(t *testing.T, tmp, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	gone := exec.Command(exe, "-test.run", "^$")
	if err := gone.Run(); err != nil {
		t.Fatalf("start a process that exits: %v", err)
	}
	if p, err := os.FindProcess(gone.Process.Pid); err == nil && !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone) {
		t.Skipf("pid %d was reused at once", gone.Process.Pid)
	}
	d := filepath.Join(tmp, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "ab.pid"), []byte(strconv.Itoa(gone.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestABStopsItsRound: an interrupt (SIGINT, once) or SIGTERM to deferbench ab stops the
// round in progress, whose run runs in a process group of its own that a terminal's Ctrl-C
// does not reach: the round's files are marked partial and its lock released, no run is
// left orphaned, and the interrupt says where the finished rounds are (exit 130; 143 for
// SIGTERM).
func TestABStopsItsRound(t *testing.T) {
	if testing.Short() {
		t.Skip("runs deferbench ab as a child process for several seconds")
	}
	bin := abBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		say  string
	}{
		{syscall.SIGINT, 130, "interrupted in round 1; the finished rounds are in "},
		{syscall.SIGTERM, 143, "terminated: stopping at once"},
	} {
		out := filepath.Join(t.TempDir(), "ab")
		// One round of Stage alone lasts several seconds (-benchtime 2s per benchmark).
		cmd := deferbenchCmd("ab", "-rounds", "2", "-benchtime", "2s", "-scenarios", "Stage", "-strategies", "baseline,cmdbuffer", "-seed", "1", "-out", out, bin, bin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the first side's round has finished a benchmark (a run stopped before
		// any removes its directory).
		var round string
		deadline := time.Now().Add(2 * time.Minute)
		for round == "" && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			for _, side := range []string{"base", "head"} {
				dir := filepath.Join(out, side, "rounds", "001")
				if b, _ := os.ReadFile(filepath.Join(dir, "bench.txt")); strings.Contains(string(b), "\nBenchmark") {
					round = dir
				}
			}
		}
		if round == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: the first round never started:\n%s", tc.sig, stderr.String())
		}
		cmd.Process.Signal(tc.sig)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != tc.code {
			t.Errorf("%v: exit status %d, want %d:\n%s", tc.sig, code, tc.code, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.say) {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.sig, tc.say, stderr.String())
		}
		if fileExists(filepath.Join(round, ".deferbench.lock")) {
			t.Errorf("%v: the round's run was left holding %s (orphaned or killed)", tc.sig, round)
		}
		b, err := os.ReadFile(filepath.Join(round, "env.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "stopped at once by SIGTERM") {
			t.Errorf("%v: %s/env.json is not marked partial by the round's run:\n%s", tc.sig, round, b)
		}
	}
}
