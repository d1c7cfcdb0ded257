package results

import (
	"bytes"
	"fmt"
	"sync"

	"golang.org/x/perf/benchfmt"
)

// Config is one file-level configuration line of the benchmark format ("goos: linux").
type Config struct{ Key, Value string }

// PartialKey is the file-level configuration key a bench.txt carries while its run is
// incomplete: during the run, and for good when the run was interrupted or failed.
const PartialKey = "partial"

// BenchFile is a bench.txt that grows as results arrive: every Add rewrites the whole file
// atomically, so an interrupted run leaves every finished result behind. Its methods may be
// called from several goroutines (a second interrupt finishes the file from the signal
// handler while a benchmark runs); after Finish, Add keeps nothing.
type BenchFile struct {
	Path string
	// Config is the file-level configuration written before the results (benchfmt File:
	// true configs); it may change between writes, e.g. to add what is known only after the
	// run.
	Config   []Config
	mu       sync.Mutex
	results  []*benchfmt.Result
	partial  string // value of the PartialKey config, "" when complete
	finished bool
}

// NewBenchFile returns a BenchFile at path, marked partial until Finish.
func NewBenchFile(path string) *BenchFile {
	return &BenchFile{Path: path, partial: "true (run in progress)"}
}

// Results returns the results added so far.
func (f *BenchFile) Results() []*benchfmt.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*benchfmt.Result(nil), f.results...)
}

// Add appends r and rewrites the file; after Finish it does nothing.
func (f *BenchFile) Add(r *benchfmt.Result) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return nil
	}
	f.results = append(f.results, r)
	return f.write()
}

// Finish rewrites the file; partial is "" for a complete run, or why it is incomplete.
func (f *BenchFile) Finish(partial string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.partial, f.finished = partial, true
	return f.write()
}

func (f *BenchFile) bytes() ([]byte, error) {
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	for _, r := range f.results {
		own := r.Config
		r = r.Clone()
		r.Config = nil
		for _, c := range f.Config {
			r.Config = append(r.Config, benchfmt.Config{Key: c.Key, Value: []byte(c.Value), File: true})
		}
		r.Config = overrideConfig(r.Config, own)
		if f.partial != "" {
			r.Config = append(r.Config, benchfmt.Config{Key: PartialKey, Value: []byte(f.partial), File: true})
		}
		if err := w.Write(r); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// overrideConfig returns base with the file-level keys of own (a result's configuration of its
// own: an emulated ISA's count rows carry their goarch, cpu and isa) replacing those of base
// or added after them.
func overrideConfig(base, own []benchfmt.Config) []benchfmt.Config {
	for _, c := range own {
		if !c.File || c.Key == PartialKey {
			continue
		}
		i := 0
		for i < len(base) && base[i].Key != c.Key {
			i++
		}
		c.Value = append([]byte(nil), c.Value...)
		if i < len(base) {
			base[i] = c
		} else {
			base = append(base, c)
		}
	}
	return base
}

// RewriteBenchFile rewrites the bench.txt at path with results, their file-level
// configuration (without any partial marker) and partial ("" for a complete run): how
// deferbench report marks a killed run's file.
func RewriteBenchFile(path string, results []*benchfmt.Result, partial string) error {
	f := &BenchFile{Path: path, Config: FileConfig(results), results: results, partial: partial}
	return f.write()
}

// FileConfig is the file-level configuration of results (the first result's that is not an
// emulated ISA's count row, which carries the modelled machine's keys, else the first
// result's), without the partial marker.
func FileConfig(results []*benchfmt.Result) []Config {
	var cfg []Config
	if len(results) == 0 {
		return nil
	}
	first := results[0]
	for _, r := range results {
		if !hasKey(r, ISAKey) {
			first = r
			break
		}
	}
	for _, c := range first.Config {
		if c.File && c.Key != PartialKey {
			cfg = append(cfg, Config{c.Key, string(c.Value)})
		}
	}
	return cfg
}

func (f *BenchFile) write() error {
	b, err := f.bytes()
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	return WriteFileAtomic(f.Path, b)
}

func hasKey(r *benchfmt.Result, key string) bool {
	for _, c := range r.Config {
		if c.Key == key {
			return true
		}
	}
	return false
}

// ISAKey is the configuration key an emulated instruction set's count rows carry (isa: pi4;
// counts.ISA.Config); the host's rows have none.
const ISAKey = "isa"
