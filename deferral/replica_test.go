package deferral_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// TestReplayKeepsReplicasEqual: random batches of every verb — placeholders, culled creates,
// dead and repeated handles, removes of missing components, failing sets — applied to a world
// with Apply and replayed with Replay on a replica leave both with equal hashes, and the
// failing command stops both at the same place.
func TestReplayKeepsReplicasEqual(t *testing.T) {
	w := ecs.NewWorld()
	var live []ecs.Entity
	for i := range 50 {
		e, err := w.Create(lifeC.Value(life{float64(i + 1)}))
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, e)
	}
	r := w.Replica()
	c := deferral.NewCore(w)
	s := &sliceSink{}
	rec := c.NewRecorder(s)
	rng := rand.New(rand.NewPCG(5, 6))
	for batch := range 200 {
		var phs []ecs.Entity
		pick := func() ecs.Entity {
			if len(phs) > 0 && rng.IntN(3) == 0 {
				return phs[rng.IntN(len(phs))]
			}
			return live[rng.IntN(len(live))]
		}
		for range 1 + rng.IntN(30) {
			switch rng.IntN(6) {
			case 0:
				phs = append(phs, rec.Create(lifeC.Value(life{float64(rng.IntN(3)) - 0.5}))) // some culled
			case 1:
				rec.Destroy(pick())
			case 2:
				rec.Add(pick(), tagC.Value(tag{int32(batch)}))
			case 3:
				rec.Remove(pick(), tagC.ID())
			case 4:
				rec.Set(pick(), lifeC.Value(life{2}))
			default:
				rec.Set(pick(), tagC.Value(tag{1})) // fails when the entity lacks tag
			}
		}
		if err := c.Begin(); err != nil {
			t.Fatal(err)
		}
		applied := 0
		for i := range s.cmds {
			if err := c.Apply(deferral.Pos{Index: i}, &s.cmds[i]); err != nil {
				break // the failure policy: the rest is dropped here, the prefix replayed
			}
			applied++
		}
		for i := range applied {
			if err := c.Replay(r, &s.cmds[i]); err != nil {
				t.Fatalf("batch %d command %d: %v", batch, i, err)
			}
		}
		c.End(true)
		s.cmds = s.cmds[:0]
		if r.Hash() != w.Hash() {
			t.Fatalf("batch %d: replica hash %#x, world %#x", batch, r.Hash(), w.Hash())
		}
		live = live[:0]
		for e := range w.Entities() {
			live = append(live, e)
		}
		if len(live) == 0 {
			e, _ := w.Create(lifeC.Value(life{1}))
			r.Create(lifeC.Value(life{1}))
			live = append(live, e)
		}
	}
}

// TestReplayDetectsDivergence: a create that yields another handle on the replica than on the
// world is ErrDiverged. A command the replica skips by the lenient rules (its entity is missing
// there) is not: Replay does not know the world's outcome of it; a hash comparison finds that.
func TestReplayDetectsDivergence(t *testing.T) {
	w := ecs.NewWorld()
	r := w.Replica()
	e, _ := w.Create(tagC.Value(tag{1})) // only in w: r's next create gets e's slot
	c := deferral.NewCore(w)
	s := &sliceSink{}
	rec := c.NewRecorder(s)
	rec.Create(tagC.Value(tag{2}))
	rec.Set(e, tagC.Value(tag{3}))
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	defer c.End(true)
	for i := range s.cmds {
		if err := c.Apply(deferral.Pos{Index: i}, &s.cmds[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Replay(r, &s.cmds[0]); !errors.Is(err, deferral.ErrDiverged) {
		t.Errorf("replay of a create on a replica that lacks an entity: %v, want ErrDiverged", err)
	}
	r2 := ecs.NewWorld()
	if err := c.Replay(r2, &s.cmds[1]); err != nil {
		t.Errorf("replay of a set on a foreign world's handle: %v, want a lenient skip", err)
	}
	if err := c.Replay(r, &deferral.Command{Verb: deferral.VerbFunc}); !errors.Is(err, deferral.ErrInvalidCommand) {
		t.Errorf("replay of a closure record: %v, want ErrInvalidCommand", err)
	}
}
