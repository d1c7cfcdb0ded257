package ab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestUncommitted: ab notes that a revision leaves out the work tree's uncommitted changes
// to tracked files; untracked files do not count.
func TestUncommitted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, b)
		}
	}
	ctx := context.Background()
	if uncommitted(ctx) {
		t.Error("outside a work tree: uncommitted = true")
	}
	git("init", "-q")
	os.WriteFile("a.go", []byte("package a\n"), 0o644)
	git("add", "a.go")
	git("commit", "-q", "-m", "a")
	os.WriteFile("new.txt", []byte("untracked\n"), 0o644)
	if uncommitted(ctx) {
		t.Error("clean tree with an untracked file: uncommitted = true")
	}
	os.WriteFile("a.go", []byte("package a // changed\n"), 0o644)
	if !uncommitted(ctx) {
		t.Error("tracked file changed: uncommitted = false")
	}
}

// TestRoundOrders: every draw of orders is balanced (half the rounds HEAD first), and seeds
// that differ in one bit give unrelated orders (a PCG seeded with the clock once put HEAD first
// in all 12 rounds of an A/A run, and its first run of each round was the slower one).
func TestRoundOrders(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1796027174364094760); seed < 1796027174364094860; seed++ {
		o := roundOrders(12, seed)
		heads := 0
		s := ""
		for _, h := range o {
			if h {
				heads++
				s += "h"
			} else {
				s += "b"
			}
		}
		if heads != 6 {
			t.Errorf("seed %d: %s has %d rounds HEAD first, want 6", seed, s, heads)
		}
		seen[s] = true
	}
	if len(seen) < 90 {
		t.Errorf("100 consecutive seeds gave only %d distinct orders", len(seen))
	}
	if n := len(roundOrders(7, 1)); n != 7 {
		t.Errorf("7 rounds: %d orders", n)
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
	if processAlive(gone.Process.Pid) {
		t.Skipf("pid %d was reused at once", gone.Process.Pid)
	}
	d := filepath.Join(tmp, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, pidFile), []byte(strconv.Itoa(gone.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// worktrees returns the paths of the worktrees registered in the repository here.
func worktrees(t *testing.T) []string {
	t.Helper()
	b, err := exec.Command("git", "worktree", "list", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				p = r
			}
			paths = append(paths, p)
		}
	}
	return paths
}

// TestCleanStale: before it adds worktrees, ab removes what a killed ab run left — its
// temporary directory and the worktree registered there, locked or not — and prunes worktree
// entries whose directories are gone, but leaves the directory of a run in progress (its
// process is alive) and any directory without a pid file.
func TestCleanStale(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	tmp, repo := filepath.Join(root, "tmp"), filepath.Join(root, "repo")
	os.MkdirAll(tmp, 0o755)
	os.MkdirAll(repo, 0o755)
	t.Setenv("TMPDIR", tmp)
	t.Chdir(repo)
	git(t, "init", "-q")
	os.WriteFile("a.go", []byte("package a\n"), 0o644)
	git(t, "add", "a.go")
	git(t, "commit", "-q", "-m", "a")

	killed := killedABDir(t, tmp, "deferbench-ab-1")
	git(t, "worktree", "add", "--detach", filepath.Join(killed, "base-src"), "HEAD")
	git(t, "worktree", "lock", "--reason", "initializing", filepath.Join(killed, "base-src"))
	killedLate := killedABDir(t, tmp, "deferbench-ab-2") // killed after building: no worktree
	os.WriteFile(filepath.Join(killedLate, "deferbench"), []byte("binary"), 0o755)
	live := filepath.Join(tmp, "deferbench-ab-3")
	os.MkdirAll(live, 0o755)
	os.WriteFile(filepath.Join(live, pidFile), []byte(strconv.Itoa(os.Getpid())), 0o644)
	git(t, "worktree", "add", "--detach", filepath.Join(live, "head-src"), "HEAD")
	noPID := filepath.Join(tmp, "deferbench-ab-4")
	os.MkdirAll(noPID, 0o755)
	gone := filepath.Join(tmp, "deferbench-ab-5", "base-src")
	git(t, "worktree", "add", "--detach", gone, "HEAD")
	os.RemoveAll(filepath.Dir(gone))

	cleanStale(context.Background())
	for _, d := range []string{killed, killedLate} {
		if fileExists(d) {
			t.Errorf("directory of a killed run %s is left", d)
		}
	}
	for _, d := range []string{live, noPID} {
		if !fileExists(d) {
			t.Errorf("directory %s of a live run, or without a pid file, was removed", d)
		}
	}
	got := worktrees(t)
	want := []string{repo, filepath.Join(live, "head-src")}
	if !slices.Equal(got, want) {
		t.Errorf("worktrees after cleanStale: got %q, want %q", got, want)
	}
	cleanStale(context.Background()) // nothing stale: harmless
	if got := worktrees(t); !slices.Equal(got, want) {
		t.Errorf("worktrees after a second cleanStale: got %q, want %q", got, want)
	}
}
