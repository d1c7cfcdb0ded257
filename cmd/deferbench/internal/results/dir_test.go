package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestNewRunDirSuffixes checks that a taken default name gets -2, -3, …, and that runs asking
// for the same name at once all get different directories.
func TestNewRunDirSuffixes(t *testing.T) {
	base := filepath.Join(t.TempDir(), "results", "20260101-000000-host-arm64")
	var got []string
	for range 3 {
		d, err := NewRunDir(base)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Path)
	}
	want := []string{base, base + "-2", base + "-3"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("run %d got %s, want %s", i+1, got[i], want[i])
		}
	}

	const n = 16
	paths := make(chan string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			d, err := NewRunDir(base)
			if err != nil {
				t.Error(err)
				return
			}
			paths <- d.Path
		}()
	}
	close(start)
	wg.Wait()
	close(paths)
	seen := map[string]bool{}
	for p := range paths {
		if seen[p] {
			t.Errorf("%s handed out twice", p)
		}
		seen[p] = true
	}
	if len(seen) != n {
		t.Errorf("%d directories for %d concurrent runs", len(seen), n)
	}
}

// TestOpenRunDirOnce checks that of runs opening the same directory at once exactly one
// holds it, the others fail with ErrDirInUse or ErrDirTaken, and that Discard removes what
// the run created.
func TestOpenRunDirOnce(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "a", "b", "r")
	const n = 16
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		held []*RunDir
	)
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			d, err := OpenRunDir(dir)
			if err != nil {
				var de *DirError
				if !errors.As(err, &de) || !(errors.Is(err, ErrDirInUse) || errors.Is(err, ErrDirTaken)) {
					t.Errorf("OpenRunDir: %v, want a DirError in use or taken", err)
				}
				return
			}
			mu.Lock()
			held = append(held, d)
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if len(held) != 1 {
		t.Fatalf("%d runs hold %s, want 1", len(held), dir)
	}
	held[0].Discard()
	// The parents may have been created by a run that lost, so only dir is sure to go.
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Discard left %s: %v", dir, err)
	}

	// Alone, a run that created the parents removes them too.
	tmp2 := t.TempDir()
	d, err := OpenRunDir(filepath.Join(tmp2, "a", "b", "r"))
	if err != nil {
		t.Fatal(err)
	}
	d.Discard()
	if entries, _ := os.ReadDir(tmp2); len(entries) != 0 {
		t.Errorf("Discard left %v in %s", entries, tmp2)
	}
}

// TestOpenRunDirEmptyKept checks that an existing empty directory is used and, after Discard,
// kept (the run did not create it), without the lock file.
func TestOpenRunDirEmptyKept(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Errorf("no lock file while held: %v", err)
	}
	if _, err := OpenRunDir(dir); !errors.Is(err, ErrDirInUse) {
		t.Errorf("second OpenRunDir: %v, want ErrDirInUse", err)
	}
	d.Discard()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("after Discard: %v, %v; want the empty directory kept", entries, err)
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot start a process: %v", err)
	}
	return cmd.Process.Pid
}

// TestStaleLockReclaimed: a lock file whose process no longer exists (a killed run) is
// reclaimed with a note, by a run into the directory and by HoldRunDir; a live one is not.
func TestStaleLockReclaimed(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, LockFile)
	pid := deadPID(t)
	if err := os.WriteFile(lock, []byte(fmt.Sprintf("%d\n", pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatalf("OpenRunDir over a stale lock: %v", err)
	}
	if want := fmt.Sprintf("process %d, which no longer exists", pid); !strings.Contains(d.Note, want) {
		t.Errorf("note %q, want it to say %q", d.Note, want)
	}
	if b, _ := os.ReadFile(lock); strings.TrimSpace(string(b)) != fmt.Sprint(os.Getpid()) {
		t.Errorf("lock holds %q, want this process %d", b, os.Getpid())
	}
	// Held by a live process (this one): refused, the lock kept.
	if _, err := HoldRunDir(dir); !errors.Is(err, ErrDirInUse) {
		t.Errorf("HoldRunDir of a live run's directory: %v, want ErrDirInUse", err)
	}
	if _, err := OpenRunDir(dir); !errors.Is(err, ErrDirInUse) {
		t.Errorf("OpenRunDir of a live run's directory: %v, want ErrDirInUse", err)
	}
	// A lock still being written (no process id yet) counts as live.
	os.WriteFile(lock, nil, 0o644)
	if _, err := HoldRunDir(dir); !errors.Is(err, ErrDirInUse) {
		t.Errorf("HoldRunDir with an empty lock file: %v, want ErrDirInUse", err)
	}
	// A killed run's full directory: HoldRunDir reclaims it for a rewrite.
	os.WriteFile(filepath.Join(dir, "bench.txt"), []byte("x"), 0o644)
	os.WriteFile(lock, []byte(fmt.Sprint(pid)), 0o644)
	h, err := HoldRunDir(dir)
	if err != nil || !strings.Contains(h.Note, "stale lock file") {
		t.Fatalf("HoldRunDir over a stale lock: %v, note %q", err, h.Note)
	}
	h.Release()
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("Release left the lock: %v", err)
	}
	// A directory without a lock: held without a note.
	h, err = HoldRunDir(dir)
	if err != nil || h.Note != "" {
		t.Errorf("HoldRunDir without a lock: %v, note %q", err, h.Note)
	}
	h.Release()
}

// TestReleaseAll: ReleaseAll, what a deferbench exiting on a signal calls, removes the lock
// file of every results directory the process holds, however it took it (OpenRunDir making
// the directory or taking an empty one, NewRunDir, HoldRunDir), and none it has released: a
// lock another process took since stays.
func TestReleaseAll(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	full := filepath.Join(root, "full")
	for _, d := range []string{empty, full} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(full, "bench.txt"), []byte("x"), 0o644)
	var held []*RunDir
	for _, open := range []func() (*RunDir, error){
		func() (*RunDir, error) { return OpenRunDir(filepath.Join(root, "made", "run")) },
		func() (*RunDir, error) { return OpenRunDir(empty) },
		func() (*RunDir, error) { return NewRunDir(filepath.Join(root, "new")) },
		func() (*RunDir, error) { return HoldRunDir(full) },
	} {
		d, err := open()
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, d)
	}
	released, err := HoldRunDir(root)
	if err != nil {
		t.Fatal(err)
	}
	released.Release()
	other := filepath.Join(root, LockFile) // another process's, taken after the release
	os.WriteFile(other, []byte("1\n"), 0o644)
	ReleaseAll()
	for _, d := range held {
		if _, err := os.Stat(filepath.Join(d.Path, LockFile)); !os.IsNotExist(err) {
			t.Errorf("ReleaseAll left the lock of %s (stat: %v)", d.Path, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("ReleaseAll removed a lock this process had released and another took: %v", err)
	}
}

// TestWriteFileAtomic checks that a write replaces the file whole, keeping the mode of the
// file it replaces (0644 for a new one), that readers meanwhile see the old contents or the new ones and never
// a mix or an empty file, and that neither a write nor a failed one leaves a temporary file in
// the directory.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.txt")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	oldData := []byte(strings.Repeat("o", 1<<16))
	newData := []byte(strings.Repeat("n", 1<<17))
	if err := WriteFileAtomic(path, oldData); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after write over a 0600 file = %v, want 0600 kept, as a shell's > keeps it", fi.Mode().Perm())
	}
	// A new file is 0644 whatever the umask (renameio's temporary is 0600), and a file's
	// other permission bits are kept too.
	fresh := filepath.Join(t.TempDir(), "fresh.txt")
	if err := WriteFileAtomic(fresh, []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode of a new file = %v (%v), want 0644", fi.Mode().Perm(), err)
	}
	if err := os.Chmod(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(fresh, []byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode after write over a 0755 file = %v (%v), want 0755 kept", fi.Mode().Perm(), err)
	}

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("read during writes: %v", err)
				return
			}
			if string(b) != string(oldData) && string(b) != string(newData) {
				t.Errorf("read during writes: %d bytes that are neither the old contents nor the new", len(b))
				return
			}
		}
	}()
	for i := range 50 {
		data := oldData
		if i%2 == 0 {
			data = newData
		}
		if err := WriteFileAtomic(path, data); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if b, _ := os.ReadFile(path); string(b) != string(oldData) {
		t.Errorf("after the last write the file holds %d bytes, want the last write's %d", len(b), len(oldData))
	}

	// A write that cannot be renamed into place (the target is a non-empty directory) fails
	// and leaves the target as it was.
	blocked := filepath.Join(dir, "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(blocked, newData); err == nil {
		t.Error("write over a non-empty directory succeeded")
	} else if !strings.Contains(err.Error(), blocked) {
		t.Errorf("error %q does not name %s", err, blocked)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "bench.txt blocked"; strings.Join(names, " ") != want {
		t.Errorf("directory holds %q, want %q (no temporary files)", strings.Join(names, " "), want)
	}
}

func TestBenchFilePartialAndConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.txt")
	f := NewBenchFile(path)
	f.Config = []Config{{"goos", "linux"}, {"deferbench", "test"}}
	r := &benchfmt.Result{Name: benchfmt.Name("Stage/strategy=baseline/cmd=typed-2"), Iters: 10,
		Values: []benchfmt.Value{{Value: 1.5, Unit: "ns/op"}}}
	if err := f.Add(r); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := "goos: linux\ndeferbench: test\npartial: true (run in progress)\n\nBenchmarkStage/strategy=baseline/cmd=typed-2 10 1.5 ns/op\n"
	if got := read(); got != want {
		t.Errorf("during the run bench.txt =\n%s\nwant\n%s", got, want)
	}
	f.Config = append(f.Config, Config{"throttled", "no"})
	if err := f.Finish(""); err != nil {
		t.Fatal(err)
	}
	want = "goos: linux\ndeferbench: test\nthrottled: no\n\nBenchmarkStage/strategy=baseline/cmd=typed-2 10 1.5 ns/op\n"
	if got := read(); got != want {
		t.Errorf("after Finish bench.txt =\n%s\nwant\n%s", got, want)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestBenchFileKeepsResultConfig: a result's own file-level configuration (an emulated ISA's
// goarch and isa) replaces the file's in bench.txt for that result only, and FileConfig reads
// the run's machine from a result without an isa key.
func TestBenchFileKeepsResultConfig(t *testing.T) {
	bf := NewBenchFile(filepath.Join(t.TempDir(), "bench.txt"))
	bf.Config = []Config{{"goarch", "amd64"}, {"cpu", "AMD EPYC"}}
	host := &benchfmt.Result{Name: benchfmt.Name("X"), Iters: 1, Values: []benchfmt.Value{{Value: 5, Unit: "instr/op"}}}
	pi := &benchfmt.Result{Name: benchfmt.Name("X"), Iters: 1, Values: []benchfmt.Value{{Value: 6, Unit: "instr/op"}},
		Config: []benchfmt.Config{{Key: "goarch", Value: []byte("arm64"), File: true}, {Key: ISAKey, Value: []byte("pi4"), File: true}}}
	bf.Add(pi)
	bf.Add(host)
	if err := bf.Finish(""); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadResults(bf.Path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(r *benchfmt.Result, k string) string {
		for _, c := range r.Config {
			if c.Key == k {
				return string(c.Value)
			}
		}
		return ""
	}
	if len(rs) != 2 || cfg(rs[0], "goarch") != "arm64" || cfg(rs[0], ISAKey) != "pi4" || cfg(rs[0], "cpu") != "AMD EPYC" ||
		cfg(rs[1], "goarch") != "amd64" || cfg(rs[1], ISAKey) != "" {
		t.Fatalf("read back %d results: %v / %v", len(rs), rs[0].Config, rs[len(rs)-1].Config)
	}
	for _, c := range FileConfig(rs) {
		if c.Key == "goarch" && c.Value != "amd64" || c.Key == ISAKey {
			t.Errorf("FileConfig took the emulated ISA's row: %v", FileConfig(rs))
		}
	}
}

// TestWriteFileAtomicThroughLink: a path that is a symbolic link (relative or absolute, a
// chain of two, one naming no file yet) keeps the link, and the file it names gets the data.
func TestWriteFileAtomicThroughLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.md")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink("real.md", filepath.Join(dir, "rel.md"))
	os.Symlink(target, filepath.Join(dir, "abs.md"))
	os.Symlink("rel.md", filepath.Join(dir, "chain.md"))
	os.Symlink("new.md", filepath.Join(dir, "dangling.md"))
	for _, c := range []struct{ link, file string }{
		{"rel.md", "real.md"}, {"abs.md", "real.md"}, {"chain.md", "real.md"}, {"dangling.md", "new.md"},
	} {
		link := filepath.Join(dir, c.link)
		if err := WriteFileAtomic(link, []byte(c.link)); err != nil {
			t.Fatalf("%s: %v", c.link, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: no longer a link (%v, %v)", c.link, fi.Mode(), err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, c.file)); string(b) != c.link {
			t.Errorf("%s: %s holds %q, want %q", c.link, c.file, b, c.link)
		}
	}
	// A relative target with .. reached through a linked directory is taken from the
	// directory as it really is (x/y/sub/../target.md is x/y/target.md), not from the
	// link's name (dirlink/../target.md would be a user's file beside dirlink).
	os.MkdirAll(filepath.Join(dir, "x", "y", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "y", "target.md"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "target.md"), []byte("the user's"), 0o644)
	os.Symlink(filepath.Join("x", "y", "sub"), filepath.Join(dir, "dirlink"))
	os.Symlink(filepath.Join("..", "target.md"), filepath.Join(dir, "x", "y", "sub", "f.md"))
	if err := WriteFileAtomic(filepath.Join(dir, "dirlink", "f.md"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target.md")); string(b) != "the user's" {
		t.Errorf("a write through dirlink/f.md changed the user's target.md beside dirlink to %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x", "y", "target.md")); string(b) != "new" {
		t.Errorf("x/y/target.md, which dirlink/f.md names, holds %q, want %q", b, "new")
	}
	// A target whose ".." follows a linked directory steps out of where the link led, as the
	// kernel resolves it (x2/link -> sub/../t.md with x2/sub -> a2/b is a2/t.md).
	os.MkdirAll(filepath.Join(dir, "a2", "b"), 0o755)
	os.MkdirAll(filepath.Join(dir, "x2"), 0o755)
	os.Symlink(filepath.Join(dir, "a2", "b"), filepath.Join(dir, "x2", "sub"))
	os.Symlink("sub/../t.md", filepath.Join(dir, "x2", "link"))
	if err := WriteFileAtomic(filepath.Join(dir, "x2", "link"), []byte("k")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a2", "t.md")); string(b) != "k" {
		t.Errorf("x2/link -> sub/../t.md: a2/t.md holds %q, want %q (the kernel's reading)", b, "k")
	}
	if _, err := os.Stat(filepath.Join(dir, "x2", "t.md")); err == nil {
		t.Error("x2/link -> sub/../t.md wrote x2/t.md, dropping sub/.. before following sub")
	}
	// A loop of links is refused, as a shell's > refuses it, and left as it is.
	os.Symlink("b.md", filepath.Join(dir, "a.md"))
	os.Symlink("a.md", filepath.Join(dir, "b.md"))
	if err := WriteFileAtomic(filepath.Join(dir, "a.md"), []byte("x")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("a loop of links: %v, want ELOOP", err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "a.md")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("a loop of links: a.md is no longer a link (%v)", err)
	}
}
