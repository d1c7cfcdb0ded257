package rundir

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
)

// TestMissingArgumentNamesFix: report and plot of a path that does not exist fail with a
// usage error naming the path and what to give instead, and create nothing.
func TestMissingArgumentNamesFix(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for cmd, f := range map[string]func(string, io.Writer) error{"report": Rebuild, "plot": Replot} {
		err := f(missing, io.Discard)
		if !usage.Is(err) {
			t.Fatalf("%s %s: got %v, want a usage error", cmd, missing, err)
		}
		msg := err.Error()
		for _, want := range []string{cmd + ": ", missing, "no such file or directory", "give a results directory"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s %s: error %q lacks %q", cmd, missing, msg, want)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q is more than one line", cmd, msg)
		}
	}
	if m, _ := filepath.Glob(missing + "*"); len(m) != 0 {
		t.Errorf("report/plot of a missing path created %v", m)
	}
}
