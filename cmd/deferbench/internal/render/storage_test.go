package render

import (
	"fmt"
	"strings"
	"testing"
)

// storageRun is bench.txt text of StageApply mix=shuffled8 on both storages for cmdbuffer and
// handrolled, 10 repetitions: fast is the strategy 2× faster than the other on each storage.
func storageRun(fastSlots, fastArch string) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n\n")
	for rep := range 10 {
		for _, storage := range []string{"", "/storage=archetypes"} {
			fast := fastSlots
			if storage != "" {
				fast = fastArch
			}
			for _, st := range []string{"cmdbuffer", "handrolled"} {
				v := 100 + float64(rep%5)
				if st != fast {
					v *= 2
				}
				fmt.Fprintf(&b, "BenchmarkStageApply/strategy=%s/mix=shuffled8%s-2 1000 %v ns/op\n", st, storage, v)
			}
		}
	}
	return b.String()
}

// TestStorageVerdicts: a verdict measured on both storages says whether it holds on both or
// differs, naming the storage where it differs and each storage's strategies, in "Which to
// pick" (its figure, and the line counting the verdicts) and in the Findings under its
// ranking; both rows of the pair say it.
func TestStorageVerdicts(t *testing.T) {
	const need = "lowest stage plus commit cost (mix = shuffled8)"
	t.Run("holds", func(t *testing.T) {
		rep := reportOf(t, storageRun("cmdbuffer", "cmdbuffer"))
		pick := section(rep, "## Which to pick, per variant")
		if g := pickRow(rep, need+" |"); g != "cmdbuffer" {
			t.Errorf("slots row: %q, want cmdbuffer:\n%s", g, pick)
		}
		if g := pickRow(rep, need+" on archetypes storage"); g != "cmdbuffer" {
			t.Errorf("archetypes row: %q, want cmdbuffer:\n%s", g, pick)
		}
		for _, w := range []string{"Storage: of the 1 verdicts measured on both world storages, 1 hold on both; none differs."} {
			if !strings.Contains(pick, w) {
				t.Errorf("Which to pick lacks %q:\n%s", w, pick)
			}
		}
		if n := strings.Count(pick, "; holds on both storages (slots and archetypes) |"); n != 2 {
			t.Errorf("%d pick rows say the verdict holds on both storages, want 2:\n%s", n, pick)
		}
		if strings.Contains(rep, "differs on") {
			t.Errorf("a verdict that holds is said to differ:\n%s", rep)
		}
		if n := strings.Count(findingsOf(rep), "Storage: holds on both storages (slots and archetypes)."); n != 2 {
			t.Errorf("%d Findings rankings say the verdict holds on both storages, want 2:\n%s", n, rep)
		}
	})
	t.Run("differs", func(t *testing.T) {
		rep := reportOf(t, storageRun("cmdbuffer", "handrolled"))
		pick := section(rep, "## Which to pick, per variant")
		if g := pickRow(rep, need+" |"); g != "cmdbuffer" {
			t.Errorf("slots row: %q, want cmdbuffer:\n%s", g, pick)
		}
		if g := pickRow(rep, need+" on archetypes storage"); g != "handrolled" {
			t.Errorf("archetypes row: %q, want handrolled:\n%s", g, pick)
		}
		note := "differs on archetypes storage (slots: cmdbuffer; archetypes: handrolled)"
		if n := strings.Count(pick, "; "+note+" |"); n != 2 {
			t.Errorf("%d pick rows say %q, want 2:\n%s", n, note, pick)
		}
		if w := "Storage: of the 1 verdicts measured on both world storages, 0 hold on both and 1 differ: *" + need + "* (on archetypes)."; !strings.Contains(pick, w) {
			t.Errorf("Which to pick lacks %q:\n%s", w, pick)
		}
		if strings.Contains(rep, "holds on both") {
			t.Errorf("a verdict that differs is said to hold:\n%s", rep)
		}
		if n := strings.Count(findingsOf(rep), "Storage: "+note+"."); n != 2 {
			t.Errorf("%d Findings rankings say %q, want 2:\n%s", n, note, rep)
		}
	})
	t.Run("undecided", func(t *testing.T) {
		var keep []string // 3 repetitions: too few for a test
		seen := map[string]int{}
		for _, l := range strings.Split(storageRun("cmdbuffer", "cmdbuffer"), "\n") {
			if name, _, ok := strings.Cut(l, " "); !ok || !strings.HasPrefix(name, "Benchmark") || seen[name] < 3 {
				seen[name]++
				keep = append(keep, l)
			}
		}
		rep := reportOf(t, strings.Join(keep, "\n"))
		if strings.Contains(rep, "holds on both") || strings.Contains(rep, "differs on") {
			t.Errorf("an undecided verdict is said to hold or differ:\n%s", rep)
		}
		pick := section(rep, "## Which to pick, per variant")
		for _, w := range []string{"; 1 undecided on a storage (noise or too few repetitions), not compared.",
			"; not compared across storages: undecided on slots and archetypes storage |"} {
			if !strings.Contains(pick, w) {
				t.Errorf("Which to pick lacks %q:\n%s", w, pick)
			}
		}
	})
	t.Run("one storage", func(t *testing.T) {
		text := storageRun("cmdbuffer", "handrolled")
		var keep []string
		for _, l := range strings.Split(text, "\n") {
			if !strings.Contains(l, "storage=") {
				keep = append(keep, l)
			}
		}
		rep := reportOf(t, strings.Join(keep, "\n"))
		if strings.Contains(rep, "Storage:") || strings.Contains(rep, "both storages") || strings.Contains(rep, "differs on") {
			t.Errorf("a run on slots only speaks of storages:\n%s", rep)
		}
	})
}

// findingsOf is report from its Findings heading on (the rankings under it).
func findingsOf(report string) string {
	if i := strings.Index(report, "## Findings"); i >= 0 {
		return report[i:]
	}
	return ""
}
