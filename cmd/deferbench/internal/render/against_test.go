package render

import (
	"fmt"
	"strings"
	"testing"
)

// peerText is a Peer run of 8 interleaved repetitions: W1 on slots (cmdbuffer 5 ns, handrolled
// 6 ns) and on archetypes (cmdbuffer 4.8 ns), Ark's collect-then-apply on archetypes (4 ns,
// when ark is set), create-destroy on slots for ecs and cmdbuffer, and the counts of
// cmdbuffer's, handrolled's and Ark's W1 rows on slots (80, 70 and 58 instr/op: handrolled
// does less work though it takes more time).
func peerText(ark bool, reps int) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\n")
	for rep := range reps {
		j := 1 + 0.01*float64(rep%3)
		fmt.Fprintf(&b, "BenchmarkPeer/strategy=cmdbuffer/op=w1-set 1000 %g ns/op\n", 5*j)
		fmt.Fprintf(&b, "BenchmarkPeer/strategy=handrolled/op=w1-set 1000 %g ns/op\n", 6*j)
		fmt.Fprintf(&b, "BenchmarkPeer/strategy=cmdbuffer/op=w1-set/storage=archetypes 1000 %g ns/op\n", 4.8*j)
		fmt.Fprintf(&b, "BenchmarkPeer/strategy=handrolled/op=w1-set/storage=archetypes 1000 %g ns/op\n", 5.2*j)
		if ark {
			fmt.Fprintf(&b, "BenchmarkPeer/strategy=ark/op=w1-set/storage=archetypes 1000 %g ns/op\n", 4*j)
		}
		fmt.Fprintf(&b, "BenchmarkPeer/strategy=cmdbuffer/op=create-destroy 1000 %g ns/op\n", 40*j)
		fmt.Fprintf(&b, "BenchmarkPeer/strategy=handrolled/op=create-destroy 1000 %g ns/op\n", 44*j)
	}
	b.WriteString("BenchmarkPeer/strategy=cmdbuffer/op=w1-set 100000 80 instr/op\n")
	b.WriteString("BenchmarkPeer/strategy=handrolled/op=w1-set 100000 70 instr/op\n")
	if ark {
		b.WriteString("BenchmarkPeer/strategy=ark/op=w1-set/storage=archetypes 100000 58 instr/op\n")
	}
	return b.String()
}

func peerReport(t *testing.T, ark bool, reps int) string {
	t.Helper()
	rs := parse(t, peerText(ark, reps))
	var b strings.Builder
	if err := writeBoth(&b, rs, ReportMeta{Cores: 2}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFindingsAgainstReferences: Peer's W1 rows, on both storages, are set against Ark's
// collect-then-apply on archetypes (its only storage), in time with the ratio's CI and in
// instructions where both were counted; rows the reference does not apply to (create-destroy)
// and W1 without Ark's batches (it has none) get no such line, and a run without Ark's row
// gets none at all.
func TestFindingsAgainstReferences(t *testing.T) {
	rep := peerReport(t, true, 8)
	head := "against ark's collect-then-apply (archetypes, ark's only storage) at 4"
	var lines []string
	for _, l := range strings.Split(rep, "\n") {
		if strings.Contains(strings.ToLower(l), head) {
			lines = append(lines, l)
		}
	}
	// The brief's two W1 rows and details.md's two.
	if len(lines) != 4 {
		t.Fatalf("%d lines set against Ark's collect-then-apply, want 4 (two W1 rows, brief and details):\n%s", len(lines), rep)
	}
	slots, arch := lines[0], lines[1]
	// Times in ranking order, instructions fewest first.
	for _, want := range []string{"cmdbuffer 1.25× (", "handrolled 1.50× (", "; instructions per op: handrolled 1.21×, cmdbuffer 1.38×"} {
		if !strings.Contains(slots, want) {
			t.Errorf("slots row's line lacks %q:\n%s", want, slots)
		}
	}
	if !strings.Contains(arch, "cmdbuffer 1.20× (") || strings.Contains(arch, "instructions per op") {
		t.Errorf("archetypes row's line: want cmdbuffer 1.20× and no count (its row was not counted):\n%s", arch)
	}
	if i := strings.Index(slots, "cmdbuffer"); i < 0 || i > strings.Index(slots, "handrolled") {
		t.Errorf("strategies not in ranking order:\n%s", slots)
	}
	if strings.Contains(strings.ToLower(rep), "against ark's batches (") {
		t.Errorf("W1 set against Ark's batches, which have no W1:\n%s", rep)
	}
	for _, l := range strings.Split(rep, "\n") {
		if strings.Contains(l, "create-destroy") && strings.Contains(strings.ToLower(l), "against ark's") {
			t.Errorf("create-destroy set against a reference:\n%s", l)
		}
	}
	if rep := peerReport(t, false, 8); strings.Contains(strings.ToLower(rep), "against ark's collect-then-apply (") {
		t.Errorf("a run without Ark's row sets strategies against it:\n%s", rep)
	}
	// Three repetitions (a -quick run) give no interval: the ratios bare, said once.
	for _, l := range strings.Split(peerReport(t, true, 3), "\n") {
		if !strings.Contains(strings.ToLower(l), head) {
			continue
		}
		if strings.Contains(l, "(no CI)") || strings.Count(l, "no CI: too few repetitions") != 1 || !strings.Contains(l, "×, handrolled 1.") {
			t.Errorf("a line without intervals: want the bare ratios and one \"no CI: too few repetitions\":\n%s", l)
		}
	}
}
