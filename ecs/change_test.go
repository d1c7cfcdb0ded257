package ecs_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// TestTryChange checks TryChange against the one-by-one calls it merges (TryUpsert, then
// TryRemove of each component of the removal set) on twin worlds of each storage: the same
// liveness, error class and final Hash, and on archetype storage one row move for a change
// of the component set, none otherwise.
func TestTryChange(t *testing.T) {
	initial := []ecs.Bundle{{}, Pos.Value(vec{1, 2}), Pos.Value(vec{1, 2}).With(HP.Value(hp{3}))}
	adds := []ecs.Bundle{{}, Vel.Value(vec{5, 6}), Pos.Value(vec{7, 8}).With(Small.Value(small{9})),
		HP.Value(hp{-1}), Vel.Value(vec{1, 1}).With(Vel.Value(vec{2, 2}))}
	removes := []ecs.Mask{0, ecs.MaskOf(Pos.ID()), ecs.MaskOf(Vel.ID(), HP.ID()), ecs.MaskOf(Small.ID(), Label.ID())}
	for _, s := range benchStorages {
		for i, init := range initial {
			for j, add := range adds {
				for k, rm := range removes {
					t.Run(fmt.Sprintf("storage=%v/initial=%d/add=%d/remove=%d", s, i, j, k), func(t *testing.T) {
						w, twin := ecs.NewWorld(ecs.WithStorage(s)), ecs.NewWorld(ecs.WithStorage(s))
						e, e2 := mustCreate(t, w, init), mustCreate(t, twin, init)
						if err := Label.Add(w, e, label{"x"}); err != nil {
							t.Fatal(err)
						}
						if err := Label.Add(twin, e2, label{"x"}); err != nil {
							t.Fatal(err)
						}
						moves, before := w.Moves(), w.MaskOf(e)
						b := add
						live, err := w.TryChange(e, &b, rm)
						live2, err2 := twin.TryUpsert(e2, &b)
						for id := range ecs.ComponentID(ecs.MaxComponents) {
							if err2 == nil && rm.Has(id) {
								_, _, err2 = twin.TryRemove(e2, id)
							}
						}
						if live != live2 || errClass(err) != errClass(err2) {
							t.Fatalf("TryChange: live %v err %v; one by one: live %v err %v", live, err, live2, err2)
						}
						if err == nil && w.Hash() != twin.Hash() {
							t.Fatalf("TryChange: hash %#x mask %b; one by one: hash %#x mask %b", w.Hash(), w.MaskOf(e), twin.Hash(), twin.MaskOf(e2))
						}
						wantMoves := uint64(0)
						if s == ecs.Archetypes && w.MaskOf(e) != before {
							wantMoves = 1
						}
						if got := w.Moves() - moves; got != wantMoves {
							t.Fatalf("moves: got %d, want %d", got, wantMoves)
						}
					})
				}
			}
		}
	}
}

// TestTryChangeRefusals checks TryChange's other results: a handle that is not live, and a
// change refused while a query iterates, which changes nothing.
func TestTryChangeRefusals(t *testing.T) {
	for _, s := range benchStorages {
		w := ecs.NewWorld(ecs.WithStorage(s))
		e := mustCreate(t, w, Pos.Value(vec{1, 2}).With(HP.Value(hp{1})))
		d := mustCreate(t, w, ecs.Bundle{})
		if err := w.Destroy(d); err != nil {
			t.Fatal(err)
		}
		b := Vel.Value(vec{1, 1})
		if live, err := w.TryChange(d, &b, 0); live || err != nil {
			t.Fatalf("%v: dead target: live %v err %v, want false, nil", s, live, err)
		}
		thaw := w.Freeze()
		before := snap(w)
		set := Pos.Value(vec{3, 3})
		if _, err := w.TryChange(e, &set, ecs.MaskOf(HP.ID())); !errors.Is(err, ecs.ErrIterating) {
			t.Fatalf("%v: removal while frozen: got %v, want ErrIterating", s, err)
		}
		if _, err := w.TryChange(e, &b, 0); !errors.Is(err, ecs.ErrIterating) {
			t.Fatalf("%v: addition while frozen: got %v, want ErrIterating", s, err)
		}
		if snap(w) != before {
			t.Fatalf("%v: a refused change changed the world", s)
		}
		if _, err := w.TryChange(e, &set, ecs.MaskOf(Vel.ID())); err != nil { // sets only: allowed
			t.Fatalf("%v: set while frozen: %v", s, err)
		}
		thaw()
	}
}
