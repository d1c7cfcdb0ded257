package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/google/renameio/v2"
)

// WriteFileAtomic writes data to path through a temporary
// file in the same directory, flushed to the device (fsync) and renamed over path with
// github.com/google/renameio/v2, so a reader, or a board that loses power, sees the old
// contents or the new ones, never a half-written or empty file. The directory is synced
// after the rename on a best-effort basis, so the new name survives a power cut as well.
// On error path is unchanged and no temporary file is left behind. A path that is a
// symbolic link is written through: the file it names is replaced and the link kept, as a
// shell's > would (a link that names no file yet is followed to where it points; a loop of
// links is an error wrapping syscall.ELOOP). A file that path replaces keeps its
// permission bits (a script made 0755, a file made 0600); a new file gets 0644, whatever
// the umask.
func WriteFileAtomic(path string, data []byte) error {
	path, err := throughLinks(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	t, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithStaticPermissions(0o644), renameio.WithExistingPermissions())
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := t.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// throughLinks returns the file path names after following symbolic links as the kernel
// does: component by component, so that ".." steps out of the directory a link led into
// (x/sub/../f with x/sub a link to a/b is a/f, not x/f), and a link naming no file yet is
// followed to where it points. More than 40 links (the kernel's limit; a loop) is an error
// wrapping syscall.ELOOP, as a shell's > reports it.
func throughLinks(path string) (string, error) {
	for range 40 {
		// The directory part resolved in order (EvalSymlinks walks it component by
		// component); the last part is a plain name, looked at below.
		dir, base := splitLast(path)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		path = filepath.Join(dir, base)
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return path, nil
		}
		if !filepath.IsAbs(to) {
			to = dir + string(filepath.Separator) + to // not Join: that would drop "sub/.." unresolved
		}
		path = to
	}
	return "", &fs.PathError{Op: "write", Path: path, Err: syscall.ELOOP}
}

// splitLast splits path before its last element without cleaning it: "x/sub/../f" is
// "x/sub/.." and "f".
func splitLast(path string) (dir, base string) {
	i := strings.LastIndexByte(path, filepath.Separator)
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return string(filepath.Separator), path[1:]
	}
	return path[:i], path[i+1:]
}

// CheckOutFile reports why path may not be written by a command whose output file starts
// with marker ("### deferbench: " for compare -full), or nil: a directory, or an existing file
// that does not start with marker — one deferbench did not write, such as a run's bench.txt
// or report.md, or the command's own input, which writing would destroy. A file that starts
// with marker is an earlier output of the same command and may be replaced. The error is one
// line naming path and the fix.
func CheckOutFile(path, marker string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil // a new file (a missing folder is the write's error)
	case fi.IsDir():
		return fmt.Errorf("%s is a directory: give a file name, e.g. %s", path, filepath.Join(path, "out.md"))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file: give a new file name", path)
	}
	head, err := FileHead(path, len(marker))
	if err != nil {
		return fmt.Errorf("%s: %v: give a new file name", path, err)
	}
	if string(head) != marker {
		return fmt.Errorf("%s exists and was not written by this command (it does not start with %q), so replacing it could destroy results: give a new file name, or move it away", path, strings.TrimSpace(marker))
	}
	return nil
}

// FileHead returns up to the first n bytes of the file at path (fewer when it is shorter), or
// the error opening it.
func FileHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := io.ReadFull(f, b)
	return b[:k], nil
}

// syncDir flushes dir's entries to the device, so that a rename into it is durable; some
// file systems refuse fsync on a directory, and the file itself is already in place, so
// errors are ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// LockFile is the file a run keeps in its results directory while it writes there
// (RunDir): a second run refuses a directory that holds one.
const LockFile = ".deferbench.lock"

// Sentinels of DirError, for errors.Is.
var (
	// ErrDirTaken: the directory exists and is not empty, or is not a directory.
	ErrDirTaken = errors.New("results directory taken")
	// ErrDirInUse: another run holds the directory (its LockFile is there).
	ErrDirInUse = errors.New("results directory in use")
	// ErrDirUnusable: the directory cannot be created or written.
	ErrDirUnusable = errors.New("results directory unusable")
)

// DirError is why OpenRunDir or NewRunDir refused a results directory: Problem is a short
// phrase ("exists and is not empty", "cannot create it (permission denied)") and Kind one of
// ErrDirTaken, ErrDirInUse, ErrDirUnusable, which Unwrap returns.
type DirError struct {
	Dir     string
	Problem string
	Kind    error
}

func (e *DirError) Error() string { return "results directory " + e.Dir + ": " + e.Problem }
func (e *DirError) Unwrap() error { return e.Kind }

// RunDir is a results directory held by one run: new, or empty when the run began, with
// LockFile in it until Release. Opening one is atomic (os.Mkdir, then the lock file created
// with O_EXCL), so two runs never share a directory and no run overwrites another's files.
type RunDir struct {
	Path string
	// Note, when not "", says that a stale lock file was reclaimed: the process it named no
	// longer exists (a run killed before it could remove it).
	Note    string
	created []string // directories this run created, outermost first
}

// OpenRunDir holds dir for a run: it creates dir and any missing parents, or takes dir as it
// is if it exists and is empty. It fails with a *DirError, leaving nothing behind, when dir
// exists and is not empty or not a directory (ErrDirTaken), when another run holds it
// (ErrDirInUse), or when it cannot be created or written (ErrDirUnusable).
func OpenRunDir(dir string) (*RunDir, error) {
	dir = filepath.Clean(dir)
	d := &RunDir{Path: dir}
	created, err := mkdirParents(filepath.Dir(dir))
	d.created = created
	if err != nil {
		return nil, &DirError{Dir: dir, Problem: "cannot create it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	made, err := mkdirLocked(dir)
	if err != nil {
		d.remove()
		return nil, &DirError{Dir: dir, Problem: "cannot create it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	if made {
		d.created = append(d.created, dir)
		return d, nil
	}
	note, err := reclaimStale(dir)
	if err != nil {
		d.remove()
		return nil, err
	}
	d.Note = note
	if err := checkEmpty(dir); err != nil {
		d.remove()
		return nil, err
	}
	if err := d.lock(); err != nil {
		d.remove()
		return nil, err
	}
	return d, nil
}

// NewRunDir holds a new results directory named base, or base-2, base-3, … when base is
// taken: each name is tried with os.Mkdir, which fails when it exists, so concurrent runs get
// different directories. It fails with a *DirError (ErrDirUnusable) when none can be created.
func NewRunDir(base string) (*RunDir, error) {
	base = filepath.Clean(base)
	created, err := mkdirParents(filepath.Dir(base))
	d := &RunDir{created: created}
	if err != nil {
		return nil, &DirError{Dir: base, Problem: "cannot create it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	for n := 1; n <= 1000; n++ {
		dir := base
		if n > 1 {
			dir = fmt.Sprintf("%s-%d", base, n)
		}
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			d.remove()
			return nil, &DirError{Dir: dir, Problem: "cannot create it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
		}
		d.Path = dir
		d.created = append(d.created, dir)
		if err := d.lock(); err != nil {
			d.remove()
			return nil, err
		}
		return d, nil
	}
	d.remove()
	return nil, &DirError{Dir: base, Problem: "it and " + base + "-2 … -1000 exist", Kind: ErrDirTaken}
}

// HoldRunDir holds the existing results directory dir for rewriting its files (deferbench
// report): it puts LockFile there, reclaiming a stale one (RunDir.Note says so). It fails
// with a *DirError when dir is not a directory (ErrDirTaken), when a live process holds it
// (ErrDirInUse), or when it cannot be written (ErrDirUnusable). Release gives it back.
func HoldRunDir(dir string) (*RunDir, error) {
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, &DirError{Dir: dir, Problem: "cannot use it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	if !fi.IsDir() {
		return nil, &DirError{Dir: dir, Problem: "is not a directory", Kind: ErrDirTaken}
	}
	note, err := reclaimStale(dir)
	if err != nil {
		return nil, err
	}
	d := &RunDir{Path: dir, Note: note}
	if err := d.lock(); err != nil {
		return nil, err
	}
	return d, nil
}

// reclaimStale removes dir's LockFile when the process it names no longer exists, and says
// so in note. A lock file held by a live process, or one whose process id cannot be read
// (a run that has just created it), is ErrDirInUse.
func reclaimStale(dir string) (note string, err error) {
	path := filepath.Join(dir, LockFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", nil // no lock; what dir is, the caller checks
	}
	if err != nil {
		return "", inUse(dir)
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if perr != nil || pid <= 0 || processAlive(pid) {
		return "", inUse(dir)
	}
	if again, err := os.ReadFile(path); err != nil || !bytes.Equal(again, b) {
		return "", inUse(dir) // another run has just taken it
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", &DirError{Dir: dir, Problem: "cannot remove its stale lock file (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	return fmt.Sprintf("reclaimed the stale lock file %s of process %d, which no longer exists", path, pid), nil
}

// processAlive reports whether process pid exists (signal 0: EPERM means it exists under
// another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Release removes the lock file: the run is done writing.
func (d *RunDir) Release() error {
	lock := filepath.Join(d.Path, LockFile)
	held.Lock()
	defer held.Unlock()
	delete(held.locks, lock)
	if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("release %s: %w", d.Path, err)
	}
	return nil
}

// held is the lock files this process holds (RunDir.lock adds, Release removes), for
// ReleaseAll.
var held struct {
	sync.Mutex
	locks map[string]bool
}

// ReleaseAll removes the lock file of every results directory this process holds, for a
// process about to exit on a signal (report, plot, run): the next command then finds the
// directory free instead of reclaiming a stale lock. It is safe for concurrent use.
func ReleaseAll() {
	held.Lock()
	defer held.Unlock()
	for lock := range held.locks {
		os.Remove(lock)
		delete(held.locks, lock)
	}
}

// Discard releases d and removes the directories the run created, if they are empty: a run
// that wrote nothing leaves nothing behind.
func (d *RunDir) Discard() {
	d.Release()
	d.remove()
}

func (d *RunDir) remove() {
	for i := len(d.created) - 1; i >= 0; i-- {
		os.Remove(d.created[i]) // only if empty
	}
	d.created = nil
}

// mkdirLocked creates dir with LockFile already in it: it builds the directory under a
// temporary name beside dir and renames it into place, so no other run can see dir without
// its lock and take it while its creator is still writing the lock. It reports made = false,
// with no error, when dir already exists (the caller then takes it the way it takes a
// directory it did not create).
func mkdirLocked(dir string) (made bool, err error) {
	if _, err := os.Lstat(dir); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".new-")
	if err != nil {
		return false, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.Remove(tmp)
		return false, err
	}
	t := &RunDir{Path: tmp}
	if err := t.lock(); err != nil {
		os.Remove(tmp)
		return false, err
	}
	// rename(2) replaces an empty directory but never a non-empty one, and dir did not exist
	// a moment ago: whoever created it since is a run that has its lock file inside.
	if err := os.Rename(tmp, dir); err == nil {
		held.Lock()
		delete(held.locks, filepath.Join(tmp, LockFile))
		held.locks[filepath.Join(dir, LockFile)] = true
		held.Unlock()
		return true, nil
	}
	t.Release()
	os.Remove(tmp)
	return false, nil
}

func (d *RunDir) lock() error {
	f, err := os.OpenFile(filepath.Join(d.Path, LockFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return inUse(d.Path)
	}
	if err != nil {
		return &DirError{Dir: d.Path, Problem: "cannot write into it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	held.Lock()
	if held.locks == nil {
		held.locks = map[string]bool{}
	}
	held.locks[filepath.Join(d.Path, LockFile)] = true
	held.Unlock()
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return f.Close()
}

// inUse is the DirError for a dir whose LockFile exists; it names the process id the file
// holds, so that a user can tell a running run from a killed one.
func inUse(dir string) error {
	holder := LockFile
	if b, err := os.ReadFile(filepath.Join(dir, LockFile)); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			holder = fmt.Sprintf("process %d, %s", pid, LockFile)
		}
	}
	return &DirError{Dir: dir, Problem: "another deferbench run is writing into it (" + holder + ")", Kind: ErrDirInUse}
}

// checkEmpty refuses an existing dir that is not an empty directory.
func checkEmpty(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return &DirError{Dir: dir, Problem: "cannot use it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	if !fi.IsDir() {
		return &DirError{Dir: dir, Problem: "exists and is not a directory", Kind: ErrDirTaken}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &DirError{Dir: dir, Problem: "cannot read it (" + shortReason(err) + ")", Kind: ErrDirUnusable}
	}
	for _, e := range entries {
		if e.Name() == LockFile {
			return inUse(dir)
		}
	}
	if len(entries) > 0 {
		return &DirError{Dir: dir, Problem: "exists and is not empty", Kind: ErrDirTaken}
	}
	return nil
}

// mkdirParents creates dir and its missing parents, and returns those it created, outermost
// first; on failure it removes them again.
func mkdirParents(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("%s is not a directory", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			for j := len(created) - 1; j >= 0; j-- {
				os.Remove(created[j])
			}
			return nil, err
		} else if err == nil {
			created = append(created, missing[i])
		}
	}
	return created, nil
}

// shortReason is err without the operation and path: "permission denied".
func shortReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
