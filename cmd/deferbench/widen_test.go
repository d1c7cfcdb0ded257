package main

import (
	"fmt"
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
	ref, src := referenceRun(t, "")
	env := filepath.Join(filepath.Dir(ref), "env.json")
	orig, wide := pickOf(t, src, env), pickOf(t, widen(src, 3), env)
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

// referenceRun returns the path of the checked-in reference run's bench.txt and its
// contents, or skips the test, saying why (why is appended to the reason) where there is none
// (a board runs the test binaries without the repository's results).
func referenceRun(t *testing.T, why string) (string, []byte) {
	t.Helper()
	ref, err := filepath.Glob("../../results/*-*-*/bench.txt")
	if err != nil || len(ref) == 0 {
		t.Skip("no reference run under results/" + why + ": skipped")
	}
	src, err := os.ReadFile(ref[0])
	if err != nil {
		t.Fatal(err)
	}
	return ref[0], src
}

// pickOf writes bench (and the env.json at env, if any) into a new directory, runs report on
// it and returns the "Which to pick" rows of report.md and details.md: "file: need" → the
// strategies shown meeting it.
func pickOf(t *testing.T, bench []byte, env string) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), bench, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(env); err == nil {
		os.WriteFile(filepath.Join(dir, "env.json"), b, 0o644)
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

// TestWidenedMethodFlipGainsNoMeets: a breaker's Readers run (8 interleaved repetitions) whose
// ratio method flips from paired to unpaired when every sample is moved twice as far from its
// median. Read from the method shown, the unpaired interval then separated lazyguarded-pass
// from hybrid, which the paired one had not, and lazyguarded-pass gained "readers never wait"
// with more noise. Separations are now read from both methods' intervals (a U test's by
// their hull, the signed-rank test's by the paired one whichever is shown).
func TestWidenedMethodFlipGainsNoMeets(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it rebuilds two reports, on one goroutine")
	_, src := referenceRun(t, " (its header declares the strategies' capabilities)")
	// The header: configuration and capability lines, up to the first benchmark.
	head, _, _ := strings.Cut(string(src), "\nBenchmark")
	samples := map[string][]float64{
		"cmdbuffer":        {2114.77, 2057.58, 2076.01, 1924.07, 2008.15, 2038.12, 2104.58, 1979.73},
		"versioned":        {2158.68, 2026.39, 2115.67, 2312.43, 2319.94, 2188.70, 2167.84, 2211.92},
		"handrolled":       {2291.00, 2229.04, 2249.01, 2084.41, 2175.49, 2207.97, 2279.97, 2144.71},
		"hybrid":           {2052.65, 1994.24, 1814.83, 1929.81, 1995.15, 2003.05, 2009.08, 2000.33},
		"lazyguarded":      {2096.18, 2126.47, 2116.26, 2204.93, 2160.66, 2136.47, 2102.03, 2167.72},
		"lazyguarded-pass": {2040, 2040, 2040, 2040, 2040, 2040, 2040, 2040},
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	for i := range 8 {
		for _, s := range []string{"cmdbuffer", "versioned", "handrolled", "hybrid", "lazyguarded", "lazyguarded-pass"} {
			fmt.Fprintf(&b, "BenchmarkReaders/strategy=%s/readers=1-2 1000 %v p99-read-ns\n", s, samples[s][i])
		}
	}
	orig := pickOf(t, []byte(b.String()), "")
	for _, k := range []float64{2, 3} {
		for need, names := range pickOf(t, widen([]byte(b.String()), k), "") {
			for _, n := range names {
				if !slices.Contains(orig[need], n) {
					t.Errorf("widened ×%v: %s: %s meets it, not as measured (as measured: %v)", k, need, n, orig[need])
				}
			}
		}
	}
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
