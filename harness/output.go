package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/perf/benchfmt"
)

// WriteFileAtomic writes data to path through a temporary file in the same directory and a
// rename, so a reader sees the old contents or the new ones, never a half-written file.
func WriteFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CheckWritable fails when dir cannot be created or written, before any benchmark runs. It
// reports whether it created dir, so the caller can remove it again if the run produces
// nothing.
func CheckWritable(dir string) (created bool, err error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		created = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("output directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".deferbench-probe*")
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return false, fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return created, nil
}

// Config is one file-level configuration line of the benchmark format ("goos: linux").
type Config struct{ Key, Value string }

// PartialKey is the file-level configuration key a bench.txt carries while its run is
// incomplete: during the run, and for good when the run was interrupted or failed.
const PartialKey = "partial"

// BenchFile is a bench.txt that grows as results arrive: every Add rewrites the whole file
// atomically, so an interrupted run leaves every finished result behind.
type BenchFile struct {
	Path string
	// Config is the file-level configuration written before the results (benchfmt File:
	// true configs); it may change between writes, e.g. to add what is known only after the
	// run.
	Config  []Config
	results []*benchfmt.Result
	partial string // value of the PartialKey config, "" when complete
}

// NewBenchFile returns a BenchFile at path, marked partial until Finish.
func NewBenchFile(path string) *BenchFile {
	return &BenchFile{Path: path, partial: "true (run in progress)"}
}

// Results returns the results added so far.
func (f *BenchFile) Results() []*benchfmt.Result { return f.results }

// Add appends r and rewrites the file.
func (f *BenchFile) Add(r *benchfmt.Result) error {
	f.results = append(f.results, r)
	return f.write()
}

// Finish rewrites the file; partial is "" for a complete run, or why it is incomplete.
func (f *BenchFile) Finish(partial string) error {
	f.partial = partial
	return f.write()
}

// Bytes returns the file's contents in the Go benchmark format.
func (f *BenchFile) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	for _, r := range f.results {
		r = r.Clone()
		r.Config = r.Config[:0]
		for _, c := range f.Config {
			r.Config = append(r.Config, benchfmt.Config{Key: c.Key, Value: []byte(c.Value), File: true})
		}
		if f.partial != "" {
			r.Config = append(r.Config, benchfmt.Config{Key: PartialKey, Value: []byte(f.partial), File: true})
		}
		if err := w.Write(r); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

func (f *BenchFile) write() error {
	b, err := f.Bytes()
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	return WriteFileAtomic(f.Path, b)
}
