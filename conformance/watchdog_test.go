package conformance

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/conformance/internal/reference"
)

// blockingRows are rows whose commit a HangCommit or SpinCommit strategy never returns from.
var blockingRows = []string{
	"LeniencyAddOverwrites", "LeniencyRemoveMissingNoop", "LeniencySkipAfterDestroy",
	"SetMissingFails", "CreateCulled", "PlaceholderSameRecorder", "ReportApplyOrder",
	"FailurePrefixRetained",
}

// TestWatchdogManyRowsBlock shows eight rows whose commit blocks forever, or spins on the CPU,
// each fail with a message naming the row within the watchdog's bound, and that a row after
// them still runs and passes: the suite reports instead of hanging, and the goroutines left
// spinning do not starve it (the watchdog gives back a P for each).
func TestWatchdogManyRowsBlock(t *testing.T) {
	for _, bug := range []reference.Bug{reference.HangCommit, reference.SpinCommit} {
		procs := runtime.GOMAXPROCS(0)
		start := time.Now()
		got := runChecks(t, reference.Factory(reference.Ordered, bug), 100*time.Millisecond, blockingRows...)
		for _, name := range blockingRows {
			msgs := got[name]
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0], name) || !strings.Contains(msgs[0], ": did not finish within 100ms") {
				t.Errorf("bug %d, row %s: got failures %q, want one naming the row and saying it did not finish", bug, name, msgs)
			}
		}
		if el := time.Since(start); el > 30*time.Second {
			t.Errorf("bug %d: eight blocking rows took %v, want about 8 x 100ms", bug, el)
		}
		after := runChecks(t, reference.Factory(reference.Ordered, reference.NoBug), time.Minute, "LeniencyAddOverwrites")
		if msgs := after["LeniencyAddOverwrites"]; len(msgs) != 0 {
			t.Errorf("bug %d: a row after the blocking ones: got failures %q, want none", bug, msgs)
		}
		if bug == reference.SpinCommit && runtime.GOMAXPROCS(0) <= procs {
			t.Errorf("GOMAXPROCS after eight spinning rows: %d, want more than %d (one P for each spinner)", runtime.GOMAXPROCS(0), procs)
		}
	}
}

// deadlineT is a TB whose binary's deadline is at a given time.
type deadlineT struct {
	fakeT
	at time.Time
}

func (d *deadlineT) Deadline() (time.Time, bool) { return d.at, true }

// TestWatchdogBoundedByDeadline shows a row's bound shrinks near the test binary's deadline
// (an eighth of what is left before the reserve) and that a row started inside the reserve
// fails at once with a message naming it, so that go test -timeout is never what ends a
// suite whose rows block.
func TestWatchdogBoundedByDeadline(t *testing.T) {
	far := &deadlineT{at: time.Now().Add(time.Hour)}
	if d, ok := rowTimeout(far, Timeout); !ok || d != Timeout {
		t.Errorf("row bound an hour before the deadline: got %v, %v; want %v, true", d, ok, Timeout)
	}
	near := &deadlineT{at: time.Now().Add(DeadlineReserve + 8*time.Second)}
	if d, ok := rowTimeout(near, Timeout); !ok || d > time.Second || d < 900*time.Millisecond {
		t.Errorf("row bound 8 s before the reserve: got %v, %v; want about 1s, true", d, ok)
	}
	late := &deadlineT{fakeT: fakeT{TB: t}, at: time.Now().Add(DeadlineReserve / 2)}
	c := checks(reference.Factory(reference.Ordered, reference.NoBug)(nil).Capabilities())[0]
	runCheck(late, reference.Factory(reference.Ordered, reference.HangCommit), c, 1, Timeout)
	if msgs := late.failures(); len(msgs) != 1 || !strings.Contains(msgs[0], c.name+": not run: the test binary's deadline") {
		t.Errorf("a row inside the deadline's reserve: got failures %q, want one naming the row, not run", msgs)
	}
}
