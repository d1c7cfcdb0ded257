package conformance

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deferbench/deferbench/conformance/internal/reference"
)

// TestReferenceOrdered runs the suite against the reference strategy in its reproducible
// mode: every subtest must pass.
func TestReferenceOrdered(t *testing.T) {
	Test(t, reference.Factory(reference.Ordered, reference.NoBug))
}

// TestReferenceShared runs the suite against the reference strategy in its mutex-order mode,
// which declares no reproducible order: the FIFO-only assertions run and must pass.
func TestReferenceShared(t *testing.T) { Test(t, reference.Factory(reference.Shared, reference.NoBug)) }

// fakeT records failures instead of failing the test, so the suite can be run against broken
// strategies. Logging goes to the real test.
type fakeT struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Error(args ...any)               { f.Errorf("%s", fmt.Sprint(args...)) }
func (f *fakeT) Fail()                           { f.Errorf("Fail called") }
func (f *fakeT) Logf(format string, args ...any) {}
func (f *fakeT) Log(args ...any)                 {}
func (f *fakeT) Fatalf(format string, args ...any) {
	panic("fakeT.Fatalf must not be reached: checkT handles it")
}
func (f *fakeT) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.errs) > 0
}

func (f *fakeT) failures() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

// runChecks runs the named checks against f with a fakeT and returns what they reported.
func runChecks(t *testing.T, f Factory, timeout time.Duration, names ...string) map[string][]string {
	t.Helper()
	caps := f(nil).Capabilities()
	out := map[string][]string{}
	for _, name := range names {
		var c *check
		for _, k := range checks(caps) {
			if k.name == name || c == nil && strings.HasPrefix(k.name, name+"/") {
				c = &k
			}
		}
		if c == nil {
			t.Fatalf("no check named %q for capabilities %+v", name, caps)
		}
		ft := &fakeT{TB: t}
		runCheck(ft, f, *c, 1, timeout)
		out[name] = ft.failures()
	}
	return out
}

// TestSuiteCatchesBugs runs subtests against reference strategies broken on purpose: each
// named subtest must report at least one failure whose message contains the given text.
func TestSuiteCatchesBugs(t *testing.T) {
	cases := []struct {
		bug   reference.Bug
		mode  reference.Mode
		check string
		text  string // a part of some failure message
	}{
		// The replayed prefix starts with a create of a placeholder the commit already
		// created: Core refuses it, so the retry fails at command 0, not at the cause.
		{reference.ReplayPrefix, reference.Ordered, "FailureRetryNoReplay", "retry with the cause unfixed: error position"},
		{reference.StrictRemove, reference.Ordered, "LeniencyRemoveMissingNoop", "commit: got error"},
		{reference.DropSuffix, reference.Ordered, "FailurePrefixRetained", "pending after the failed commit"},
		{reference.DropSuffix, reference.Ordered, "FailureRetryNoReplay", "retry with the cause unfixed"},
		{reference.WalkCapacity, reference.Ordered, "CommitProportionalToPending", "closures run by the small frame"},
		{reference.ReverseRecorders, reference.Ordered, "OrderReproducibleBySortKey", "apply order"},
		{reference.ReverseRecorders, reference.Ordered, "PlaceholderOtherRecorderReproducibleBySortKey", "applied"},
		{reference.LIFO, reference.Ordered, "FIFOWithinRecorder", "position"},
		{reference.LIFO, reference.Shared, "OrderFIFOOnly", "FIFO within a recorder"},
		{reference.LIFO, reference.Ordered, "ConcurrentRecorders", "FIFO within a recorder"},
		{reference.ClaimReproducible, reference.Shared, "OrderReproducibleBySortKey", "apply order"},
		{reference.CloseLosesPending, reference.Ordered, "FailureCloseWithPending", "close with a staged command"},
		{reference.ReportWhilePending, reference.Ordered, "ReportTakeRefusedWhilePending", "take report with a command pending"},
		{reference.ReportWhilePending, reference.Ordered, "FrameDecisionErrorKeepsPending", "take report while commands are pending"},
		{reference.IgnoreSortKeys, reference.Ordered, "OrderReproducibleBySortKey", "apply order"},
		{reference.IgnoreSortKeys, reference.Ordered, "PlaceholderOtherRecorderReproducibleBySortKey", "lower sort key"},
		{reference.TouchReusedSlot, reference.Ordered, "LeniencyDestroyDeadIgnored", "survivor"},
		{reference.TouchReusedSlot, reference.Ordered, "DestroyTwice", "new occupant"},
		{reference.TouchReusedSlot, reference.Ordered, "LeniencySkipAfterDestroySlotReused", "new occupant of e's slot"},
		{reference.RotateRecorders, reference.Ordered, "DeterminismReproducible", "distinct final worlds"},
		{reference.RotateRecorders, reference.Ordered, "OrderReproducibleBySortKey", "world hash"},
		{reference.SetMissingWrongPos, reference.Ordered, "SetMissingFails", "command error: position"},
		{reference.SetMissingWrongPos, reference.Ordered, "FailurePrefixRetained", "error position"},
		{reference.SetMissingWrongPos, reference.Ordered, "RecorderNumbering", "error position"},
		{reference.LIFO, reference.Ordered, "AddThenRemoveSameCommit", "add then remove"},
		{reference.TouchReusedSlot, reference.Ordered, "CreateThenDestroySameCommit", "entity created after"},
		{reference.DropSuffix, reference.Ordered, "PendingCountsAcrossRecorders", "pending after a failed commit"},
		{reference.DropSuffix, reference.Ordered, "InvalidRecordFails", "pending after the failed commit"},
		{reference.SuffixNotPending, reference.Ordered, "PendingCountsAcrossRecorders", "pending after a failed commit"},
		{reference.InvalidRecordNoop, reference.Ordered, "InvalidRecordFails", "want a *deferral.CommandError"},
		{reference.InvalidRecordNoop, reference.Ordered, "InvalidRecordStagedDuringCommit", "want a *deferral.CommandError"},
		{reference.DropSuffix, reference.Ordered, "InvalidRecordStagedDuringCommit", "pending after the failed commit"},
		{reference.DroppedNotPending, reference.Ordered, "StagedAfterCloseBounded", "pending after staging after close"},
		{reference.ClaimBatching, reference.Ordered, "BatchPerEntityNetMoves", "row moves with BatchesPerEntity declared"},
		{reference.DropSuffix, reference.Ordered, "BulkRunsAsOneByOne", "after the retry: pending"},
		{reference.ClaimBulk, reference.Ordered, "BulkRunsAsOneByOne", "bulk rows with BulkRuns declared"},
	}
	for _, c := range cases {
		name := fmt.Sprintf("bug%d/%s", c.bug, c.check)
		t.Run(name, func(t *testing.T) {
			got := runChecks(t, reference.Factory(c.mode, c.bug), time.Minute, c.check)[c.check]
			if len(got) == 0 {
				t.Fatalf("%s against bug %d: no failure reported, want one mentioning %q", c.check, c.bug, c.text)
			}
			for _, msg := range got {
				if strings.Contains(msg, c.text) {
					return
				}
			}
			t.Errorf("%s against bug %d: failures %q, want one mentioning %q", c.check, c.bug, got, c.text)
		})
	}
}

// TestWatchdog shows a strategy whose commit blocks fails its subtest with a message instead
// of hanging the test binary.
func TestWatchdog(t *testing.T) {
	got := runChecks(t, reference.Factory(reference.Ordered, reference.HangCommit), 200*time.Millisecond, "LeniencyAddOverwrites")
	msgs := got["LeniencyAddOverwrites"]
	if len(msgs) != 1 || !strings.Contains(msgs[0], "did not finish within") {
		t.Errorf("watchdog: got failures %q, want one saying the subtest did not finish", msgs)
	}
}

// TestPanicReported shows a strategy that panics fails its subtest with the panic, instead
// of crashing the test binary.
func TestPanicReported(t *testing.T) {
	got := runChecks(t, reference.Factory(reference.Ordered, reference.PanicCommit), time.Minute, "LeniencyAddOverwrites")
	msgs := got["LeniencyAddOverwrites"]
	if len(msgs) == 0 || !strings.Contains(msgs[0], "panicked: reference: commit panics on purpose") {
		t.Errorf("panic: got failures %q, want the first to report the panic", msgs)
	}
}

// TestNamesAreUnique checks no two subtests share a name, for either declared order.
func TestNamesAreUnique(t *testing.T) {
	for _, f := range []Factory{
		reference.Factory(reference.Ordered, reference.NoBug),
		reference.Factory(reference.Shared, reference.NoBug),
	} {
		seen := map[string]bool{}
		for _, c := range checks(f(nil).Capabilities()) {
			if seen[c.name] {
				t.Errorf("check name %q: duplicate", c.name)
			}
			seen[c.name] = true
		}
	}
}

// TestDistinctStates shows the determinism detector separates a reproducible order from one
// that changes between strategy instances.
func TestDistinctStates(t *testing.T) {
	n, err := DistinctStates(reference.Factory(reference.Ordered, reference.NoBug), 3, 3, []int{1, 2}, 7)
	if err != nil || n != 1 {
		t.Errorf("distinct states of the ordered reference: got %d, %v; want 1, nil", n, err)
	}
	n, err = DistinctStates(reference.Factory(reference.Ordered, reference.RotateRecorders), 2, 3, []int{1}, 7)
	if err != nil || n < 2 {
		t.Errorf("distinct states of a strategy whose order rotates per instance: got %d, %v; want at least 2, nil", n, err)
	}
	if _, err := DistinctStates(reference.Factory(reference.Ordered, reference.NoBug), 0, 3, nil, 7); err == nil {
		t.Errorf("distinct states with 0 runs: got nil error, want one")
	}
	if _, err := DistinctStates(reference.Factory(reference.Ordered, reference.NoBug), 1, 1, []int{0}, 7); err == nil {
		t.Errorf("distinct states with GOMAXPROCS 0: got nil error, want one")
	}
}
