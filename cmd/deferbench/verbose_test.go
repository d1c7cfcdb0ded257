package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompareVerboseGoTest: go test -v -bench output in which a benchmark printed text while
// it ran is read as the benchmark format's reader reads it: the well-formed results are
// kept, each line that begins like a benchmark line but is not one is skipped with a note
// naming its file and line, and the runs are compared.
func TestCompareVerboseGoTest(t *testing.T) {
	clean := func(ns float64) string {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\npkg: vb\ncpu: Test CPU\n")
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkFoo-2   \t    2000\t       %v ns/op\n", ns+float64(i))
		}
		return writeFile(t, "bench.txt", b.String())
	}
	// verbose writes six results of BenchmarkFoo, each run preceded by what shape prints.
	verbose := func(shape func(i int) string) string {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\npkg: vb\ncpu: Test CPU\n=== RUN   TestSetup\n--- PASS: TestSetup (0.00s)\n")
		for i := range 6 {
			b.WriteString(shape(i))
			fmt.Fprintf(&b, "BenchmarkFoo-2   \t    2000\t       %v ns/op\n", 200+float64(i))
		}
		b.WriteString("PASS\nok  \tvb\t0.194s\n")
		return writeFile(t, "verbose.txt", b.String())
	}
	for _, c := range []struct {
		name    string
		shape   func(i int) string
		skipped []int // the lines noted as skipped (at most three are named)
	}{
		{"name line with a tab, its output, a stray iteration/ns line", func(i int) string {
			return "BenchmarkFoo-2   \t\nsetting up 2000 items\n    2000\t       999 ns/op\n"
		}, []int{7, 11, 15}},
		{"output on the name's line, then the stray line", func(i int) string {
			return "BenchmarkFoo-2   \tsetting up\n    2000\t       999 ns/op\n"
		}, []int{7, 10, 13}},
		{"output that begins with Benchmark", func(i int) string {
			return "BenchmarkFoo\nBenchmarking 3 items\n"
		}, []int{8, 11, 14}},
	} {
		old, new := clean(100), verbose(c.shape)
		out, errOut, code := cli("compare", old, new)
		if code != 0 || !strings.Contains(out, "n=6+6") || !strings.Contains(out, "+97.56%") {
			t.Errorf("%s: exit %d (%s); want the six real results compared (+97.56%%):\n%s", c.name, code, errOut, out)
		}
		for _, l := range c.skipped {
			if want := fmt.Sprintf("%s:%d: skipped, not a well-formed benchmark line", new, l); !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, want, errOut)
			}
		}
		if !strings.Contains(errOut, new+": 3 more lines skipped likewise") {
			t.Errorf("%s: stderr does not count the other skipped lines:\n%s", c.name, errOut)
		}
	}
	// A file with no well-formed line is still refused, at its first bad line.
	bad := writeFile(t, "bad.txt", "BenchmarkFoo-2 \tsetting up\nBenchmarkFoo-2 10 5 ns/op 0 B/op 0\n")
	if _, errOut, code := cli("compare", clean(100), bad); code != 2 || !strings.Contains(errOut, bad+":1: malformed benchmark line") {
		t.Errorf("a file of malformed lines only: exit %d, stderr %q; want exit 2 at line 1", code, errOut)
	}
	// Prose with a line that starts with "Benchmark" (a README) has no result, and no line
	// with an iteration count: it is not a results file, not one with a line to correct.
	prose := writeFile(t, "notes.md", "# Notes\n\nundecided: more text\nBenchmark names are BenchmarkX/key=value.\n")
	for _, cmd := range [][]string{{"compare", prose, prose}, {"report", prose}} {
		if _, errOut, code := cli(cmd...); code != 2 || !strings.Contains(errOut, prose+" is not a Go benchmark results file") || strings.Contains(errOut, "correct or delete") {
			t.Errorf("%s of prose: exit %d, stderr %q; want exit 2, not a results file", cmd[0], code, errOut)
		}
	}
	// A line cut short among good ones is skipped too, with its line.
	cut := writeFile(t, "cut.txt", "goarch: amd64\n\nBenchmarkX-2 10 5 ns/op\nBenchmarkX-2 10 5 ns/op 0 B/op 0\n")
	if _, errOut, code := cli("compare", cut, cut); code != 0 || !strings.Contains(errOut, cut+":4: skipped, not a well-formed benchmark line (missing units)") {
		t.Errorf("a line cut short: exit %d, stderr %q; want a note at line 4", code, errOut)
	}
}
