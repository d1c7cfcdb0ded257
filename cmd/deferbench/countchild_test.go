package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
)

// runCountChildCmd runs deferbench count-child args as a separate process and returns its
// stdout, stderr and exit status.
func runCountChildCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := deferbenchCmd(append([]string{countChildCommand}, args...)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot run the test binary as a child process: %v", err)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestCountChild: the hidden mode runs a counted case silently, refuses a case whose work
// depends on scheduling in one line saying why, and bad arguments with status 2.
func TestCountChild(t *testing.T) {
	if out, errs, code := runCountChildCmd(t, "-n", "3000", "Stage/strategy=cmdbuffer/cmd=typed"); code != 0 || out != "" || errs != "" {
		t.Errorf("counted case: status %d, stdout %q, stderr %q; want 0 and silence", code, out, errs)
	}
	_, errs, code := runCountChildCmd(t, "-n", "10", "Contention/strategy=cmdbuffer/producers=1")
	if code != 1 || !strings.Contains(errs, "not counted") || strings.Count(errs, "\n") != 1 {
		t.Errorf("Contention: status %d, stderr %q; want 1 and one line saying it is not counted", code, errs)
	}
	for _, args := range [][]string{{"Stage/strategy=cmdbuffer/cmd=typed"}, {"-n", "0", "x"}, {"-n", "5"}, {"-perf", "software", "-n", "5", "x"}, {"-n", "5", "-high", "9", "x"}} {
		if _, errs, code := runCountChildCmd(t, args...); code != 2 || !strings.Contains(errs, "usage") {
			t.Errorf("count-child %q: status %d, stderr %q; want 2 and the usage", args, code, errs)
		}
	}
	if _, errs, code := runCountChildCmd(t, "-n", "5", "Stage/strategy=nope/cmd=typed"); code != 1 || !strings.Contains(errs, "nope") {
		t.Errorf("unknown case: status %d, stderr %q", code, errs)
	}
	if _, ok := countChild([]string{"run"}, nil, nil); ok {
		t.Error("countChild took the run command")
	}
}

// TestCountChildUnderCachegrind counts a case through this binary's count-child mode, as the
// count tier does with the deferbench executable.
func TestCountChildUnderCachegrind(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("counting under valgrind takes half a minute and does not run with -race")
	}
	if _, err := counts.LookValgrind(""); err != nil {
		t.Skip(err)
	}
	c, err := harness.FindCase("StageApply/strategy=cmdbuffer/mix=addremove2x100")
	if err != nil {
		t.Fatal(err)
	}
	row, err := counts.Count(context.Background(), countChildFor(c, os.Args[0], "DEFERBENCH_TEST_MAIN=1"), counts.Options{Repeats: 2, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := row.Get(counts.InstrUnit)
	t.Logf("%s: %.1f %s, spread %.3f%%, iterations %d and %d, %v", row.Name, m.Median, m.Unit, 100*m.Spread, row.Low, row.High, row.Wall.Round(time.Millisecond))
	if m.Median <= 0 || m.Spread > 0.01 { // counts agree to a percent; the 0.3 % goal is measured, not asserted
		t.Errorf("%s: %v %s, spread %.3f%%: want > 0 and ≤ 1%%", row.Name, m.Median, m.Unit, 100*m.Spread)
	}
}

// TestCountChildPerf counts a case with the kernel's software events through the child's
// perf mode, as the count tier reads hardware counters on a board: task-clock per op is
// positive. Hardware events either count or say why not, as an *counts.Unavailable.
func TestCountChildPerf(t *testing.T) {
	c, err := harness.FindCase("Stage/strategy=cmdbuffer/cmd=typed")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"DEFERBENCH_TEST_MAIN=1"}
	// task-clock is processor time, which varies from run to run: over the count tier's span
	// for Stage (256 batches, about 3 ms of work) it read 5 to 20 ns per op on the loaded VM.
	// The software path is checked over 4096 batches (about 50 ms of work).
	argv := perfChildArgv(c, os.Args[0], counts.SoftwareSet)
	argv[len(argv)-2] = strconv.Itoa(4098 * 1024)
	p, err := counts.CountPerf(context.Background(), argv, env, "", time.Minute)
	var u *counts.Unavailable
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot run the test binary as a child process: %v", err)
	}
	if errors.As(err, &u) && (u.Reason == counts.NoSyscall || u.Reason == counts.Paranoid) {
		t.Skipf("perf_event_open refused here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v", c.FullName(), p)
	if p[counts.TaskClockUnit] <= 0 {
		t.Errorf("%s: %v, want task-clock-ns/op > 0", c.FullName(), p)
	}
	p, err = counts.CountPerf(context.Background(), perfChildArgv(c, os.Args[0], counts.HardwareSet), env, "", time.Minute)
	switch {
	case errors.As(err, &u):
		t.Logf("hardware counters: %s: %s", u.Reason, u.Detail)
		if u.Reason == "" || u.Detail == "" {
			t.Errorf("unavailable without a reason: %+v", u)
		}
	case err != nil:
		t.Fatal(err)
	case p[counts.HWInstrUnit] <= 0 || p[counts.IPCUnit] <= 0:
		t.Errorf("hardware counters per op: %v, want instructions and IPC", p)
	}
}
