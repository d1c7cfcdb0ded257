package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
