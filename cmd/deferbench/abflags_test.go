package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPairedCompareCarriesRoundsLoaded: the sides of an A/B run (DIR/base, DIR/head, each a
// merged bench.txt over rounds/NNN/ runs with their own env.json) carry the Loaded flag of
// their rounds in compare -paired's text and markdown; it used to say nothing, while each
// round's report.md said Loaded.
func TestPairedCompareCarriesRoundsLoaded(t *testing.T) {
	out := t.TempDir()
	side := func(name string, other []float64) string {
		dir := filepath.Join(out, name)
		var b strings.Builder
		fmt.Fprintln(&b, "deferbench: test")
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkStage/strategy=cmdbuffer/cmd=typed-2 1000 %d ns/op\n", 100+i)
		}
		for r, o := range other {
			rd := filepath.Join(dir, "rounds", fmt.Sprintf("%03d", r+1))
			if err := os.MkdirAll(rd, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(rd, "bench.txt"), []byte(b.String()), 0o644)
			env, _ := json.Marshal(map[string]any{"cpu_share": map[string]any{"wall_seconds": 10, "cpus": 2, "run_fraction": 0.2, "other_cpu_fraction": o, "steal_fraction": 0}})
			os.WriteFile(filepath.Join(rd, "env.json"), env, 0o644)
		}
		os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(b.String()), 0o644)
		return dir
	}
	base := side("base", []float64{0.05, 0.72, 0.30})
	head := side("head", []float64{0.01, 0.02, 0.03})
	stdout, stderr, code := cli("compare", "-paired", base, head)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "Loaded (other work took up to 72% of the CPUs' time, in 2 of 3 rounds)"
	mdText, _, _ := cli("compare", "-paired", "-format", "markdown", base, head)
	if !strings.Contains(stdout+stderr, want) || !strings.Contains(string(mdText), want) {
		t.Errorf("compare -paired does not carry BASE's rounds' Loaded flag %q:\n%s%s\nmarkdown:\n%s", want, stdout, stderr, mdText)
	}
	if strings.Contains(stdout+string(mdText), "HEAD: Loaded") || strings.Count(stdout, "Loaded (") > 1 {
		t.Errorf("HEAD flagged Loaded, whose rounds were quiet:\n%s", stdout)
	}
}
