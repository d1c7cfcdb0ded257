package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/input"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
)

var reportCommand = &command{
	name:    "report",
	args:    "DIR",
	summary: "rebuild summary.json, report.md and plots/ in results directory DIR from its bench.txt (a killed run, say)",
	detail: `DIR may be the bench.txt itself. The results directory is held with the run's lock file
while its files are rewritten; a lock file whose process no longer exists (a killed run) is
reclaimed with a note. A bench.txt still marked "run in progress" by a run that was killed
is marked "N results finished (run killed)" in bench.txt, env.json and the new files.`,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		return func(args []string) error {
			if len(args) != 1 {
				return usagef("report: want one results directory, got %d arguments", len(args))
			}
			return rebuildReport(e, args[0])
		}
	},
}

// rebuildReport is deferbench report DIR.
func rebuildReport(e *env, arg string) error {
	dir := arg
	fi, err := os.Stat(dir)
	if err != nil {
		return usagef("report: %s is not a results directory (no such file or directory)", arg)
	}
	if !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	rs, err := input.ReadRun("report", arg)
	if err != nil {
		return err
	}
	if !fi.IsDir() && filepath.Base(arg) != "bench.txt" {
		// Writing summary.json, report.md and plots/ beside any results file would overwrite
		// whatever report.md lies beside it (a project's own, in its root).
		return usagef("report: %s is not a results directory or its bench.txt: report writes summary.json, report.md and plots/ beside it; move it to DIR/bench.txt and give DIR", arg)
	}
	rd, err := holdResultsDir("report", dir, e.stderr)
	if err != nil {
		return err
	}
	defer rd.Release()

	envPath := filepath.Join(dir, "env.json")
	var doc *results.Env
	if b, err := results.ReadFileLimited(envPath, results.MaxJSONBytes); err == nil {
		var d results.Env
		if err := json.Unmarshal(b, &d); err != nil {
			fmt.Fprintf(e.stderr, "deferbench: report: note: %s is not valid JSON (%v); NumCPU, load average and other work unknown\n", envPath, err)
		} else {
			doc = &d
		}
	} else if errors.Is(err, results.ErrNotRegular) || errors.Is(err, results.ErrTooLarge) {
		return usagef("report: %v: remove it or give the results directory deferbench run wrote", err)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: %w", err)
	}

	partial := results.Partial(rs)
	if partial == results.InProgress {
		// The run that wrote this is gone (we hold its lock): it was killed before it could
		// finish its files.
		partial = fmt.Sprintf("%d results finished (run killed; files rebuilt by deferbench report)", len(rs))
		if err := results.RewriteBenchFile(filepath.Join(dir, "bench.txt"), rs, partial); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if doc != nil {
			doc.Partial = partial
			if err := results.WriteJSON(envPath, doc); err != nil {
				return fmt.Errorf("report: %w", err)
			}
		}
		fmt.Fprintf(e.stderr, "deferbench: report: note: the run was killed; marked bench.txt partial: %s\n", partial)
	}

	var attr *results.AttributionDoc
	if b, err := results.ReadFileLimited(filepath.Join(dir, "summary.json"), results.MaxJSONBytes); err == nil {
		var old results.SummaryFile
		if json.Unmarshal(b, &old) == nil {
			attr = old.Attribution // the profiles' attribution cannot be rebuilt from bench.txt
		}
	}
	plotErr, err := rundir.Outputs(rundir.Dir{Path: dir, Results: rs, Config: results.FileConfig(rs), Partial: partial, Attr: attr, Env: doc})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if plotErr != nil {
		return render.PlotsError("report: rebuilt summary.json and report.md (without charts), not plots/", filepath.Join(dir, "plots"), plotErr)
	}
	fmt.Fprintf(e.stderr, "deferbench: report: rebuilt summary.json, report.md and plots/ in %s from %d results\n", dir, len(rs))
	return nil
}

// holdResultsDir holds the existing results directory dir for rewriting its files, as the
// command cmd: a directory a live run holds is a usage error saying to wait for it, and a
// reclaimed stale lock is noted on stderr. The caller releases it.
func holdResultsDir(cmd, dir string, stderr io.Writer) (*results.RunDir, error) {
	rd, err := results.HoldRunDir(dir)
	var de *results.DirError
	if errors.As(err, &de) {
		fix := "choose a writable results directory"
		if errors.Is(err, results.ErrDirInUse) {
			fix = "wait for that run to finish"
		}
		return nil, usagef("%s: %s: %s", cmd, de.Error(), fix)
	}
	if err != nil {
		return nil, err
	}
	if rd.Note != "" {
		fmt.Fprintf(stderr, "deferbench: %s: note: %s\n", cmd, rd.Note)
	}
	return rd, nil
}
