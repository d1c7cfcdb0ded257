package rundir

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// drawPlots has draw write the charts into a fresh directory beside plots and, when it drew
// them all, puts that directory in place of plots, so that plots/ holds the charts of one
// build and no other: a chart a scenario no longer draws (its rows gone from bench.txt) does
// not stay behind, and a build that fails halfway (a bad value, a full disk) leaves the old
// charts whole instead of half replaced. It returns the charts' paths under plots. A plots
// that is not a directory, or that cannot be written, is refused as writing into it would
// be, and left as it is; with no chart drawn, plots is left as it is too.
func drawPlots(plots string, draw func(dir string) ([]string, error)) ([]string, error) {
	if fi, err := os.Lstat(plots); err == nil {
		if !fi.IsDir() {
			return nil, &fs.PathError{Op: "mkdir", Path: plots, Err: syscall.ENOTDIR}
		}
		f, err := os.CreateTemp(plots, ".writable-")
		if err != nil {
			return nil, err
		}
		f.Close()
		os.Remove(f.Name())
	}
	// What a build killed while it drew left behind (the caller holds the directory).
	if stale, _ := filepath.Glob(filepath.Join(filepath.Dir(plots), ".plots.new-*")); len(stale) > 0 {
		for _, d := range stale {
			os.RemoveAll(d)
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(plots), ".plots.new-")
	if err != nil {
		return nil, err
	}
	files, err := draw(tmp)
	if err != nil || len(files) == 0 {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	old := ""
	if _, err := os.Lstat(plots); err == nil {
		old = tmp + ".old"
		if err := os.Rename(plots, old); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
	}
	if err := os.Rename(tmp, plots); err != nil {
		if old != "" {
			os.Rename(old, plots)
		}
		os.RemoveAll(tmp)
		return nil, err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	for i, f := range files {
		files[i] = filepath.Join(plots, strings.TrimPrefix(f, tmp+string(filepath.Separator)))
	}
	return files, nil
}
