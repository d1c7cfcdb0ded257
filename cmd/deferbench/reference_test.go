package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/internal/racetest"
)

// TestReferenceRunRebuildsIdentically: deferbench report on the checked-in reference run
// writes the same report.md, details.md and summary.json it holds, and so does it on testdata/legacy-run,
// an older run whose bench.txt predates the capability lines, so that its "Which to pick"
// comes from analysis's fallback table. This is what keeps that table (and every rule of the
// report) from drifting unnoticed. A change meant to alter report.md rebuilds both with
// deferbench report.
func TestReferenceRunRebuildsIdentically(t *testing.T) {
	racetest.SkipSingleGoroutine(t, "it rebuilds the reference runs' reports and plots, on one goroutine")
	ref, err := filepath.Glob("../../results/*-*-*/bench.txt")
	if err != nil || len(ref) == 0 {
		t.Skip("no reference run under results/ (a board runs the test binaries without the repository's results): skipped")
	}
	ref = append(ref, "testdata/legacy-run/bench.txt")
	for _, bench := range ref {
		src := filepath.Dir(bench)
		dir := t.TempDir()
		for _, f := range []string{"bench.txt", "env.json", "summary.json", "report.md", "details.md"} {
			copyFile(t, filepath.Join(src, f), filepath.Join(dir, f))
		}
		if err := runContext(t.Context(), []string{"report", dir}, io.Discard, io.Discard); err != nil {
			t.Fatalf("report %s: %v", src, err)
		}
		for _, f := range []string{"report.md", "details.md", "summary.json"} {
			want, _ := os.ReadFile(filepath.Join(src, f))
			got, _ := os.ReadFile(filepath.Join(dir, f))
			// The link to the method text is relative to where the directory lies: the copy
			// in a temporary directory, outside any checkout, names the file unlinked.
			if f == "report.md" && !methodRef.Match(want) {
				t.Errorf("%s/report.md does not link docs/method.md", src)
			}
			for _, m := range methodRef.FindAllSubmatch(want, -1) {
				if _, err := os.Stat(filepath.Join(src, string(m[1]))); err != nil {
					t.Errorf("%s/%s links %s, which does not resolve from there: %v", src, f, m[1], err)
				}
			}
			if f != "summary.json" && bytes.Contains(got, []byte("](")) && methodRef.Match(got) {
				t.Errorf("%s rebuilt outside a checkout links the method text relatively: %s", f, methodRef.Find(got))
			}
			want, got = methodRef.ReplaceAll(want, []byte("METHOD")), methodUnlinked.ReplaceAll(got, []byte("METHOD"))
			if !bytes.Equal(got, want) {
				t.Errorf("%s: rebuilt %s differs from the checked-in one (rebuild it with deferbench report %s if the change is meant)", src, f, src)
			}
		}
	}
}

// methodRef is report.md's link to docs/method.md (its target in group 1), methodUnlinked
// the file named without a link, where the report's directory lies in no checkout.
var (
	methodRef      = regexp.MustCompile(`\[docs/method\.md\]\(([^)#]*)#[^)]*\)`)
	methodUnlinked = regexp.MustCompile(`docs/method\.md of deferbench's source, section "How the report ranks and decides"`)
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQuotedIntervalsHoldOne: where details.md says a significant test did not separate two
// strategies because "the ratio's 95% CI … holds 1", the interval it quotes holds 1. A pair
// is separated only when both ratio methods' intervals exclude 1; the line quoted the
// interval of the method shown, which often excluded 1 while the other's held it ("CI 1.43×
// (1.25–1.52) holds 1": a fresh user's find). The committed reports are what report
// rebuilds today (TestReferenceRunRebuildsIdentically).
func TestQuotedIntervalsHoldOne(t *testing.T) {
	files, _ := filepath.Glob("../../results/*-*-*/details.md")
	files = append(files, "testdata/legacy-run/details.md")
	quoted := regexp.MustCompile(`95% CI [0-9.]+× \(([0-9.]+)–([0-9.]+)\) holds 1`)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range quoted.FindAllSubmatch(b, -1) {
			n++
			lo, _ := strconv.ParseFloat(string(m[1]), 64)
			hi, _ := strconv.ParseFloat(string(m[2]), 64)
			if lo > 1 || hi < 1 {
				t.Errorf("%s: %q: the interval quoted does not hold 1", f, m[0])
			}
		}
	}
	if n == 0 {
		t.Fatal("no 'holds 1' line in the committed reports: the test checks nothing")
	}
}

// TestRestsOnSaysEachReasonOnce: report.md's "rests on" cell folds the variants' reasons,
// each clause once ("measured; no declared property involved; measured; left out: …" read
// "measured" twice: a fresh user's find).
func TestRestsOnSaysEachReasonOnce(t *testing.T) {
	files, _ := filepath.Glob("../../results/*-*-*/report.md")
	files = append(files, "testdata/legacy-run/report.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			cells := strings.Split(strings.Trim(l, "| "), " | ")
			if !strings.HasPrefix(l, "| ") || len(cells) != 4 {
				continue
			}
			seen := map[string]bool{}
			for _, c := range strings.Split(cells[3], "; ") {
				if c == "measured" && seen[c] {
					t.Errorf("%s: the rests-on cell says %q twice: %s", f, c, cells[3])
				}
				seen[c] = true
			}
		}
	}
}
