package harness_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCorePackagesImportOnlyTheStandardLibrary guards the library's promise: importing a strategy pulls in
// nothing outside the standard library and the module's own core packages.
func TestCorePackagesImportOnlyTheStandardLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	core := []string{"ecs", "deferral", "conformance", "strategies/...", "workload"}
	args := []string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}
	for _, p := range core {
		args = append(args, "github.com/deferbench/deferbench/"+p)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if !strings.HasPrefix(dep, "github.com/deferbench/deferbench/") {
			t.Errorf("core packages import %s, outside the standard library", dep)
			continue
		}
		rest := strings.TrimPrefix(dep, "github.com/deferbench/deferbench/")
		if strings.HasPrefix(rest, "harness") || strings.HasPrefix(rest, "cmd") || strings.HasPrefix(rest, "envinfo") {
			t.Errorf("core packages import %s, a harness package", dep)
		}
	}
}

// TestStrategiesImportNoWorkload: a strategy is a library of its own: importing one registers
// no workload components and pulls in neither the workload nor the harness.
func TestStrategiesImportNoWorkload(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "github.com/deferbench/deferbench/strategies/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(dep, "github.com/deferbench/deferbench/")
		if !ok {
			continue
		}
		for _, banned := range []string{"workload", "conformance", "cmd", "harness", "internal/harness"} {
			if rest == banned || strings.HasPrefix(rest, banned+"/") {
				t.Errorf("a strategy imports %s", dep)
			}
		}
	}
}
