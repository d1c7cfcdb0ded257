package lazyguarded_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

type vec struct{ X, Y float64 }

var pos = ecs.NewComponent[vec]("lazyguarded.pos", nil)
var vel = ecs.NewComponent[vec]("lazyguarded.vel", nil)

func TestECSSmoke(t *testing.T) {
	for _, mode := range []lazyguarded.ReaderMode{lazyguarded.ReadersWait, lazyguarded.ReadersPass} {
		t.Run(mode.String(), func(t *testing.T) {
			w := ecs.NewWorld()
			s := lazyguarded.NewECS(w, mode)
			wantName := map[lazyguarded.ReaderMode]string{lazyguarded.ReadersWait: "lazyguarded", lazyguarded.ReadersPass: "lazyguarded-pass"}[mode]
			if s.Name() != wantName || s.Capabilities().ReproducibleOrder || s.Capabilities().SortKeys {
				t.Fatalf("name %q caps %+v", s.Name(), s.Capabilities())
			}
			r := s.NewRecorder()
			p := r.Create(pos.Value(vec{1, 2}))
			r.Add(p, vel.Value(vec{3, 4}))
			r.Set(p, vel.Value(vec{5, 6}))
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
			e, err := s.Resolve(p)
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := vel.Get(w, e); v != (vec{5, 6}) {
				t.Fatal(v)
			}
			r.Set(e, pos.Value(vec{9, 9}))
			r.Remove(e, vel.ID())
			r.Set(e, vel.Value(vec{1, 1})) // fails: vel was removed
			r.Destroy(e)
			err = s.Commit()
			var ce *deferral.CommandError
			if !errors.As(err, &ce) || !errors.Is(err, ecs.ErrMissingComponent) || ce.Pos.Index != 2 {
				t.Fatalf("commit = %v, want a CommandError at index 2 wrapping ErrMissingComponent", err)
			}
			if got := s.Pending(); got != 2 {
				t.Fatalf("pending after failure = %d, want 2", got)
			}
			if _, err := s.TakeReport(); !errors.Is(err, deferral.ErrPending) {
				t.Fatalf("TakeReport while pending = %v, want ErrPending", err)
			}
			if err := s.Close(); !errors.Is(err, deferral.ErrPendingAtClose) {
				t.Fatalf("Close while pending = %v, want ErrPendingAtClose", err)
			}
			if got := s.Discard(); got != 2 {
				t.Fatalf("Discard = %d, want 2", got)
			}
			rep, err := s.TakeReport()
			if err != nil || len(rep.Created) != 1 || rep.Applied != 5 {
				t.Fatalf("report %+v, %v; want 1 created, 5 applied", rep, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(); !errors.Is(err, deferral.ErrClosed) {
				t.Fatalf("commit after close = %v, want ErrClosed", err)
			}
		})
	}
}

// TestECSRetryNoReplay: after a failed commit, the retry resumes at the failing command.
func TestECSRetryNoReplay(t *testing.T) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	s := lazyguarded.NewECS(w, lazyguarded.ReadersWait)
	r := s.NewRecorder()
	calls := 0
	r.Do(func(*ecs.World) error { calls++; return nil })
	r.Set(e, vel.Value(vec{1, 1})) // fails until vel is added
	r.Create(pos.Value(vec{2, 2}))
	if err := s.Commit(); !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("commit = %v, want ErrMissingComponent", err)
	}
	if err := vel.Add(w, e, vec{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	rep, _ := s.TakeReport()
	if calls != 1 || rep.Applied != 3 || len(rep.Created) != 1 {
		t.Fatalf("calls %d, report %+v; want 1 call, 3 applied, 1 created", calls, rep)
	}
}

// TestECSConcurrentFIFO: producers stage concurrently; each recorder's commands apply FIFO.
func TestECSConcurrentFIFO(t *testing.T) {
	w := ecs.NewWorld()
	s := lazyguarded.NewECS(w, lazyguarded.ReadersPass)
	const P, N = 4, 250
	var wg sync.WaitGroup
	recs := make([]*deferral.Recorder, P)
	for p := range P {
		recs[p] = s.NewRecorder()
	}
	for p, r := range recs {
		wg.Go(func() {
			for i := range N {
				r.Create(pos.Value(vec{float64(p), float64(i)}))
			}
		})
	}
	// A reader passing the parked writes sees the pre-commit world.
	seen := -1
	if err := s.Read(func(w *ecs.World) error { seen = w.Len(); return nil }).Wait(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if seen != 0 {
		t.Fatalf("reader saw %d entities before commit, want 0", seen)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.TakeReport()
	if err != nil || len(rep.Created) != P*N {
		t.Fatalf("created %d, %v; want %d", len(rep.Created), err, P*N)
	}
	next := make([]float64, P)
	for _, e := range rep.Created {
		v, _ := pos.Get(w, e)
		if v.Y != next[int(v.X)] {
			t.Fatalf("producer %v: got %v, want %v (FIFO)", v.X, v.Y, next[int(v.X)])
		}
		next[int(v.X)]++
	}
}

// TestECSReentry: a commit from inside a staged closure is refused.
func TestECSReentry(t *testing.T) {
	w := ecs.NewWorld()
	s := lazyguarded.NewECS(w, lazyguarded.ReadersWait)
	r := s.NewRecorder()
	var inner error
	r.Do(func(*ecs.World) error { inner = s.Commit(); return nil })
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, deferral.ErrReentry) {
		t.Fatalf("inner commit = %v, want ErrReentry", inner)
	}
}

// TestECSReadersWaitSeesCommit: in readers-wait mode a read submitted after a staged command
// is held until the commit and then observes it.
func TestECSReadersWaitSeesCommit(t *testing.T) {
	w := ecs.NewWorld()
	s := lazyguarded.NewECS(w, lazyguarded.ReadersWait)
	r := s.NewRecorder()
	r.Create(pos.Value(vec{1, 1}))
	seen := -1
	read := s.Read(func(w *ecs.World) error { seen = w.Len(); return nil })
	select {
	case <-read.Done():
		t.Fatal("read ran before the commit")
	default:
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := await(t, read, "read after commit"); err != nil {
		t.Fatal(err)
	}
	if seen != 1 {
		t.Fatalf("read saw %d entities, want 1", seen)
	}
}

// TestECSPanicKeepsPending: a command that panics propagates the panic, stays pending with
// the commands behind it, and the strategy commits again afterwards (no stuck commit).
func TestECSPanicKeepsPending(t *testing.T) {
	w := ecs.NewWorld()
	s := lazyguarded.NewECS(w, lazyguarded.ReadersWait)
	r := s.NewRecorder()
	r.Create(pos.Value(vec{1, 1}))
	fail := true
	r.Do(func(*ecs.World) error {
		if fail {
			panic("command panicked")
		}
		return nil
	})
	r.Create(pos.Value(vec{2, 2}))
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("commit did not propagate the panic")
			}
		}()
		s.Commit()
	}()
	if s.Pending() != 2 || w.Len() != 1 {
		t.Fatalf("after panic: pending %d entities %d, want 2 1", s.Pending(), w.Len())
	}
	fail = false
	if err := s.Commit(); err != nil {
		t.Fatalf("commit after panic: %v", err)
	}
	if w.Len() != 2 || s.Pending() != 0 {
		t.Fatalf("after retry: entities %d pending %d, want 2 0", w.Len(), s.Pending())
	}
}
