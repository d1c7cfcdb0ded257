package lazyguarded_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

type counter struct{ v int }

func set(v int) func(*counter) error { return func(c *counter) error { c.v = v; return nil } }

// await fails the test when task does not complete: a watchdog, not an ordering device.
func await(t *testing.T, task *lazyguarded.Task, what string) error {
	t.Helper()
	select {
	case <-task.Done():
		return task.Wait()
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: task did not complete", what)
		return nil
	}
}

func done(task *lazyguarded.Task) bool {
	select {
	case <-task.Done():
		return true
	default:
		return false
	}
}

// TestFIFOReadersWait: with a parked write at the front of the pipe, a read submitted behind
// it does not run before the flush, and observes the write when it does.
func TestFIFOReadersWait(t *testing.T) {
	c := &counter{}
	g := lazyguarded.NewReadersWait(c)
	ran := make(chan int, 1)
	w := g.Submit(lazyguarded.Write, set(1))
	r := g.Submit(lazyguarded.Read, func(c *counter) error { ran <- c.v; return nil })
	if done(w) || done(r) {
		t.Fatal("before flush: a job of the pipe completed")
	}
	select {
	case v := <-ran:
		t.Fatalf("before flush: read ran (saw %d), want it held behind the parked write", v)
	default:
	}
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	// The read is behind the last parked write: it is admitted when the flush releases the
	// write hold, and observes the write.
	if err := await(t, r, "read behind the flushed write"); err != nil {
		t.Fatal(err)
	}
	if !done(w) {
		t.Fatal("after flush: write not completed")
	}
	if v := <-ran; v != 1 {
		t.Fatalf("read saw %d, want 1 (the write before it)", v)
	}
}

// TestFIFOReadersPass: with a parked write at the front, a read runs before the flush and
// observes the pre-flush state.
func TestFIFOReadersPass(t *testing.T) {
	c := &counter{}
	g := lazyguarded.NewReadersPass(c)
	w := g.Write(set(1))
	seen := -1
	r := g.Read(func(c *counter) error { seen = c.v; return nil })
	if err := await(t, r, "read passing a parked write"); err != nil {
		t.Fatal(err)
	}
	if done(w) {
		t.Fatal("write completed without a flush")
	}
	if seen != 0 {
		t.Fatalf("read saw %d, want 0 (pre-flush state)", seen)
	}
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := await(t, w, "write"); err != nil || c.v != 1 {
		t.Fatalf("after flush: write err %v, value %d; want nil, 1", err, c.v)
	}
}

// TestReadersWaitExactValues: reads between parked writes observe exactly the writes before
// them.
func TestReadersWaitExactValues(t *testing.T) {
	c := &counter{}
	g := lazyguarded.NewReadersWait(c)
	var seen [3]int
	var reads [3]*lazyguarded.Task
	for i := range 3 {
		g.Write(set(10 * (i + 1)))
		reads[i] = g.Read(func(c *counter) error { seen[i] = c.v; return nil })
	}
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := await(t, reads[i], "read"); err != nil {
			t.Fatal(err)
		}
		if want := 10 * (i + 1); seen[i] != want {
			t.Errorf("read %d saw %d, want %d", i, seen[i], want)
		}
	}
}

// TestReadersConcurrent: two admitted readers run at the same time (each waits for the other
// to have started).
func TestReadersConcurrent(t *testing.T) {
	for _, g := range []*lazyguarded.Guarded[counter]{lazyguarded.NewReadersWait(&counter{}), lazyguarded.NewReadersPass(&counter{})} {
		a, b := make(chan struct{}), make(chan struct{})
		r1 := g.Read(func(*counter) error { close(a); <-b; return nil })
		r2 := g.Read(func(*counter) error { close(b); <-a; return nil })
		await(t, r1, g.Mode().String()+" reader 1")
		await(t, r2, g.Mode().String()+" reader 2")
	}
}

// TestFlushWaitsForReaders: a flush does not apply a write while an admitted reader runs.
func TestFlushWaitsForReaders(t *testing.T) {
	c := &counter{}
	g := lazyguarded.NewReadersPass(c)
	release := make(chan struct{})
	seen := -1
	r := g.Read(func(c *counter) error { <-release; seen = c.v; return nil })
	w := g.Write(set(1))
	flushed := make(chan error)
	go func() { flushed <- g.Flush() }()
	// A read submitted now queues behind the flush (or runs before it if the flush has not
	// started yet); either way it must not observe a torn state.
	close(release)
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	await(t, r, "reader")
	await(t, w, "write")
	if seen != 0 {
		t.Fatalf("reader admitted before the flush saw %d, want 0", seen)
	}
	if c.v != 1 {
		t.Fatalf("value after flush = %d, want 1", c.v)
	}
}

// TestFlushFailureKeepsSuffix: a failing write stays parked with everything behind it; the
// retry resumes there without replaying the prefix.
func TestFlushFailureKeepsSuffix(t *testing.T) {
	type st struct {
		log  []int
		fail bool
	}
	s := &st{fail: true}
	g := lazyguarded.NewReadersWait(s)
	boom := errors.New("boom")
	add := func(v int) func(*st) error { return func(s *st) error { s.log = append(s.log, v); return nil } }
	t1 := g.Write(add(1))
	t2 := g.Write(func(s *st) error {
		if s.fail {
			return boom
		}
		s.log = append(s.log, 2)
		return nil
	})
	t3 := g.Write(add(3))
	if err := g.Flush(); !errors.Is(err, boom) {
		t.Fatalf("flush = %v, want boom", err)
	}
	if !done(t1) || done(t2) || done(t3) {
		t.Fatalf("after failed flush: done = %v %v %v, want true false false", done(t1), done(t2), done(t3))
	}
	if g.Pending() != 2 {
		t.Fatalf("pending = %d, want 2", g.Pending())
	}
	s.fail = false
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := s.log; len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("log = %v, want [1 2 3] (no replay)", got)
	}
	if err := t2.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestDiscard: parked writes complete with ErrDiscarded and a read held behind them runs.
func TestDiscard(t *testing.T) {
	c := &counter{}
	g := lazyguarded.NewReadersWait(c)
	w := g.Write(set(1))
	seen := -1
	r := g.Read(func(c *counter) error { seen = c.v; return nil })
	if n, err := g.Discard(); n != 1 || err != nil {
		t.Fatalf("Discard = %d, %v; want 1, nil", n, err)
	}
	if err := await(t, w, "discarded write"); !errors.Is(err, lazyguarded.ErrDiscarded) {
		t.Fatalf("discarded write: %v, want ErrDiscarded", err)
	}
	await(t, r, "read behind a discarded write")
	if seen != 0 || g.Pending() != 0 {
		t.Fatalf("seen %d pending %d, want 0 0", seen, g.Pending())
	}
}

// TestFlushInsideJob: a flush from inside a write job is refused, not a deadlock.
func TestFlushInsideJob(t *testing.T) {
	c := &counter{}
	g := lazyguarded.NewReadersWait(c)
	var inner error
	g.Write(func(*counter) error { inner = g.Flush(); return nil })
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, lazyguarded.ErrFlushing) {
		t.Fatalf("inner flush = %v, want ErrFlushing", inner)
	}
}

type op struct{ rec, seq int }

// TestRecorderFIFOAndPositions: concurrent recorders keep FIFO within each; positions name
// recorder and index; a failing typed command is reported by apply with its position.
func TestRecorderFIFOAndPositions(t *testing.T) {
	var log []op
	g := lazyguarded.NewReadersWait(&log)
	apply := func(l *[]op, at deferral.Pos, c *op) error {
		if at.Recorder != c.rec || at.Index != c.seq {
			return errors.New("position mismatch")
		}
		*l = append(*l, *c)
		return nil
	}
	const P, N = 4, 200
	var wg sync.WaitGroup
	for range P {
		r := lazyguarded.NewRecorder(g, apply)
		wg.Go(func() {
			for i := range N {
				r.Stage(op{r.Index(), i})
			}
		})
	}
	wg.Wait()
	if g.Pending() != P*N {
		t.Fatalf("pending = %d, want %d", g.Pending(), P*N)
	}
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	next := make([]int, P)
	for _, o := range log {
		if o.seq != next[o.rec] {
			t.Fatalf("recorder %d: got seq %d, want %d (FIFO)", o.rec, o.seq, next[o.rec])
		}
		next[o.rec]++
	}
	// Positions count from the drained flush.
	r := lazyguarded.NewRecorder(g, apply)
	r.Stage(op{r.Index(), 0})
	task := r.StageFunc(func(*[]op) error { return errors.New("closure failed") })
	err := g.Flush()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || ce.Pos != (deferral.Pos{Recorder: P, Index: 1}) || ce.Verb != deferral.VerbFunc {
		t.Fatalf("flush = %v, want a CommandError at recorder %d index 1", err, P)
	}
	if done(task) {
		t.Fatal("failing closure's task completed")
	}
	g.Discard()
	if err := task.Wait(); !errors.Is(err, lazyguarded.ErrDiscarded) {
		t.Fatal(err)
	}
}

// TestFlushPanicKeepsPipe: a job that panics leaves itself and the jobs behind it parked,
// and the pipe usable.
func TestFlushPanicKeepsPipe(t *testing.T) {
	c := &counter{}
	g := lazyguarded.NewReadersWait(c)
	g.Write(set(1))
	g.Write(func(*counter) error { panic("job panicked") })
	last := g.Write(set(3))
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("flush did not propagate the job's panic")
			}
		}()
		g.Flush()
	}()
	if c.v != 1 || g.Pending() != 2 {
		t.Fatalf("after panic: value %d pending %d, want 1 2", c.v, g.Pending())
	}
	if n, err := g.Discard(); n != 2 || err != nil {
		t.Fatalf("Discard = %d, %v; want 2, nil", n, err)
	}
	if err := last.Wait(); !errors.Is(err, lazyguarded.ErrDiscarded) {
		t.Fatal(err)
	}
	g.Write(set(4))
	if err := g.Flush(); err != nil || c.v != 4 {
		t.Fatalf("flush after panic: %v, value %d; want nil, 4", err, c.v)
	}
}

// TestNilClosure: a nil closure never panics, whoever stages it. Through a Recorder's
// StageFunc or StageFuncKeyed (also from inside a flush, by another job) the flush fails at
// it with a *deferral.CommandError wrapping deferral.ErrInvalidCommand and keeps it and the
// jobs behind it parked; a nil Write fails the flush with an error wrapping
// deferral.ErrInvalidCommand; a nil Read completes its task with such an error instead of
// crashing the goroutine it runs on.
func TestNilClosure(t *testing.T) {
	apply := func(l *[]op, at deferral.Pos, c *op) error { *l = append(*l, *c); return nil }
	wantAt := func(op string, err error, pos deferral.Pos) {
		t.Helper()
		var ce *deferral.CommandError
		if !errors.As(err, &ce) || ce.Pos != pos || ce.Verb != deferral.VerbFunc || !errors.Is(err, deferral.ErrInvalidCommand) {
			t.Fatalf("%s = %v, want a *deferral.CommandError (func) at %+v wrapping ErrInvalidCommand", op, err, pos)
		}
	}
	for _, mode := range []string{"wait", "pass"} {
		t.Run(mode, func(t *testing.T) {
			var log []op
			g := lazyguarded.NewReadersWait(&log)
			if mode == "pass" {
				g = lazyguarded.NewReadersPass(&log)
			}
			r := lazyguarded.NewRecorder(g, apply)
			r.Stage(op{0, 0})
			task := r.StageFunc(nil)
			r.StageFuncKeyed(3, nil)
			wantAt("flush", g.Flush(), deferral.Pos{Recorder: 0, Index: 1})
			wantAt("retry", g.Flush(), deferral.Pos{Recorder: 0, Index: 1})
			if len(log) != 1 || g.Pending() != 2 || done(task) {
				t.Fatalf("after the failed flush: applied %v, pending %d, task done %v; want 1 applied, 2 pending, not done", log, g.Pending(), done(task))
			}
			if n, err := g.Discard(); n != 2 || err != nil {
				t.Fatalf("Discard = %d, %v; want 2, nil", n, err)
			}

			// Staged from inside a flush: parked for the next one, numbered from 0 there.
			r.StageFunc(func(*[]op) error { r.StageFunc(nil); return nil })
			if err := g.Flush(); err != nil {
				t.Fatalf("flush whose job stages a nil closure: %v", err)
			}
			r.Stage(op{0, 1})
			wantAt("flush of the nil closure staged during a flush", g.Flush(), deferral.Pos{Recorder: 0, Index: 0})
			if n, err := g.Discard(); n != 2 || err != nil {
				t.Fatalf("Discard = %d, %v; want 2, nil", n, err)
			}

			g.Write(nil)
			if err := g.Flush(); !errors.Is(err, deferral.ErrInvalidCommand) || g.Pending() != 1 {
				t.Fatalf("flush of a nil write = %v, pending %d; want ErrInvalidCommand, 1", err, g.Pending())
			}
			g.Discard()
			if err := await(t, g.Read(nil), "nil read"); !errors.Is(err, deferral.ErrInvalidCommand) {
				t.Fatalf("nil read = %v, want ErrInvalidCommand", err)
			}
			if err := await(t, g.Submit(lazyguarded.Read, nil), "nil submitted read"); !errors.Is(err, deferral.ErrInvalidCommand) {
				t.Fatalf("nil submitted read = %v, want ErrInvalidCommand", err)
			}
			r.Stage(op{0, 0})
			if err := g.Flush(); err != nil || g.Pending() != 0 {
				t.Fatalf("flush after discard: %v, pending %d; want nil, 0", err, g.Pending())
			}
		})
	}
}
