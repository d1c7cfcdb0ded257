package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareTrustFlags: a compare whose side is loaded (env.json's measured other work),
// partial (bench.txt's partial marker) or emulated says so on the gate line, in the
// markdown and in the JSON, naming the side; a quiet, complete, native pair says nothing.
func TestCompareTrustFlags(t *testing.T) {
	ref, _ := filepath.Glob("../../results/*-*-*/bench.txt")
	if len(ref) == 0 {
		t.Skip("no reference run under results/ (a board runs the test binaries without the repository's results): skipped")
	}
	refDir := filepath.Dir(ref[0])
	// side copies the reference run into a results directory, with env.json's other work
	// set to other and edit applied to bench.txt.
	side := func(other float64, edit func(string) string) string {
		dir := t.TempDir()
		b, err := os.ReadFile(ref[0])
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(edit(string(b))), 0o644)
		var env map[string]any
		eb, _ := os.ReadFile(filepath.Join(refDir, "env.json"))
		if err := json.Unmarshal(eb, &env); err != nil {
			t.Fatal(err)
		}
		env["cpu_share"].(map[string]any)["other_cpu_fraction"] = other
		eb, _ = json.Marshal(env)
		os.WriteFile(filepath.Join(dir, "env.json"), eb, 0o644)
		return dir
	}
	same := func(s string) string { return s }
	partial := func(s string) string {
		// The marker a stopped run writes, and only the first 40 result lines.
		lines := strings.SplitAfter(s, "\n")
		var out []string
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "Benchmark") {
				if n++; n > 40 {
					continue
				}
			}
			out = append(out, l)
		}
		return strings.Replace(strings.Join(out, ""), "emulated: no\n", "emulated: no\npartial: 40 of 2230 results finished (interrupted)\n", 1)
	}
	emulated := func(s string) string { return strings.Replace(s, "emulated: no\n", "emulated: qemu-aarch64\n", 1) }
	for _, c := range []struct {
		name     string
		old, new string
		gate     string // the gate line's flags
		flag     string // in the markdown and JSON
	}{
		{"NEW loaded (54% other work)", side(0, same), side(0.54, same), "[NEW: Loaded]", "Loaded (other work took 54% of the CPUs' time during the run)"},
		{"NEW partial", side(0, same), side(0, partial), "[NEW: partial]", "partial: 40 of 2230 results finished (interrupted)"},
		{"OLD emulated and loaded", side(0.2, emulated), side(0, same), "[OLD: Loaded, emulated]", "emulated (qemu-aarch64)"},
	} {
		out, errOut, code := cli("compare", "-ignore", "emulated", "-fail", "allocs/op>0", c.old, c.new)
		if code == 2 || !strings.Contains(out, c.gate) || !strings.Contains(out, "\ntrust: ") {
			t.Errorf("%s: exit %d (%s); want %q on the gate line:\n%s", c.name, code, errOut, c.gate, out[max(0, len(out)-800):])
		}
		md, _, _ := cli("compare", "-ignore", "emulated", "-format", "markdown", c.old, c.new)
		if !strings.Contains(md, "> [!WARNING]") || !strings.Contains(md, c.flag) {
			t.Errorf("%s: markdown lacks %q:\n%.1500s", c.name, c.flag, md)
		}
		js, _, _ := cli("compare", "-ignore", "emulated", "-format", "json", c.old, c.new)
		var doc struct{ Old, New struct{ Flags []string } }
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(append(doc.Old.Flags, doc.New.Flags...), "|"), c.flag) {
			t.Errorf("%s: json flags %q and %q lack %q", c.name, doc.Old.Flags, doc.New.Flags, c.flag)
		}
	}
	quiet := side(0, same)
	out, _, _ := cli("compare", "-fail", "allocs/op>0", quiet, quiet)
	if strings.Contains(out, "trust:") || strings.Contains(out, "[OLD") || strings.Contains(out, "[NEW") {
		t.Errorf("a quiet, complete pair is flagged:\n%s", out[max(0, len(out)-400):])
	}
}
