package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// summaryLine is compare's closing summary on stderr ("deferbench: compare: 3 rows: …").
var summaryLine = regexp.MustCompile(`(?m)^deferbench: compare: \d+ rows?: .*\n`)

// noSummary is stderr without compare's closing summary line.
func noSummary(s string) string { return summaryLine.ReplaceAllString(s, "") }

// TestCompareSummary: compare ends with one line on stderr that counts the rows better,
// worse and unchanged, says how many significant changes chance alone would give over the
// tested rows, and names the largest change of each way; the table on stdout is unchanged.
func TestCompareSummary(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, ns map[string]int) string {
		var b strings.Builder
		for i := range 8 {
			for _, bench := range []string{"Fast", "Slow", "Same", "Slower"} {
				fmt.Fprintf(&b, "Benchmark%s-2 1000 %d ns/op\n", bench, ns[bench]+i%3)
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old.txt", map[string]int{"Fast": 100, "Slow": 100, "Same": 100, "Slower": 100})
	new := write("new.txt", map[string]int{"Fast": 50, "Slow": 150, "Same": 100, "Slower": 300})
	out, errOut, code := cli("compare", old, new)
	want := "deferbench: compare: 4 rows: 1 better, 2 worse, 1 unchanged; " +
		"most worse: Slower-2 ns/op +198.0%, Slow-2 ns/op +49.5%; most better: Fast-2 ns/op -49.5%\n" // medians 101 against 301, 151, 51
	if code != 0 || errOut != want || strings.Contains(out, "most worse") {
		t.Errorf("compare: exit %d, stderr %q; want %q", code, errOut, want)
	}
	if got := summaryLine.FindString(errOut); got != want {
		t.Errorf("summaryLine matches %q of %q", got, errOut)
	}
}

// TestCompareNotesRunKinds: compare notes what the two runs' env.json files say and their rows
// do not — a -quick run against a full one, binaries built from different revisions — and
// says nothing of either when a side has no env.json or a revision is unknown.
func TestCompareNotesRunKinds(t *testing.T) {
	env := func(dir, rev string, quick bool) {
		t.Helper()
		opts := `{"quick": false, "count": 10, "benchtime": "50ms"}`
		if quick {
			opts = `{"quick": true, "count": 3, "benchtime": "20ms"}`
		}
		doc := `{"deferbench": "v0.1.0-dev", "revision": "` + rev + `", "args": [], "started": "2026-12-07T00:00:00Z", "before": {}, "options": ` + opts + `}`
		if err := os.WriteFile(filepath.Join(dir, "env.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const quickNote = "deferbench: compare: note: NEW is a -quick run and OLD is not (count 3 against 10, benchtime 20ms against 50ms)"
	const revNote = "deferbench: compare: note: OLD was built from revision aaaaaaaaaaaa and NEW from bbbbbbbbbbbb-dirty: the changes include those of the code between them, not only the machine's noise\n"
	cases := []struct {
		name             string
		oldRev, newRev   string
		oldEnv, newQuick bool
		want, wantNot    []string
	}{
		{name: "quick against full, two revisions", oldRev: "aaaaaaaaaaaa", newRev: "bbbbbbbbbbbb-dirty", oldEnv: true, newQuick: true,
			want: []string{quickNote, revNote}},
		{name: "same kind, same revision", oldRev: "aaaaaaaaaaaa", newRev: "aaaaaaaaaaaa", oldEnv: true,
			wantNot: []string{"-quick run", "built from revision"}},
		{name: "a revision unknown", oldRev: "", newRev: "bbbbbbbbbbbb", oldEnv: true, newQuick: true,
			want: []string{quickNote}, wantNot: []string{"built from revision"}},
		{name: "OLD without env.json", newRev: "bbbbbbbbbbbb", newQuick: true,
			wantNot: []string{"-quick run", "built from revision"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, new := writeBench(t, nil, "A-2 10"), writeBench(t, nil, "A-2 10")
			if c.oldEnv {
				env(old, c.oldRev, false)
			}
			env(new, c.newRev, c.newQuick)
			_, errOut, code := cli("compare", old, new)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(errOut, w) {
					t.Errorf("stderr says %q:\n%s", w, errOut)
				}
			}
		})
	}
}
