package lazyguarded_test

import (
	"testing"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

type vec struct{ X, Y float64 }

var pos = ecs.NewComponent[vec]("lazyguarded.pos", nil)
var vel = ecs.NewComponent[vec]("lazyguarded.vel", nil)

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
