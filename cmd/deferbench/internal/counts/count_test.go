package counts_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/conformance/bench"
)

// childEnv names the case a re-executed test binary runs, as deferbench count-child does;
// the iteration count is its one argument.
const childEnv = "DEFERBENCH_COUNTS_TEST_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		if err := runChild(v, os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var workSink uint64

// work is k units of arithmetic the compiler cannot drop.
func work(k int) {
	x := workSink
	for i := range k * 16 {
		x = x*6364136223846793005 + uint64(i)
	}
	workSink = x
}

// testCases are cases only the test runs: work of 1 and 2 units per op, the second doing
// exactly twice the loop of the first.
var testCases = map[string]int{"Work/units=1": 1, "Work/units=2": 2}

func runChild(name string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("child of %s: want one argument, the iteration count, got %q", name, args)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("child of %s: %v", name, err)
	}
	c, err := harness.FindCase(name)
	if k, ok := testCases[name]; ok {
		c, err = harness.Case{Name: name, Scenario: "Work", Strategy: "test", Procs: 1, Run: func(b bench.B) error {
			for range b.N() {
				work(k)
			}
			return nil
		}}, nil
	}
	if err != nil {
		return err
	}
	if err := harness.Countable(c); err != nil {
		return err
	}
	_, err = harness.RunFixed(c, n)
	return err
}

// child runs this test binary as the child of case name.
func child(t *testing.T, name string, it harness.FixedIters) counts.Child {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return counts.Child{Name: name, Low: it.Low, High: it.High, MaxHigh: it.MaxHigh, Argv: func(n int) []string {
		return []string{exe, strconv.Itoa(n)}
	}, Env: []string{childEnv + "=" + name}}
}

func needValgrind(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector's memory layout does not run under valgrind: run without -race")
	}
	if testing.Short() {
		t.Skip("counts under valgrind take a minute: run without -short")
	}
	if _, err := counts.LookValgrind(""); err != nil {
		t.Skipf("%v (scripts/install-valgrind.sh)", err)
	}
}

// TestCountStage counts Stage with typed commands for the baseline and cmdbuffer under
// cachegrind: positive instr/op, a spread of at most 0.3 % over 3 repetitions, and cmdbuffer
// (a recorder's buffer and its batch hand-over) above the baseline's bare append.
func TestCountStage(t *testing.T) {
	needValgrind(t)
	got := map[string]float64{}
	for _, s := range []string{"baseline", "cmdbuffer"} {
		name := "Stage/strategy=" + s + "/cmd=typed"
		c, err := harness.FindCase(name)
		if err != nil {
			t.Fatal(err)
		}
		row, err := counts.Count(context.Background(), child(t, name, harness.ItersFor(c)), counts.Options{Repeats: 3, Timeout: 3 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		m, ok := row.Get(counts.InstrUnit)
		if !ok {
			t.Fatalf("%s: no %s in %+v", name, counts.InstrUnit, row)
		}
		t.Logf("%s: %.2f %s, spread %.3f%% over %v, iterations %d and %d, %v", name, m.Median, m.Unit, 100*m.Spread, m.Samples, row.Low, row.High, row.Wall.Round(time.Millisecond))
		if m.Median <= 0 {
			t.Errorf("%s: %v %s, want > 0", name, m.Median, m.Unit)
		}
		if m.Spread > 0.01 { // counts agree to a percent; the 0.3 % goal is measured, not asserted
			t.Errorf("%s: spread %.3f%%, want ≤ 1%%", name, 100*m.Spread)
		}
		got[s] = m.Median
	}
	if got["cmdbuffer"] <= got["baseline"] {
		t.Errorf("cmdbuffer %.2f instr/op, baseline %.2f: want the recorder above the bare append", got["cmdbuffer"], got["baseline"])
	}
}

// TestCountHeavier: a case doing twice the work per op counts about twice the instructions
// (the loop's body doubles, its per-op overhead does not), with cache simulation on.
func TestCountHeavier(t *testing.T) {
	needValgrind(t)
	per := map[int]float64{}
	for name, k := range testCases {
		row, err := counts.Count(context.Background(), child(t, name, harness.FixedIters{Low: 1000, High: 21000}), counts.Options{CacheSim: true, MinDelta: 5e7, Timeout: 3 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := row.Get(counts.InstrUnit)
		d1, ok := row.Get(counts.SimD1MissUnit)
		if !ok {
			t.Fatalf("%s: no %s with cache simulation", name, counts.SimD1MissUnit)
		}
		t.Logf("%s: %.2f %s, %.4f %s, iterations %d and %d", name, m.Median, m.Unit, d1.Median, d1.Unit, row.Low, row.High)
		per[k] = m.Median
	}
	if r := per[2] / per[1]; r < 1.8 || r > 2.05 {
		t.Errorf("instr/op: %.2f for 2 units of work, %.2f for 1: ratio %.3f, want 1.8 to 2.05", per[2], per[1], r)
	}
}

// TestCountNoValgrind: without valgrind Count fails at once with ErrNoValgrind, in one line
// naming the package to install.
func TestCountNoValgrind(t *testing.T) {
	_, err := counts.Count(context.Background(), counts.Child{Name: "x", Low: 1, High: 2, Argv: func(int) []string { return []string{"true"} }},
		counts.Options{Valgrind: "/nonexistent/valgrind"})
	if !errors.Is(err, counts.ErrNoValgrind) {
		t.Fatalf("err = %v, want ErrNoValgrind", err)
	}
	if msg := err.Error(); !contains(msg, "apt-get install valgrind") || contains(msg, "\n") {
		t.Errorf("message %q: want one line naming apt-get install valgrind", msg)
	}
}

// TestCountChildFails: a child that fails is an error naming the case and the child's last
// line; a child that outlives the timeout is killed with its process group.
func TestCountChildFails(t *testing.T) {
	if _, err := counts.LookValgrind(""); err != nil {
		t.Skip(err)
	}
	fake := t.TempDir() + "/valgrind"
	// A stand-in for valgrind that runs its program (after the options) directly.
	script := "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := counts.Count(context.Background(), counts.Child{Name: "Bad/case", Low: 1, High: 2, Argv: func(int) []string {
		return []string{"/bin/sh", "-c", "echo 'benchmark Bad/case: boom' >&2; exit 1"}
	}}, counts.Options{Valgrind: fake})
	if err == nil || !contains(err.Error(), "Bad/case at 1 iterations") || !contains(err.Error(), "boom") {
		t.Errorf("failing child: %v", err)
	}
	t0 := time.Now()
	_, err = counts.Count(context.Background(), counts.Child{Name: "Slow/case", Low: 1, High: 2, Argv: func(int) []string {
		return []string{"/bin/sh", "-c", "sleep 30 & sleep 30; wait"}
	}}, counts.Options{Valgrind: fake, WallTimeout: 300 * time.Millisecond})
	if err == nil || !contains(err.Error(), "wall-time timeout") {
		t.Errorf("slow child: %v, want a timeout", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("slow child: Count returned after %v: the process group was not killed", d)
	}
	if runtime.GOOS != "linux" {
		return // the processor-time bound is Linux's RLIMIT_CPU
	}
	// A child that spins is killed for its processor time, long before its wall time is up.
	t0 = time.Now()
	_, err = counts.Count(context.Background(), counts.Child{Name: "Spin/case", Low: 1, High: 2, Argv: func(int) []string {
		return []string{"/bin/sh", "-c", "while :; do :; done"}
	}}, counts.Options{Valgrind: fake, Timeout: time.Second, WallTimeout: 2 * time.Minute})
	if err == nil || !contains(err.Error(), "of processor time") {
		t.Errorf("spinning child: %v, want killed for its processor time", err)
	}
	if d := time.Since(t0); d > time.Minute {
		t.Errorf("spinning child: Count returned after %v", d)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestCountAll counts the two test cases side by side, each with its own figure.
func TestCountAll(t *testing.T) {
	needValgrind(t)
	var cs []counts.Child
	for _, name := range []string{"Work/units=1", "Work/units=2"} {
		cs = append(cs, child(t, name, harness.FixedIters{Low: 1000, High: 201000}))
	}
	got := make([]float64, len(cs))
	err := counts.CountAll(context.Background(), cs, counts.Options{MinDelta: -1}, 2, func(i int, r counts.Row, err error) {
		if err != nil {
			t.Error(err)
			return
		}
		m, _ := r.Get(counts.InstrUnit)
		got[i] = m.Median
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] <= 0 || got[1] < 1.8*got[0] {
		t.Errorf("instr/op %v: want the second about twice the first", got)
	}
}

// TestCountChildNotStarted: a "valgrind" that cannot be executed (ENOEXEC, as a test binary
// of another architecture under qemu-user meets) is an error naming the case, not a panic.
func TestCountChildNotStarted(t *testing.T) {
	bad := t.TempDir() + "/valgrind"
	if err := os.WriteFile(bad, []byte("\x00\x01 not a program\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := counts.Count(context.Background(), counts.Child{Name: "NoStart/case", Low: 1, High: 2, Argv: func(int) []string {
		return []string{"true"}
	}}, counts.Options{Valgrind: bad})
	if err == nil || !contains(err.Error(), "NoStart/case") {
		t.Errorf("err = %v, want an error naming the case", err)
	}
}
