package ecs_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// TestCopyFromReusedStaysInStep: a replica copied into again and again (CopyFrom into reused
// storage, as a versioned strategy's readers' copy is) is the world's equal, and stays so
// through the calls both then make. The world runs a stretch of calls alone (making tables,
// filling the archetype graph's edges, dropping rows), the replica copies it, and both run
// the next stretch in step, compared after every call by Hash, by what a query visits and
// in what order, and by the handle each Create returns. It holds CopyFrom's shortcuts on
// archetype storage to one-by-one's outcome: a copy between worlds with the same tables
// keeps the replica's map and edges, and a pointer-free column's rows past the live ones
// are not copied.
func TestCopyFromReusedStaysInStep(t *testing.T) {
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		// A column that comes with a copy brings its validator: a replica made before its
		// world had one refuses what the world refuses.
		w := ecs.NewWorld(ecs.WithStorage(st))
		r := w.Replica()
		mustCreate(t, w, HP.Value(hp{1}))
		if err := r.CopyFrom(w); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Create(HP.Value(hp{-1})); !errors.Is(err, ecs.ErrInvalidValue) {
			t.Fatalf("%v: the copy's Create of an invalid HP: %v, want ErrInvalidValue", st, err)
		}
		// As many tables on each side, of other sets: the copy takes the world's.
		w = ecs.NewWorld(ecs.WithStorage(st))
		r = w.Replica()
		mustCreate(t, w, Pos.Value(vec{1, 1}))
		mustCreate(t, r, Vel.Value(vec{2, 2}))
		if err := r.CopyFrom(w); err != nil {
			t.Fatal(err)
		}
		for _, x := range []*ecs.World{w, r} {
			mustCreate(t, x, Vel.Value(vec{3, 3}))
		}
		if r.Hash() != w.Hash() || len(queried(r, Vel)) != 1 {
			t.Fatalf("%v: after a copy over other tables, a create of Vel: replica hash %#x, world %#x", st, r.Hash(), w.Hash())
		}
		for seed := range uint64(20) {
			w := ecs.NewWorld(ecs.WithStorage(st))
			r := w.Replica()
			rng := rand.New(rand.NewPCG(seed, 7))
			var live []ecs.Entity // handles alive in w, in the order created
			step := func(worlds ...*ecs.World) {
				op, v := rng.IntN(8), float64(rng.IntN(100))
				var e ecs.Entity
				if len(live) > 0 {
					e = live[rng.IntN(len(live))]
				}
				for i, x := range worlds {
					switch {
					case op <= 2 || len(live) == 0:
						b := Pos.Value(vec{v, 1})
						if op == 1 {
							b = b.With(Vel.Value(vec{0, v}))
						}
						got, err := x.Create(b)
						if err != nil {
							t.Fatal(err)
						}
						if i == 0 {
							live = append(live, got)
						} else if got != live[len(live)-1] {
							t.Fatalf("%v seed %d: replica's Create returned %v, world's %v", st, seed, got, live[len(live)-1])
						}
					case op == 3:
						if err := x.Destroy(e); err != nil {
							t.Fatal(err)
						}
						if i == len(worlds)-1 {
							live = slices.DeleteFunc(live, func(d ecs.Entity) bool { return d == e })
						}
					case op == 4:
						l := label{S: string(rune('a' + int(v)%26))}
						if Label.Add(x, e, l) != nil {
							_ = Label.Set(x, e, l)
						}
					case op == 5:
						_ = x.Remove(e, Label.ID())
					case op == 6:
						if Vel.Add(x, e, vec{v, v}) != nil {
							_ = Vel.Set(x, e, vec{v, v})
						}
					default:
						_ = x.Remove(e, Vel.ID())
					}
				}
			}
			same := func(when string) {
				t.Helper()
				if r.Hash() != w.Hash() || r.Len() != w.Len() {
					t.Fatalf("%v seed %d, %s: replica hash %#x (%d live), world %#x (%d live)", st, seed, when, r.Hash(), r.Len(), w.Hash(), w.Len())
				}
				if got, want := queried(r, Pos), queried(w, Pos); !slices.Equal(got, want) {
					t.Fatalf("%v seed %d, %s: a query on the replica visits %v, on the world %v", st, seed, when, got, want)
				}
			}
			for round := range 12 {
				for range 1 + rng.IntN(40) {
					step(w)
				}
				if round%3 == 2 {
					// The replica goes its own way first: tables and edges the world lacks,
					// or has at other indexes, which the copy must not keep.
					var own []ecs.Entity
					for range 1 + rng.IntN(10) {
						b := Vel.Value(vec{1, 2})
						if rng.IntN(2) == 0 {
							b = Small.Value(small{3}).With(b)
						}
						own = append(own, mustCreate(t, r, b))
						_ = Pos.Add(r, own[rng.IntN(len(own))], vec{4, 5})
						_ = r.Remove(own[rng.IntN(len(own))], Vel.ID())
					}
				}
				if err := r.CopyFrom(w); err != nil {
					t.Fatal(err)
				}
				same("after the copy")
				for range 1 + rng.IntN(40) {
					step(w, r)
					same(fmt.Sprintf("in step, round %d", round))
				}
			}
		}
	}
}

// queried returns the entities a query of c visits in x, in order.
func queried(x *ecs.World, c ecs.Component[vec]) []ecs.Entity {
	var out []ecs.Entity
	q := ecs.NewQuery1(x, c)
	for q.Next() {
		out = append(out, q.Entity())
	}
	q.Close()
	return out
}
