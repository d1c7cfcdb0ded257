package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
)

// drawPlots has draw write the charts into a fresh directory beside plots and, when it drew
// them all, puts that directory in place of plots, so that plots/ holds the charts of one
// build and no other: a chart a scenario no longer draws (its rows gone from bench.txt) does
// not stay behind, and a build that fails halfway (a bad value, a full disk) leaves the old
// charts whole instead of half replaced. It returns the charts' paths under plots. A plots
// that is not a directory, or that cannot be written, is refused as writing into it would
// be, and left as it is; with no chart drawn, plots is left as it is too. A plots holding
// anything a build does not write (a file not named *.png or *.svg, a directory, a link) is
// refused with an error wrapping render.ErrNotDrawn and left as it is: replacing it would
// delete that. The fresh directory is a temporary of package counts, removed by a stop on a
// signal (counts.RemoveTemps).
func drawPlots(plots string, draw func(dir string) ([]string, error)) ([]string, error) {
	if fi, err := os.Lstat(plots); err == nil {
		if !fi.IsDir() {
			return nil, &fs.PathError{Op: "mkdir", Path: plots, Err: syscall.ENOTDIR}
		}
		if err := checkDrawn(plots); err != nil {
			return nil, err
		}
		f, err := os.CreateTemp(plots, ".writable-")
		if err != nil {
			return nil, err
		}
		f.Close()
		os.Remove(f.Name())
	}
	// What a build killed while it drew left behind (the caller holds the directory). One
	// killed between its two renames (SIGKILL, a power cut: no handler runs) left no plots/
	// and the old charts moved aside as .plots.new-*.old: they go back first.
	if stale, _ := filepath.Glob(filepath.Join(filepath.Dir(plots), ".plots.new-*")); len(stale) > 0 {
		if _, err := os.Lstat(plots); errors.Is(err, fs.ErrNotExist) {
			for _, d := range stale {
				if strings.HasSuffix(d, ".old") && os.Rename(d, plots) == nil {
					break
				}
			}
		}
		for _, d := range stale {
			os.RemoveAll(d) // the one put back as plots/ is gone from this name
		}
	}
	tmp, err := counts.MakeTemp(filepath.Dir(plots), ".plots.new-")
	if err != nil {
		return nil, err
	}
	defer counts.RemoveTemp(tmp) // nothing, once renamed into place
	files, err := draw(tmp)
	if err != nil || len(files) == 0 {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	// The two renames go together: a stop on a signal (counts.RemoveTemps) between them
	// would remove the new charts with the old ones moved aside, leaving no plots/.
	old := ""
	err = counts.PlaceTemp(tmp, func() error {
		if _, err := os.Lstat(plots); err == nil {
			old = tmp + ".old"
			if err := os.Rename(plots, old); err != nil {
				return err
			}
		}
		if err := os.Rename(tmp, plots); err != nil {
			if old != "" {
				os.Rename(old, plots)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err // tmp is removed by the deferred RemoveTemp
	}
	if old != "" {
		os.RemoveAll(old) // a stop meanwhile leaves it: the next build removes it (stale)
	}
	for i, f := range files {
		files[i] = filepath.Join(plots, strings.TrimPrefix(f, tmp+string(filepath.Separator)))
	}
	return files, nil
}

// checkDrawn returns an error wrapping render.ErrNotDrawn for the first entry of plots that
// no build writes: anything but a regular file named *.png or *.svg (or drawPlots' probe).
func checkDrawn(plots string) error {
	es, err := os.ReadDir(plots)
	if err != nil {
		return err
	}
	for _, e := range es {
		n := e.Name()
		if strings.HasPrefix(n, ".writable-") && e.Type().IsRegular() {
			continue // drawPlots' own probe, left by a build killed right after making it
		}
		if !e.Type().IsRegular() || !strings.HasSuffix(n, ".png") && !strings.HasSuffix(n, ".svg") {
			return fmt.Errorf("%s: %w", filepath.Join(plots, n), render.ErrNotDrawn)
		}
	}
	return nil
}
