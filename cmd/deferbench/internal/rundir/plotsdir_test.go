package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
)

// TestDrawPlotsReplacesWhole: plots/ holds one build's charts: a chart the new build does not
// draw is gone, a build that fails halfway leaves the old charts whole, a plots that is a
// file is refused and left, a build with no chart leaves plots/ as it was, and nothing is
// left beside it.
func TestDrawPlotsReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	plots := filepath.Join(dir, "plots")
	write := func(names ...string) func(string) ([]string, error) {
		return func(d string) ([]string, error) {
			var out []string
			for _, n := range names {
				f := filepath.Join(d, n)
				if err := os.WriteFile(f, []byte(n), 0o644); err != nil {
					return out, err
				}
				out = append(out, f)
			}
			return out, nil
		}
	}
	list := func() []string {
		es, _ := os.ReadDir(plots)
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		return n
	}
	files, err := drawPlots(plots, write("Stage.svg", "Contention.svg"))
	if err != nil || !slices.Equal(files, []string{filepath.Join(plots, "Stage.svg"), filepath.Join(plots, "Contention.svg")}) {
		t.Fatalf("first build: %v, %v", files, err)
	}
	if _, err := drawPlots(plots, write("Stage.svg")); err != nil || !slices.Equal(list(), []string{"Stage.svg"}) {
		t.Errorf("second build without Contention: plots/ holds %v (%v), want Stage.svg alone", list(), err)
	}
	failing := func(d string) ([]string, error) {
		os.WriteFile(filepath.Join(d, "Stage.svg"), []byte("half"), 0o644)
		return nil, errors.New("disk full")
	}
	if _, err := drawPlots(plots, failing); err == nil {
		t.Error("a failed build returned no error")
	}
	if b, _ := os.ReadFile(filepath.Join(plots, "Stage.svg")); string(b) != "Stage.svg" {
		t.Errorf("a failed build changed plots/Stage.svg to %q", b)
	}
	if _, err := drawPlots(plots, write()); err != nil || !slices.Equal(list(), []string{"Stage.svg"}) {
		t.Errorf("a build with no chart: plots/ holds %v (%v), want it as it was", list(), err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("beside plots/: %v, want nothing", es)
	}
	file := filepath.Join(t.TempDir(), "plots")
	os.WriteFile(file, []byte("mine"), 0o644)
	if _, err := drawPlots(file, write("Stage.svg")); err == nil {
		t.Error("plots as a file: no error")
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Error("plots as a file was changed")
	}
}

// TestDrawPlotsKeepsWhatItDidNotDraw: a plots/ holding anything a build does not write (a
// note, a folder, a link) is refused with render.ErrNotDrawn, which PlotsError turns into one
// line naming it (a usage error), and left as it was, its charts and the stranger both; the
// probe file a killed build may leave does not count.
func TestDrawPlotsKeepsWhatItDidNotDraw(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(plots string) error
	}{
		{"notes.txt", func(p string) error { return os.WriteFile(filepath.Join(p, "notes.txt"), []byte("mine"), 0o644) }},
		{"mine", func(p string) error { return os.Mkdir(filepath.Join(p, "mine"), 0o755) }},
		{"link.png", func(p string) error { return os.Symlink("/etc/hostname", filepath.Join(p, "link.png")) }},
	} {
		plots := filepath.Join(t.TempDir(), "plots")
		os.Mkdir(plots, 0o755)
		os.WriteFile(filepath.Join(plots, "Stage.svg"), []byte("old"), 0o644)
		if err := c.make(plots); err != nil {
			t.Fatal(err)
		}
		_, err := drawPlots(plots, func(d string) ([]string, error) {
			f := filepath.Join(d, "Stage.svg")
			return []string{f}, os.WriteFile(f, []byte("new"), 0o644)
		})
		if !errors.Is(err, render.ErrNotDrawn) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s in plots/: %v, want ErrNotDrawn naming it", c.name, err)
		}
		if ue := render.PlotsError("report", plots, err); !usage.Is(ue) || !strings.Contains(ue.Error(), "move it out") {
			t.Errorf("%s: PlotsError: %v, want a usage error saying to move it", c.name, ue)
		}
		if _, serr := os.Lstat(filepath.Join(plots, c.name)); serr != nil {
			t.Errorf("%s was removed: %v", c.name, serr)
		}
		if b, _ := os.ReadFile(filepath.Join(plots, "Stage.svg")); string(b) != "old" {
			t.Errorf("%s: the old chart became %q", c.name, b)
		}
		if es, _ := os.ReadDir(filepath.Dir(plots)); len(es) != 1 {
			t.Errorf("%s: beside plots/: %v, want nothing", c.name, es)
		}
	}
	plots := filepath.Join(t.TempDir(), "plots")
	os.Mkdir(plots, 0o755)
	os.WriteFile(filepath.Join(plots, ".writable-123"), nil, 0o644)
	if _, err := drawPlots(plots, func(d string) ([]string, error) {
		f := filepath.Join(d, "Stage.svg")
		return []string{f}, os.WriteFile(f, []byte("new"), 0o644)
	}); err != nil {
		t.Errorf("a probe file left by a killed build: %v, want it replaced", err)
	}
}

// TestDrawPlotsRestoresChartsMovedAside: a build killed between its two renames (SIGKILL,
// a power cut: no handler runs) leaves no plots/ and the old charts moved aside as
// .plots.new-*.old; the next build puts them back before clearing what was left, so a build
// that then fails (a bad value) still leaves the old charts as plots/.
func TestDrawPlotsRestoresChartsMovedAside(t *testing.T) {
	d := t.TempDir()
	plots := filepath.Join(d, "plots")
	aside := filepath.Join(d, ".plots.new-123.old")
	os.Mkdir(aside, 0o755)
	os.WriteFile(filepath.Join(aside, "Stage.png"), []byte("old"), 0o644)
	os.Mkdir(filepath.Join(d, ".plots.new-124"), 0o755) // the half-drawn new charts
	if _, err := drawPlots(plots, func(string) ([]string, error) { return nil, errors.New("bad value") }); err == nil {
		t.Fatal("a failing build returned no error")
	}
	if b, err := os.ReadFile(filepath.Join(plots, "Stage.png")); err != nil || string(b) != "old" {
		t.Errorf("plots/Stage.png: %q, %v; want the old chart put back", b, err)
	}
	if es, _ := os.ReadDir(d); len(es) != 1 {
		t.Errorf("beside plots/: %v, want nothing left", es)
	}
}
