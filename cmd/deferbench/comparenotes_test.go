package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	const revNote = "deferbench: compare: note: OLD was built from revision aaaaaaaaaaaa and NEW from bbbbbbbbbbbb-dirty: the changes include the code's\n"
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
