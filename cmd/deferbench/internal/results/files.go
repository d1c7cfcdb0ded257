package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/envinfo"
)

// Env is env.json: the environment before and after the run, and the run's options.
type Env struct {
	Deferbench string `json:"deferbench"`
	// Revision is the git revision the binary was built from (Revision); empty when unknown
	// and in an older env.json.
	Revision  string       `json:"revision,omitempty"`
	Args      []string     `json:"args"`
	Started   string       `json:"started"`
	Finished  string       `json:"finished,omitempty"`
	Partial   string       `json:"partial,omitempty"`
	Throttled *bool        `json:"throttled,omitempty"`
	Before    envinfo.Env  `json:"before"`
	After     *envinfo.Env `json:"after,omitempty"`
	CPUShare  *CPUShare    `json:"cpu_share,omitempty"`
	Options   RunOptions   `json:"options"`
	// Counts is the count tier's record (deferbench run -measure instructions), and why
	// hardware counters are or are not read here; nil in an older env.json.
	Counts *CountsEnv `json:"counts,omitempty"`
}

// CPUShare is env.json's cpu_share: how the machine's CPU time was spent between the two
// captures, by the run, by other work and by the hypervisor (steal; envinfo.CPUShareOf), and
// the wall time between them. Absent where it was not measured: no /proc/stat, a run killed
// before the second capture, an older deferbench.
type CPUShare struct {
	Seconds float64 `json:"wall_seconds"`
	envinfo.CPUShare
}

// RunOptions is env.json's options: what the run was asked to measure.
type RunOptions struct {
	Quick      bool     `json:"quick"`
	Count      int      `json:"count"`
	Benchtime  string   `json:"benchtime"`
	Scenarios  []string `json:"scenarios"`
	Strategies []string `json:"strategies"`
	Procs      []int    `json:"procs,omitempty"`
	// Measure is what the run measured: "time", "instructions" or both, comma-separated,
	// with "cachesim" when cachegrind simulated the caches; empty in an older env.json
	// (time).
	Measure string `json:"measure,omitempty"`
}

// WriteJSON writes v as indented JSON to path, atomically (WriteFileAtomic).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// SummaryFile is summary.json: per benchmark and unit the median and 95% confidence interval
// over the repetitions (golang.org/x/perf/benchmath), and with -profile the CPU attribution.
type SummaryFile struct {
	Deferbench string    `json:"deferbench"`
	Partial    string    `json:"partial,omitempty"`
	Summaries  []Summary `json:"summaries"`
	// Counts holds the count tier's rows with the spread over their repetitions
	// (deferbench run -measure instructions); Summaries holds their medians too.
	Counts      []CountSummary  `json:"counts,omitempty"`
	Attribution *AttributionDoc `json:"attribution,omitempty"`
}

// AttributionDoc is summary.json's attribution: the CPU attribution of a -profile run.
type AttributionDoc struct {
	Categories []string      `json:"categories"`
	ByStrategy []Attribution `json:"by_strategy"`
	ByScenario []Attribution `json:"by_scenario"`
}

// InProgress is the partial marker a run writes while it runs; a run killed outright (no
// chance to finish its files) leaves it behind.
const InProgress = "true (run in progress)"

// MaxJSONBytes bounds what report and fleet read of a results directory's env.json and
// summary.json (a default run writes tens of KB).
const MaxJSONBytes = 16 << 20

// Attribution is where one strategy's CPU time went in one scenario, from its CPU profile:
// each sample is charged to the first category that a frame matches, walking from the leaf
// to the root (so an allocation made while staging counts as allocation).
type Attribution struct {
	Scenario string             `json:"scenario"`
	Strategy string             `json:"strategy"`
	CPU      float64            `json:"cpu_seconds"`
	Share    map[string]float64 `json:"share"` // category → fraction of CPU in [0, 1]
}

// AttributionCategories are the categories of Attribution.Share, in the order they are
// matched against each frame; "other" takes the rest.
var AttributionCategories = []string{"lock", "alloc", "gc", "apply", "stage", "other"}

// ReadEnv reads dir's env.json. A missing file is an error wrapping fs.ErrNotExist; one that
// is not a regular file or is over MaxJSONBytes wraps ErrNotRegular or ErrTooLarge; one that is
// not valid JSON is an *EnvError.
func ReadEnv(dir string) (*Env, error) {
	path := filepath.Join(dir, "env.json")
	b, err := ReadFileLimited(path, MaxJSONBytes)
	if err != nil {
		return nil, err
	}
	var e Env
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, &EnvError{Path: path, Err: err}
	}
	return &e, nil
}

// EnvBeside returns the env.json of the results directory that path names (the directory
// itself, or its bench.txt); nil when path is something else (a pipe, a bench.txt elsewhere)
// or the directory has no readable env.json.
func EnvBeside(path string) *Env {
	dir := path
	if fi, err := os.Stat(path); err != nil {
		return nil
	} else if !fi.IsDir() {
		if filepath.Base(path) != "bench.txt" {
			return nil
		}
		dir = filepath.Dir(path)
	}
	e, err := ReadEnv(dir)
	if err != nil {
		return nil
	}
	return e
}

// EnvsBeside returns the env.json beside path as EnvBeside does, or, for the side of an A/B
// run (a directory with rounds/NNN/ run directories and no env.json of its own), the env.json
// of each round, in round order; nil when there is none.
func EnvsBeside(path string) []*Env {
	if e := EnvBeside(path); e != nil {
		return []*Env{e}
	}
	rounds, _ := filepath.Glob(filepath.Join(path, "rounds", "[0-9][0-9][0-9]"))
	var out []*Env
	for _, r := range rounds {
		if e, err := ReadEnv(r); err == nil {
			out = append(out, e)
		}
	}
	return out
}

// EnvError is why ReadEnv refuses an env.json: Err is the JSON decoder's error.
type EnvError struct {
	Path string
	Err  error
}

func (e *EnvError) Error() string { return e.Path + " is not deferbench's env.json: " + e.Err.Error() }
func (e *EnvError) Unwrap() error { return e.Err }

// ReadAttribution returns the CPU attribution in dir's summary.json, nil when there is none
// or the file cannot be read: it cannot be rebuilt from bench.txt, so a rebuilt summary.json
// keeps it.
func ReadAttribution(dir string) *AttributionDoc {
	b, err := ReadFileLimited(filepath.Join(dir, "summary.json"), MaxJSONBytes)
	if err != nil {
		return nil
	}
	var old SummaryFile
	if json.Unmarshal(b, &old) != nil {
		return nil
	}
	return old.Attribution
}
