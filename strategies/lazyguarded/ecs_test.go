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
