package conformance

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// ReadTask is the handle of one read submitted with a ReadFunc: Done is closed once the read
// has run, and Wait blocks until then and returns the read's error.
type ReadTask interface {
	Done() <-chan struct{}
	Wait() error
}

// ReadFunc submits fn as a read of s's world on the strategy's own read path (lazyguarded's
// pipe) and returns its task without waiting for it. s is a strategy the suite's factory made.
type ReadFunc func(s deferral.Strategy, fn func(w *ecs.World) error) ReadTask

// flushGrace is how long the overlap row gives a read submitted during a blocked flush to get
// in before it releases the flush. A correct strategy cannot fail the row however long this
// is (its read waits for the flush); a strategy admitting the read runs it within
// microseconds, so the row catches it well inside this.
const flushGrace = 200 * time.Millisecond

// TestReaders runs the reader-modes suite against strategies f makes, whose reads go through
// read; each row is a subtest on a fresh World and strategy. The mode is the one the strategy
// declares: Capabilities.ReadsWaitForStaged (readers-wait: a read submitted behind staged
// commands waits for the commit and runs between them, in its FIFO place) or not
// (readers-pass: a read runs at once against the last committed world, passing staged
// commands). In both modes a read never overlaps a running commit: one submitted during it
// starts after it, and sees what it applied.
//
//	func TestConformanceReaders(t *testing.T) { conformance.TestReaders(t, lazyguarded.Factory, read) }
func TestReaders(t *testing.T, f Factory, read ReadFunc) {
	t.Helper()
	if read == nil {
		t.Fatal("conformance.TestReaders: ReadFunc is nil")
	}
	with := func(fn func(x *fixture, read ReadFunc)) func(x *fixture) {
		return func(x *fixture) { fn(x, read) }
	}
	mode := "ReadersPass"
	if f(nil).Capabilities().ReadsWaitForStaged {
		mode = "ReadersWait"
	}
	runRows(t, "TestReaders", f, []row{
		{"PipeReads" + mode, with(checkPipeReads), 0},
		{"ReadTask", with(checkReadTask), 0},
		{"ReadersErrorReturned", with(checkReadersErrorReturned), 0},
		{"ReadersNeverOverlapFlush", with(checkReadersNeverOverlapFlush), 0},
		{"FlushWaitsForRunningRead", with(checkFlushWaitsForRead), 0},
		{"ReadersAfterDiscard", with(checkReadersAfterDiscard), 0},
		{"ReadersAfterFailedFlush", with(checkReadersAfterFailedFlush), varyCmd},
	})
}

// readPos submits a read of e's position into *got.
func readPos(x *fixture, read ReadFunc, e ecs.Entity, got *workload.Vec2) ReadTask {
	return read(x.s, func(w *ecs.World) error {
		v, err := workload.Position.Get(w, e)
		*got = v
		return err
	})
}

// done says whether t has completed, without waiting.
func done(t ReadTask) bool {
	select {
	case <-t.Done():
		return true
	default:
		return false
	}
}

// waitRead waits for t and reports an error it returns.
func (x *fixture) waitRead(op string, t ReadTask) {
	x.Helper()
	if err := t.Wait(); err != nil {
		x.Errorf("%s: wait: got error %v, want nil", op, err)
	}
}

// checkPipeReads: readers-wait: reads submitted between staged commands wait for the commit
// and see exactly the commands staged before them; readers-pass: they run at once and see the
// committed world, none of the staged commands.
func checkPipeReads(x *fixture, read ReadFunc) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	var a, b workload.Vec2
	r.Set(e, pt(1, 1))
	ta := readPos(x, read, e, &a)
	r.Set(e, pt(2, 2))
	tb := readPos(x, read, e, &b)
	r.Set(e, pt(3, 3))
	if !x.caps.ReadsWaitForStaged {
		x.waitRead("read a (readers-pass: runs before the commit)", ta)
		x.waitRead("read b", tb)
		want(x, "read a (readers-pass: the committed world)", a, v2(0, 0))
		want(x, "read b (readers-pass: the committed world)", b, v2(0, 0))
		x.commit("commit", x.s)
		var c workload.Vec2
		x.waitRead("read after the commit", readPos(x, read, e, &c))
		want(x, "read after the commit", c, v2(3, 3))
		return
	}
	if done(ta) || done(tb) {
		x.Errorf("reads behind staged commands: completed before the commit (a %v, b %v), want them waiting (readers-wait)", done(ta), done(tb))
	}
	x.commit("commit", x.s)
	x.waitRead("read a", ta)
	x.waitRead("read b", tb)
	want(x, "read a (staged between the first and second set)", a, v2(1, 1))
	want(x, "read b (staged between the second and third set)", b, v2(2, 2))
	want(x, "position of e after the commit", x.pos("e", x.w, e), v2(3, 3))
	var c workload.Vec2
	x.waitRead("read with nothing staged (runs at once)", readPos(x, read, e, &c))
	want(x, "read with nothing staged", c, v2(3, 3))
}

// checkReadTask: a read's task completes once, Done closed when Wait returns, and the read
// ran exactly once, in both modes and whether it waited for a commit or not.
func checkReadTask(x *fixture, read ReadFunc) {
	e := x.create(x.w, pt(0, 0))
	var runs atomic.Int32
	count := func(*ecs.World) error { runs.Add(1); return nil }
	t0 := read(x.s, count)
	x.waitRead("read with nothing staged", t0)
	if !done(t0) {
		x.Errorf("read's task after Wait returned: Done not closed")
	}
	r := x.rec()
	r.Set(e, pt(1, 1))
	t1 := read(x.s, count)
	r.Set(e, pt(2, 2))
	x.commit("commit", x.s)
	x.waitRead("read staged between two sets", t1)
	x.waitRead("read with nothing staged, again", t0)
	x.commit("empty commit", x.s)
	want(x, "runs of the two reads", runs.Load(), int32(2))
	want(x, "pending", x.s.Pending(), 0)
}

// checkReadersErrorReturned: a read's error comes back unchanged from Wait and does not fail
// the commit it ran in (a read changes nothing); a nil read never panics, its task completes
// with an error wrapping deferral.ErrInvalidCommand.
func checkReadersErrorReturned(x *fixture, read ReadFunc) {
	e := x.create(x.w, pt(0, 0))
	errRead := errors.New("conformance: the read's own error")
	r := x.rec()
	r.Set(e, pt(1, 1))
	t := read(x.s, func(*ecs.World) error { return errRead })
	tn := read(x.s, nil)
	r.Set(e, pt(2, 2))
	x.commit("commit with failing reads staged between its sets", x.s)
	want(x, "pending", x.s.Pending(), 0)
	want(x, "position of e (the reads' errors stop nothing)", x.pos("e", x.w, e), v2(2, 2))
	if err := t.Wait(); !errors.Is(err, errRead) {
		x.Errorf("wait on a read returning an error: got %v, want %v", err, errRead)
	}
	if err := tn.Wait(); !errors.Is(err, deferral.ErrInvalidCommand) {
		x.Errorf("wait on a nil read: got %v, want an error wrapping %v", err, deferral.ErrInvalidCommand)
	}
	if err := read(x.s, func(*ecs.World) error { return errRead }).Wait(); !errors.Is(err, errRead) {
		x.Errorf("wait on a read returning an error, nothing staged: got %v, want %v", err, errRead)
	}
}

// checkReadersNeverOverlapFlush: a read submitted while a commit runs (blocked in a closure)
// does not start until the commit ends, in either mode, and then sees everything the commit
// applied. The closure holds the commit until the read got in or flushGrace passed.
func checkReadersNeverOverlapFlush(x *fixture, read ReadFunc) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	var inFlush atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	r.Set(e, pt(1, 1))
	r.Do(func(*ecs.World) error {
		inFlush.Add(1)
		close(entered)
		<-release
		inFlush.Add(-1)
		return nil
	})
	r.Set(e, pt(2, 2))
	committed := make(chan error, 1)
	go func() { committed <- x.s.Commit() }()
	<-entered
	var sawFlush int32
	var got workload.Vec2
	t := read(x.s, func(w *ecs.World) error {
		sawFlush = inFlush.Load()
		v, err := workload.Position.Get(w, e)
		got = v
		return err
	})
	overlapped := false
	select {
	case <-t.Done():
		overlapped = true
	case <-time.After(flushGrace):
	}
	close(release)
	x.wantNil("commit (held by a closure while a read was submitted)", <-committed)
	x.waitRead("read submitted during the commit", t)
	if overlapped || sawFlush != 0 {
		x.Errorf("read submitted while a commit ran: it ran during the commit (completed before the commit was released: %v; saw the commit running: %v), want it to start after the commit", overlapped, sawFlush != 0)
	}
	want(x, "read submitted during the commit (sees all the commit applied)", got, v2(2, 2))
	want(x, "pending", x.s.Pending(), 0)
}

// checkFlushWaitsForRead: a commit started while a read runs applies nothing until the read
// ends: the read sees the world before the commit from start to end, and the commit returns
// only after the read is released.
func checkFlushWaitsForRead(x *fixture, read ReadFunc) {
	e := x.create(x.w, pt(0, 0))
	entered, release := make(chan struct{}), make(chan struct{})
	var first, last workload.Vec2
	task := make(chan ReadTask, 1)
	go func() {
		task <- read(x.s, func(w *ecs.World) error {
			first, _ = workload.Position.Get(w, e)
			close(entered)
			<-release
			var err error
			last, err = workload.Position.Get(w, e)
			return err
		})
	}()
	<-entered
	r := x.rec()
	r.Set(e, pt(1, 1))
	committed := make(chan error, 1)
	go func() { committed <- x.s.Commit() }()
	early := false
	select {
	case err := <-committed:
		early = true
		committed <- err
	case <-time.After(flushGrace):
	}
	close(release)
	x.wantNil("commit started while a read ran", <-committed)
	x.waitRead("the read the commit waited for", <-task)
	if early {
		x.Errorf("commit started while a read ran: it returned before the read was released, want it to wait for the read")
	}
	want(x, "the read's first look at the entity", first, v2(0, 0))
	want(x, "the read's last look at the entity (the commit waited)", last, v2(0, 0))
	want(x, "position of e after the commit", x.pos("e", x.w, e), v2(1, 1))
}

// checkReadersAfterDiscard: a discard drops the staged commands and admits the reads that
// waited behind them (readers-wait), which see the world without them; staging, reading and
// committing afterwards work as on a fresh pipe, twice over (a pipe left with a stale end
// loses what is staged next, or panics in the next commit).
func checkReadersAfterDiscard(x *fixture, read ReadFunc) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	var a, b workload.Vec2
	r.Set(e, pt(1, 1))
	ta := readPos(x, read, e, &a)
	r.Set(e, pt(2, 2))
	tb := readPos(x, read, e, &b)
	want(x, "discard", x.s.Discard(), 2)
	x.waitRead("read a (admitted by the discard)", ta)
	x.waitRead("read b (admitted by the discard)", tb)
	want(x, "read a after the discard (the committed world)", a, v2(0, 0))
	want(x, "read b after the discard (the committed world)", b, v2(0, 0))
	want(x, "pending after the discard", x.s.Pending(), 0)
	for round := range 2 {
		k := float64(3 + round)
		var c workload.Vec2
		r.Set(e, pt(k, k))
		tc := readPos(x, read, e, &c)
		r.Set(e, pt(k, 10))
		want(x, fmt.Sprintf("round %d: pending", round), x.s.Pending(), 2)
		x.commit(fmt.Sprintf("round %d after the discard: commit", round), x.s)
		x.waitRead(fmt.Sprintf("round %d: read", round), tc)
		if x.caps.ReadsWaitForStaged {
			want(x, fmt.Sprintf("round %d: read between the sets", round), c, v2(k, k))
		}
		want(x, fmt.Sprintf("round %d: position of e", round), x.pos("e", x.w, e), v2(k, 10))
		want(x, fmt.Sprintf("round %d: pending after the commit", round), x.s.Pending(), 0)
	}
}

// checkReadersAfterFailedFlush: a commit failing at a staged command keeps that command and
// its suffix pending; readers-wait: the reads before it ran and saw the prefix, the reads
// behind it wait, through a retry that fails again, and run in their place in the retry that
// succeeds; readers-pass: a read after the failure runs at once and sees the prefix.
func checkReadersAfterFailedFlush(x *fixture, read ReadFunc) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	broken := new(bool)
	var a, b workload.Vec2
	var runsA, runsB atomic.Int32
	r.Set(e, pt(1, 1))
	ta := read(x.s, func(w *ecs.World) error {
		runsA.Add(1)
		v, err := workload.Position.Get(w, e)
		a = v
		return err
	})
	cause := x.failing(r, e, v2(5, 5), broken)
	tb := read(x.s, func(w *ecs.World) error {
		runsB.Add(1)
		v, err := workload.Velocity.Get(w, e)
		b = v
		return err
	})
	r.Set(e, pt(2, 2))
	at := deferral.Pos{Recorder: r.Index(), Index: 1}
	x.wantFailedAt("commit failing at the second command", x.s.Commit(), at, cause)
	want(x, "position of e (the prefix applied)", x.pos("e", x.w, e), v2(1, 1))
	want(x, "pending (the failing command and its suffix)", x.s.Pending(), 2)
	if !x.caps.ReadsWaitForStaged {
		x.waitRead("read a (readers-pass)", ta)
		var c workload.Vec2
		x.waitRead("read after the failed commit (readers-pass: runs at once)", readPos(x, read, e, &c))
		want(x, "read after the failed commit (the prefix)", c, v2(1, 1))
		x.fixFailing(e, broken)
		x.commit("retry after the cause is fixed", x.s)
		if err := tb.Wait(); !errors.Is(err, ecs.ErrMissingComponent) {
			x.Errorf("read b (readers-pass: ran at once, before the velocity was set): got error %v, want %v", err, ecs.ErrMissingComponent)
		}
		want(x, "position of e after the retry", x.pos("e", x.w, e), v2(2, 2))
		return
	}
	x.waitRead("read a (before the failing command)", ta)
	want(x, "read a (the prefix before it)", a, v2(1, 1))
	if done(tb) {
		x.Errorf("read b (staged behind the failing command): completed after the failed commit, want it waiting")
	}
	x.wantFailedAt("retry with the cause unfixed", x.s.Commit(), at, cause)
	if done(tb) {
		x.Errorf("read b: completed after the second failed commit, want it waiting")
	}
	x.fixFailing(e, broken)
	x.commit("retry after the cause is fixed", x.s)
	x.waitRead("read b (after the failing command)", tb)
	want(x, "read b (velocity the fixed command set)", b, v2(5, 5))
	want(x, "runs of read a (never replayed)", runsA.Load(), int32(1))
	want(x, "runs of read b", runsB.Load(), int32(1))
	want(x, "position of e after the retry", x.pos("e", x.w, e), v2(2, 2))
	want(x, "pending after the retry", x.s.Pending(), 0)
}
