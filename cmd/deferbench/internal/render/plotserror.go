package render

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
)

// ErrNotDrawn: plots/ holds something no chart build writes (a file not named *.png or
// *.svg, a directory, a link). A build replaces plots/ whole, so it refuses such a directory
// rather than delete what the user put there.
var ErrNotDrawn = errors.New("not a chart deferbench drew")

// PlotsError turns a failure to write the charts into plots (a directory) into one line
// naming it: a plots/ that cannot be written into (no permission, a file of that name, a
// read-only file system) is a usage.Error saying to make it writable, and so are a bad value
// and too many charts; cmd names the command in the line.
func PlotsError(cmd, plots string, err error) error {
	if errors.Is(err, results.ErrBadValue) {
		return usage.Errorf("%s: %v", cmd, err)
	}
	if errors.Is(err, ErrNotDrawn) {
		return usage.Errorf("%s: %v: each build replaces %s whole, which would delete it; move it out of there and run again", cmd, err, plots)
	}
	if errors.Is(err, ErrTooManyCharts) {
		return usage.Errorf("%s: %v: plot draws the scenarios of a deferbench run; give its results, or fewer benchmarks", cmd, err)
	}
	for _, bad := range []error{fs.ErrPermission, syscall.ENOTDIR, syscall.EROFS, syscall.EEXIST} {
		if errors.Is(err, bad) {
			var pe *fs.PathError
			reason := err.Error()
			if errors.As(err, &pe) {
				reason = pe.Err.Error()
			}
			return usage.Errorf("%s: %s: cannot write the charts into it (%s): make it a writable directory, or remove it", cmd, plots, reason)
		}
	}
	return fmt.Errorf("%s: %s: %w", cmd, plots, err)
}
