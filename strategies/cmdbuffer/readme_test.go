package cmdbuffer_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExample builds and runs the README's library example, the program a new user
// copies first, so that it keeps compiling against the library and prints what the README
// says it prints.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("README.md is not beside the sources (a test binary run away from them)")
	}
	if err != nil {
		t.Fatal(err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	m := regexp.MustCompile("(?s)```go\n(package main\n.*?)```\n").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ```go block holding a package main")
	}
	want := regexp.MustCompile("It prints `([^`]*)`").FindSubmatch(readme)
	if want == nil {
		t.Fatal("README.md does not say what its example prints (\"It prints `...`\")")
	}
	src := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(src, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "run", src)
	cmd.Dir = "../.." // the library module resolves the example's imports
	// go run builds for the machine the go command runs on: a test binary cross-built for a
	// Pi and run under qemu-user (GOARCH=arm go test -exec qemu-arm-static) inherits GOARCH,
	// and go run would build an arm program and exec it natively ("exec format error").
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOARCH" && k != "GOARM" && k != "GOARM64" && k != "GOAMD64" && k != "GOOS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's example: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != string(want[1]) {
		t.Errorf("the README's example printed %q; the README says %q", got, want[1])
	}
}
