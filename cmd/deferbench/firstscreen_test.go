package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/internal/racetest"
)

// TestReferenceReportDecidesOnFirstScreen: the checked-in reference run's report.md fits a
// reading (at most 300 lines and 40 kB: the per-variant verdicts and the long tables are in
// details.md), and its first 20 lines name the pick and how sure it is, in a phrase that names
// the trust flags the report raises.
func TestReferenceReportDecidesOnFirstScreen(t *testing.T) {
	ref, err := filepath.Glob("../../results/*-*-*/report.md")
	if err != nil || len(ref) == 0 {
		t.Skip("no reference run under results/: skipped")
	}
	for _, path := range ref {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep := string(b)
		lines := strings.Split(rep, "\n")
		if len(lines) > 300 || len(b) > 40_000 {
			t.Errorf("%s: %d lines, %d bytes; want at most 300 lines and 40 kB", path, len(lines), len(b))
		}
		first := strings.Join(lines[:min(20, len(lines))], "\n")
		pick := regexp.MustCompile(`(?m)^- \*\*Pick\*\*: .*\b(cmdbuffer|handrolled|hybrid|versioned|lazyguarded|undecided)\b`)
		if !pick.MatchString(first) {
			t.Errorf("%s: the first 20 lines do not name the pick:\n%s", path, first)
		}
		sure := regexp.MustCompile(`(?m)^- \*\*How sure\*\*: (firm|fair|tentative|undecided)\b(.*)$`)
		m := sure.FindStringSubmatch(first)
		if m == nil {
			t.Fatalf("%s: the first 20 lines do not say how sure the pick is:\n%s", path, first)
		}
		for _, flag := range regexp.MustCompile(`(?m)^\*\*([A-Z][a-z]+( [a-z]+)*)\*\*: `).FindAllStringSubmatch(rep, -1) {
			if !strings.Contains(m[2], flag[1]) {
				t.Errorf("%s: the report raises %s, the how-sure phrase %q does not name it", path, flag[1], m[0])
			}
		}
		if !regexp.MustCompile("(?m)^- \\*\\*Surer\\*\\*: `deferbench run [^`]*`").MatchString(first) {
			t.Errorf("%s: the first 20 lines give no command that would make the pick surer:\n%s", path, first)
		}
		if !strings.Contains(first, "| need | pick | how sure |") {
			t.Errorf("%s: the first 20 lines have no pick per kind of need:\n%s", path, first)
		}
	}
}

// TestQuickReportBlamesRepetitions: the reference run cut to 3 repetitions per benchmark (a
// -quick run's count) has its undecided requirements put down to too few repetitions, with
// the fix (raise -count), never to noise; the first screen's how-sure phrase says so too.
func TestQuickReportBlamesRepetitions(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it rebuilds the report of the reference run, on one goroutine")
	_, src := referenceRun(t, "")
	var b strings.Builder
	seen := map[string]int{}
	for _, l := range strings.SplitAfter(string(src), "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "Benchmark") {
			if seen[f[0]]++; seen[f[0]] > 3 {
				continue
			}
		}
		b.WriteString(l)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runContext(t.Context(), []string{"report", dir}, io.Discard, io.Discard); err != nil {
		t.Fatalf("report: %v", err)
	}
	rep, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(rep), "\n")
	first := strings.Join(lines[:min(20, len(lines))], "\n")
	if !strings.Contains(first, "with too few repetitions for the U test to judge (raise -count") {
		t.Errorf("the 3-repetition report does not put its undecided requirements down to too few repetitions:\n%s", first)
	}
	if strings.Contains(first, "noise joined") || strings.Contains(first, "by noise") {
		t.Errorf("the 3-repetition report blames noise:\n%s", first)
	}
	// Most requirements undecided: no pick, and How sure says undecided.
	// (A bench.txt without env.json: the load is unknown too, and named first.)
	if !strings.Contains(first, "**How sure**: undecided: Load unknown, Too few repetitions") || !strings.Contains(first, "**Pick**: No pick yet") {
		t.Errorf("the how-sure phrase does not name Too few repetitions:\n%s", first)
	}
}
