package layering_test

import (
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/deferbench/deferbench"

// deps returns the packages, standard library excluded, that the packages matched by patterns
// import directly or indirectly, keyed by each matched package.
func deps(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	args := append([]string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}, patterns...)
	cmd := exec.Command("go", args...)
	// The library module alone: the workspace would add the CLI's module, whose packages
	// module+"/..." also matches.
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var ds []string
		for _, d := range f[1:] {
			if strings.Contains(strings.SplitN(d, "/", 2)[0], ".") { // not the standard library
				ds = append(ds, d)
			}
		}
		m[f[0]] = ds
	}
	if len(m) == 0 {
		t.Fatalf("go list %s matched no package", strings.Join(patterns, " "))
	}
	return m
}

// within reports whether pkg is dir or a package below it, dir relative to the module.
func within(pkg, dir string) bool {
	rel, ok := strings.CutPrefix(pkg, module+"/")
	return ok && (rel == dir || strings.HasPrefix(rel, dir+"/"))
}

func TestModuleImportsOnlyTheStandardLibrary(t *testing.T) {
	for pkg, ds := range deps(t, module+"/...") {
		for _, d := range ds {
			if d != module && !strings.HasPrefix(d, module+"/") {
				t.Errorf("%s imports %s, outside the standard library", pkg, d)
			}
		}
	}
}

func TestCoreImportsNoStrategy(t *testing.T) {
	core := []string{module + "/ecs", module + "/deferral", module + "/conformance/...", module + "/workload"}
	for pkg, ds := range deps(t, core...) {
		for _, d := range ds {
			if within(d, "strategies") {
				t.Errorf("%s imports %s: the core imports no strategy", pkg, d)
			}
		}
	}
}

func TestStrategiesImportNoWorkload(t *testing.T) {
	for pkg, ds := range deps(t, module+"/strategies/...") {
		rel := strings.TrimPrefix(pkg, module+"/")
		if path.Dir(rel) != "strategies" { // an adapter below a strategy, not the strategy
			continue
		}
		for _, d := range ds {
			for _, banned := range []string{"workload", "conformance", "internal/layering"} {
				if within(d, banned) {
					t.Errorf("%s imports %s: a strategy imports no %s", pkg, d, banned)
				}
			}
		}
	}
}
