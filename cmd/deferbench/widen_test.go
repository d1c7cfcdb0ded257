package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/internal/racetest"
)

// TestWidenedNoiseGainsNoMeets: the reference run's bench.txt with every sample moved three
// times as far from its benchmark's median (per unit) must not show any strategy meeting a
// requirement of "Which to pick" that the run as measured does not show it meeting: more
// noise can only move verdicts toward undecided.
func TestWidenedNoiseGainsNoMeets(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it rebuilds the reference run's report twice, on one goroutine")
	ref, err := filepath.Glob("../../results/*-*-*/bench.txt")
	if err != nil || len(ref) == 0 {
		t.Skip("no reference run under results/: skipped")
	}
	src, err := os.ReadFile(ref[0])
	if err != nil {
		t.Fatal(err)
	}
	pick := func(bench []byte) map[string][]string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bench.txt"), bench, 0o644); err != nil {
			t.Fatal(err)
		}
		if env, err := os.ReadFile(filepath.Join(filepath.Dir(ref[0]), "env.json")); err == nil {
			os.WriteFile(filepath.Join(dir, "env.json"), env, 0o644)
		}
		if err := runContext(t.Context(), []string{"report", dir}, io.Discard, io.Discard); err != nil {
			t.Fatalf("report: %v", err)
		}
		// report.md's rows fold the variants in; details.md has a row per variant.
		out := map[string][]string{}
		for _, f := range []string{"report.md", "details.md"} {
			rep, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for need, names := range pickTable(string(rep)) {
				out[f+": "+need] = names
			}
		}
		return out
	}
	orig, wide := pick(src), pick(widen(src, 3))
	if len(orig) == 0 {
		t.Fatal("no Which to pick rows in the reference report")
	}
	gained, lost := 0, 0
	for need, names := range wide {
		for _, n := range names {
			if !slices.Contains(orig[need], n) {
				t.Errorf("%s: %s meets it with samples widened ×3, not as measured (as measured: %v)", need, n, orig[need])
				gained++
			}
		}
	}
	for need, names := range orig {
		for _, n := range names {
			if !slices.Contains(wide[need], n) {
				lost++
			}
		}
	}
	t.Logf("%d requirements; widened ×3: %d meets lost, %d gained", len(orig), lost, gained)
}

// pickTable returns the "Which to pick" table of a report: requirement → strategies shown
// meeting it.
func pickTable(rep string) map[string][]string {
	out := map[string][]string{}
	_, sec, ok := strings.Cut(rep, "## Which to pick")
	if !ok {
		return out
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	for _, l := range strings.Split(sec, "\n") {
		cells := strings.Split(l, " | ")
		if !strings.HasPrefix(l, "| ") || len(cells) < 3 || strings.HasPrefix(l, "| requirement") {
			continue
		}
		need := strings.TrimPrefix(cells[0], "| ")
		if cells[1] == "none shown" {
			out[need] = nil
			continue
		}
		out[need] = strings.Split(cells[1], ", ")
	}
	return out
}

// widen moves every sample of bench k times as far from the median of its benchmark and unit
// (clamped at 0 for a sample pushed below it): the same run, noisier.
func widen(bench []byte, k float64) []byte {
	lines := strings.Split(string(bench), "\n")
	type key struct{ name, unit string }
	vals := map[key][]float64{}
	each := func(f func(i int, name string, fields []string, j int, v float64)) {
		for i, l := range lines {
			fields := strings.Fields(l)
			if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
				continue
			}
			for j := 2; j+1 < len(fields); j += 2 {
				if v, err := strconv.ParseFloat(fields[j], 64); err == nil {
					f(i, fields[0], fields, j, v)
				}
			}
		}
	}
	each(func(_ int, name string, fields []string, j int, v float64) {
		vals[key{name, fields[j+1]}] = append(vals[key{name, fields[j+1]}], v)
	})
	med := map[key]float64{}
	for kk, vs := range vals {
		sort.Float64s(vs)
		m := vs[len(vs)/2]
		if len(vs)%2 == 0 {
			m = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
		}
		med[kk] = m
	}
	out := make([][]string, len(lines))
	each(func(i int, name string, fields []string, j int, v float64) {
		if out[i] == nil {
			out[i] = slices.Clone(fields)
		}
		m := med[key{name, fields[j+1]}]
		out[i][j] = strconv.FormatFloat(max(0, m+k*(v-m)), 'g', -1, 64)
	})
	for i, f := range out {
		if f != nil {
			lines[i] = strings.Join(f, "\t")
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
