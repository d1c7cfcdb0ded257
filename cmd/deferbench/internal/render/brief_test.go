package render

import (
	"fmt"
	"strings"
	"testing"
)

// briefOf is report.md alone of bench.txt text.
func briefOf(t *testing.T, text string, meta ReportMeta) string {
	t.Helper()
	var b strings.Builder
	if err := WriteReport(&b, parse(t, text), meta); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// rowOf is the line of report.md's table whose first cell starts with label.
func rowOf(rep, label string) string {
	for _, l := range strings.Split(rep, "\n") {
		if strings.HasPrefix(l, "| "+label) {
			return l
		}
	}
	return ""
}

// TestPickFoldsVariants: report.md has one Which-to-pick row for a requirement measured on
// both storages, the storages named in its label; where the verdicts agree it names the
// strategy once, where they differ it names the storage whose verdict differs, and no
// strategy is shown meeting it in every variant. details.md keeps a row per variant.
func TestPickFoldsVariants(t *testing.T) {
	const label = "lowest stage plus commit cost (mix = shuffled8); storage slots, archetypes"
	rep := briefOf(t, storageRun("cmdbuffer", "cmdbuffer"), ReportMeta{Cores: 2})
	if row := rowOf(rep, label); !strings.HasPrefix(row, "| "+label+" | cmdbuffer | cmdbuffer in all 2 variants |") {
		t.Errorf("verdicts that agree: row %q", row)
	}
	if n := strings.Count(rep, "| lowest stage plus commit cost"); n != 1 {
		t.Errorf("%d rows for the requirement in report.md, want 1:\n%s", n, rep)
	}
	rep = briefOf(t, storageRun("cmdbuffer", "handrolled"), ReportMeta{Cores: 2})
	if row := rowOf(rep, label); !strings.HasPrefix(row, "| "+label+" | none shown | cmdbuffer in 1 of 2 variants; storage=archetypes: handrolled |") {
		t.Errorf("verdicts that differ: row %q", row)
	}
	var d strings.Builder
	if err := WriteDetails(&d, parse(t, storageRun("cmdbuffer", "handrolled")), ReportMeta{Cores: 2}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| lowest stage plus commit cost (mix = shuffled8) | cmdbuffer |",
		"| lowest stage plus commit cost (mix = shuffled8) on archetypes storage | handrolled |"} {
		if !strings.Contains(d.String(), w) {
			t.Errorf("details.md lacks %q:\n%s", w, d.String())
		}
	}
}

// TestFirstScreenSaysHowSure: the first lines name the pick, how sure it is with the trust
// flags that bear on it (Loaded makes every timed verdict tentative), and the command that
// would make it surer; an idle, quiet run whose verdicts all stand is firm.
func TestFirstScreenSaysHowSure(t *testing.T) {
	idle := briefOf(t, storageRun("cmdbuffer", "cmdbuffer"), ReportMeta{Cores: 2})
	loaded := briefOf(t, storageRun("cmdbuffer", "cmdbuffer"), ReportMeta{Cores: 2, OtherWork: &OtherWork{CPUs: 2, Seconds: 60, Other: 0.74}})
	for name, c := range map[string]struct{ rep, sure, kind string }{
		"idle":   {idle, "- **How sure**: firm (", "| StageApply: lowest stage plus commit cost | cmdbuffer (meets all 2 verdicts) | firm |"},
		"loaded": {loaded, "- **How sure**: tentative: Loaded (", "| StageApply: lowest stage plus commit cost | cmdbuffer (meets all 2 verdicts) | tentative: Loaded |"},
	} {
		first := strings.Join(strings.Split(c.rep, "\n")[:20], "\n")
		for _, w := range []string{"- **Pick**: **cmdbuffer meets every requirement measured here**", c.sure, c.kind, "- **Surer**: `deferbench run -scenarios StageApply -count 20`"} {
			if !strings.Contains(first, w) {
				t.Errorf("%s: the first 20 lines lack %q:\n%s", name, w, first)
			}
		}
	}
}

// TestBoundNeedsIgnoreTimingFlags: a need met within a bound on every sample (Determinism's one
// distinct state) stays firm in a loaded run of 3 repetitions: neither the load nor the
// missing intervals bear on a count of final states. A timed need of the same run does not.
func TestBoundNeedsIgnoreTimingFlags(t *testing.T) {
	var b strings.Builder
	for rep := range 3 {
		for _, s := range []struct {
			name     string
			distinct int
		}{{"cmdbuffer", 1}, {"lazyguarded", 4}} {
			fmt.Fprintf(&b, "BenchmarkDeterminism/strategy=%s/runs=6/frames=4-2 1 %d ns/op %d distinct-states\n", s.name, 1000000+rep*1000, s.distinct)
			fmt.Fprintf(&b, "BenchmarkStageApply/strategy=%s/mix=shuffled8-2 1000 %d ns/op\n", s.name, 60+rep)
		}
	}
	rep := briefOf(t, b.String(), ReportMeta{Cores: 2, OtherWork: &OtherWork{CPUs: 2, Seconds: 60, Other: 0.74}})
	if row := rowOf(rep, "Determinism"); !strings.HasSuffix(row, "| firm |") {
		t.Errorf("Determinism row = %q, want firm", row)
	}
	if row := rowOf(rep, "StageApply"); !strings.Contains(row, "Loaded") {
		t.Errorf("StageApply row = %q, want the Loaded flag", row)
	}
}

// TestSurerWhenFirm: a run whose every verdict is firm gets the Surer command of all its
// scenarios with the firm wording, not the tied-or-undecided one (which it always got: the
// scenarios were filled in before the test for none); one verdict fair names its scenario.
func TestSurerWhenFirm(t *testing.T) {
	rd := &reportData{}
	ns := []need{{scenario: "Spike"}, {scenario: "Determinism"}}
	got := surerCommand(rd, ns, []sureness{{level: 0}, {level: 0}})
	if !strings.Contains(got, "-scenarios Spike,Determinism") || !strings.Contains(got, "every verdict is firm") {
		t.Errorf("every verdict firm: %q", got)
	}
	got = surerCommand(rd, ns, []sureness{{level: 1}, {level: 0}})
	if !strings.Contains(got, "-scenarios Spike ") || !strings.Contains(got, "tied or undecided") {
		t.Errorf("Spike fair: %q", got)
	}
}
