package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
)

// TestLabel: a results directory or its bench.txt is named by the directory, a pipe by its own
// name, and "." by the folder it stands for.
func TestLabel(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"results/run-1/bench.txt": "run-1",
		"results/run-1/":          "run-1",
		"old.txt":                 "old.txt",
		"stdin":                   "stdin",
		"/dev/fd/63":              "/dev/fd/63",
		".":                       filepath.Base(wd),
	} {
		if got := Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadRunErrors: a missing file, a directory without bench.txt and a file that holds no
// results are usage errors that name the input and say what to give.
func TestReadRunErrors(t *testing.T) {
	dir := t.TempDir()
	notResults := filepath.Join(dir, "notes.txt")
	os.WriteFile(notResults, []byte("hello\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.txt"), "no such file: give a bench.txt or a results directory"},
		{dir, "has no bench.txt"},
		{notResults, "give a bench.txt"},
	} {
		_, err := ReadRun("compare", c.path)
		var ue *usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "compare: ") {
			t.Errorf("ReadRun(%s): %v; want a usage error containing %q", c.path, err, c.want)
		}
	}
}
