package rundir

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/envinfo"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/isabuild"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// finisher writes a run's closing files: bench.txt's and env.json's partial marker,
// summary.json, the plots and report.md. The run calls finish once its benchmarks (and
// profiles) are done; a second interrupt calls hardStop from the signal goroutine instead,
// while a benchmark may still be running, and the process exits after it. Whichever comes
// first writes the files; the other waits for it and does nothing.
type finisher struct {
	e       *env
	dir     string
	bf      *results.BenchFile
	doc     *results.Env
	envPath string
	mu      sync.Mutex // held while writing; guards doc, bf.Config and done
	done    bool
}

// finish writes the closing files with partial ("" for a complete run) and the attribution
// (nil without -profile).
func (f *finisher) finish(partial string, attr *results.AttributionDoc) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return nil
	}
	f.done = true
	return f.write(partial, attr)
}

// hardStop finishes with partial from the signal goroutine; bench.txt takes no more results.
// It reports whether it wrote the files (false: the run had finished them, or writing failed,
// which it prints).
func (f *finisher) hardStop(partial string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return false
	}
	f.done = true
	if err := f.write(partial, nil); err != nil {
		fmt.Fprintf(f.e.stderr, "deferbench: %v\n", err)
		return false
	}
	return true
}

func (f *finisher) write(partial string, attr *results.AttributionDoc) error {
	f.doc.Finished = time.Now().UTC().Format(time.RFC3339)
	f.doc.Partial = partial
	if err := f.bf.Finish(partial); err != nil {
		return err
	}
	if err := results.WriteJSON(f.envPath, f.doc); err != nil {
		return err
	}
	plotErr, err := Outputs(Dir{Path: f.dir, Results: f.bf.Results(), Config: f.bf.Config, Partial: partial, Attr: attr, Env: f.doc})
	if plotErr != nil {
		// The results are safe in bench.txt: a chart that cannot be drawn is noted, and the
		// run's files are complete without it (deferbench plot DIR draws them again).
		fmt.Fprintf(f.e.stderr, "deferbench: plots: %v\n", plotErr)
	}
	return err
}

// Dir is what Outputs writes a results directory's summary.json, plots and report.md from.
type Dir struct {
	Path    string
	Results []*benchfmt.Result
	Config  []results.Config // bench.txt's file-level configuration, without the partial marker
	Partial string
	Attr    *results.AttributionDoc // nil: none
	Env     *results.Env            // nil: no env.json (NumCPU, load average and other work unknown)
}

// Outputs writes summary.json, the plots, details.md and report.md of a run into o.Path. A failure
// to draw or write the plots is plotErr, and report.md is written without them; err is any
// other failure.
func Outputs(o Dir) (plotErr, err error) {
	sum := results.SummaryFile{Deferbench: results.Version(), Partial: o.Partial, Summaries: analysis.Summarize(o.Results), Attribution: o.Attr}
	for _, r := range counts.RowsFromResults(o.Results) {
		for _, m := range r.Measures {
			sum.Counts = append(sum.Counts, results.CountSummary{Name: r.Name, Unit: m.Unit, Median: m.Median, Spread: m.Spread, Samples: m.Samples})
		}
	}
	if err := results.WriteJSON(filepath.Join(o.Path, "summary.json"), sum); err != nil {
		return nil, err
	}
	meta := render.ReportMeta{Config: o.Config, Throttled: "unknown", Partial: o.Partial, MethodDoc: methodDoc(o.Path)}
	if o.Env != nil {
		meta.Cores = o.Env.Before.Cores
		meta.LoadBefore = o.Env.Before.LoadAvg
		meta.Counts = o.Env.Counts
		if c := o.Env.CPUShare; c != nil {
			meta.OtherWork = &render.OtherWork{CPUs: c.CPUs, Seconds: c.Seconds, Other: c.Other, Steal: c.Steal}
		} else {
			meta.NoOtherWork = envinfo.WhyNoShare(o.Env.Before, o.Env.After)
		}
	} else {
		meta.NoOtherWork = "no env.json beside bench.txt: go test's output, or results copied without it"
	}
	plots, plotErr := drawPlots(filepath.Join(o.Path, "plots"), func(dir string) ([]string, error) {
		return render.PlotWith(o.Results, dir, render.PlotOptions{Cores: meta.Cores, Flags: analysis.TrustFlags(o.Results, o.Env)})
	})
	for _, c := range o.Config {
		if c.Key == "throttled" {
			meta.Throttled = c.Value
		}
	}
	if o.Attr != nil {
		meta.Attribution = o.Attr.ByStrategy
	}
	for _, p := range plots {
		if rel, err := filepath.Rel(o.Path, p); err == nil {
			meta.Plots = append(meta.Plots, rel)
		}
	}
	var report, details bytes.Buffer
	if err := render.WriteReport(&report, o.Results, meta); err != nil {
		return plotErr, err
	}
	if err := render.WriteDetails(&details, o.Results, meta); err != nil {
		return plotErr, err
	}
	if err := results.WriteFileAtomic(filepath.Join(o.Path, "details.md"), details.Bytes()); err != nil {
		return plotErr, err
	}
	return plotErr, results.WriteFileAtomic(filepath.Join(o.Path, "report.md"), report.Bytes())
}

// env is what the run writes to and stops by.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	stop           Stop
}

// noStop is the Stop of a run without signal handling.
type noStop struct{}

func (noStop) Begin() {}

func (noStop) SetHard(func(string)) {}

// Stop is how the CLI's signal handling reaches a run: Begin says a run is in progress (the
// first interrupt then cancels the run's context); SetHard sets the function a second
// interrupt (or SIGTERM) calls, with the reason in words, to finish the files at once (nil when the run is over).
type Stop interface {
	Begin()
	SetHard(func(why string))
}

// methodDoc returns docs/method.md of the deferbench checkout that holds dir, relative to dir,
// or "" when dir lies in none (a results directory copied or written elsewhere), so that the
// report's link to it resolves wherever the directory lies.
func methodDoc(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	root, ok := isabuild.SourceRoot(abs)
	if !ok {
		return ""
	}
	doc := filepath.Join(root, "docs", "method.md")
	if fi, err := os.Stat(doc); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	rel, err := filepath.Rel(abs, doc)
	if err != nil {
		return ""
	}
	return rel
}
