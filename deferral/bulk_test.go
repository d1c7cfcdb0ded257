package deferral_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// TestStreamRunsOfCreatesAndDestroys holds the stream's commit of runs of creates and
// destroys (ApplyStream: ecs.World.CreateRecords, DestroyRecords) to Apply of the same
// commands one by one, on both storages: the same world hash, Changes and Placements, the
// same report (Created by slot and generation, Destroyed, IgnoredDestroys, IgnoredCreates,
// Skipped, Applied) and resolutions, for creates of several bundle shapes (one with a zero-size
// value, one validated that is sometimes culled, one with a duplicate component that fails),
// a create followed by an Add on its placeholder, destroys of live, dead and repeated handles
// and of placeholders, Adds and Sets of bundles (ecs.World.PutRecords; two Adds on one
// entity in a row, each moving its row; a Set of a component the entity lacks fails); and ReplayStream of each commit on a replica leaves it equal to the
// world, while a replica that holds one more entity is ErrDiverged at the first create.
func TestStreamRunsOfCreatesAndDestroys(t *testing.T) {
	zero := ecs.NewComponent[struct{}]("bulk.zero", nil)
	u64 := ecs.NewComponent[uint64]("bulk.u64", nil)
	u32 := ecs.NewComponent[uint32]("bulk.u32", nil)
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		rng := rand.New(rand.NewPCG(3, uint64(st)))
		for round := range 200 {
			seed := rng.Uint64()
			type side struct {
				w    *ecs.World
				c    *deferral.Core
				s    deferral.Stream
				r    *deferral.Recorder
				phs  []ecs.Entity
				live []ecs.Entity
			}
			mk := func() *side {
				d := &side{w: ecs.NewWorld(ecs.WithStorage(st))}
				for i := range 8 {
					b := ecs.NewBundle(tagC.Value(tag{int32(i)}), u64.Value(1))
					if i%3 == 2 {
						b = u64.Value(1) // lacks tag: a Set of tag and u64 fails on it
					}
					e, err := d.w.Create(b)
					if err != nil {
						t.Fatal(err)
					}
					d.live = append(d.live, e)
				}
				if err := d.w.Destroy(d.live[7]); err != nil {
					t.Fatal(err)
				}
				d.c = deferral.NewCore(d.w)
				d.r = d.c.NewRecorder(streamSink{&d.s})
				return d
			}
			// stage stages one commit's commands, the same on both sides (one rng per side).
			stage := func(d *side, rg *rand.Rand) {
				d.phs = d.phs[:0]
				for range 1 + rg.IntN(40) {
					switch x := rg.IntN(13); {
					case x == 10: // Adds of a bundle, entity after entity (PutRecords)
						for range 1 + rg.IntN(6) {
							d.r.Add(d.live[rg.IntN(len(d.live))], ecs.NewBundle(zero.Value(struct{}{}), u64.Value(uint64(x))))
						}
					case x == 9: // two Adds of a bundle on one entity, each moving its row (a pending run's entity moves again)
						e := d.live[rg.IntN(len(d.live))]
						d.r.Add(e, ecs.NewBundle(zero.Value(struct{}{}), u64.Value(9)))
						d.r.Add(e, ecs.NewBundle(u32.Value(9), u64.Value(9)))
					case x == 11 && rg.IntN(3) == 0: // a Set of a bundle: fails where the entity lacks a component
						d.r.Set(d.live[rg.IntN(len(d.live))], ecs.NewBundle(tagC.Value(tag{11}), u64.Value(11)))
					case x == 12 && len(d.phs) > 0:
						d.r.Add(d.phs[rg.IntN(len(d.phs))], ecs.NewBundle(tagC.Value(tag{12}), u64.Value(12)))
					case x < 4: // a run of creates of one shape
						for range 1 + rg.IntN(6) {
							d.phs = append(d.phs, d.r.Create(ecs.NewBundle(tagC.Value(tag{int32(x)}), u64.Value(uint64(x)))))
						}
					case x == 4:
						d.phs = append(d.phs, d.r.Create(ecs.NewBundle(u64.Value(2), zero.Value(struct{}{}))))
					case x == 5: // validated: culled when the value is not positive
						d.phs = append(d.phs, d.r.Create(lifeC.Value(life{float64(rg.IntN(3)) - 0.5})))
					case x == 6:
						p := d.r.Create(tagC.Value(tag{6}))
						d.r.Add(p, u64.Value(6))
						d.phs = append(d.phs, p)
					case x == 7 && len(d.phs) > 0:
						d.r.Destroy(d.phs[rg.IntN(len(d.phs))])
					default:
						for range 1 + rg.IntN(4) {
							d.r.Destroy(d.live[rg.IntN(len(d.live))])
						}
					}
				}
				if rg.IntN(8) == 0 { // fails: a duplicate component
					d.phs = append(d.phs, d.r.Create(ecs.NewBundle(u64.Value(1), u64.Value(2))))
				}
			}
			a, b := mk(), mk()
			ra, rb := a.w.Replica(), a.w.Replica()
			for commit := range 2 {
				ga, gb := rand.New(rand.NewPCG(seed, uint64(commit))), rand.New(rand.NewPCG(seed, uint64(commit)))
				stage(a, ga)
				stage(b, gb)
				op := fmt.Sprintf("%v round %d commit %d", st, round, commit)
				if err := a.c.Begin(); err != nil {
					t.Fatal(err)
				}
				next, off := 0, 0
				errA := a.c.ApplyStream(deferral.Pos{}, &a.s, a.s.Len(), &next, &off)
				if err := b.c.Begin(); err != nil {
					t.Fatal(err)
				}
				var errB error
				cmds := deferral.AppendCommands(&b.s, nil)
				for i := range cmds {
					if errB = b.c.Apply(deferral.Pos{Index: i}, &cmds[i]); errB != nil {
						break
					}
				}
				var ea, eb *deferral.CommandError
				if (errA == nil) != (errB == nil) || errA != nil && (!errors.As(errA, &ea) || !errors.As(errB, &eb) || ea.Pos != eb.Pos) {
					t.Fatalf("%s: ApplyStream error %v, one by one %v", op, errA, errB)
				}
				if a.w.Hash() != b.w.Hash() || a.w.Changes() != b.w.Changes() || a.w.Placements() != b.w.Placements() {
					t.Fatalf("%s: worlds differ: hash %x/%x, changes %d/%d, placements %d/%d", op, a.w.Hash(), b.w.Hash(),
						a.w.Changes(), b.w.Changes(), a.w.Placements(), b.w.Placements())
				}
				for i := range a.phs {
					xa, erra := a.c.Resolve(a.phs[i])
					xb, errb := b.c.Resolve(b.phs[i])
					if xa.Slot() != xb.Slot() || xa.Generation() != xb.Generation() || (erra == nil) != (errb == nil) {
						t.Fatalf("%s: placeholder %d resolves to %v (%v), one by one %v (%v)", op, i, xa, erra, xb, errb)
					}
				}
				// The replica replays what applied, on the world's resolutions, before they go.
				if _, err := a.c.ReplayStream(ra, a.s.Words()[:off], next); err != nil {
					t.Fatalf("%s: ReplayStream: %v", op, err)
				}
				if ra.Hash() != a.w.Hash() {
					t.Fatalf("%s: replica hash %x after ReplayStream, world %x", op, ra.Hash(), a.w.Hash())
				}
				a.c.End(errA == nil)
				b.c.End(errB == nil)
				repA, _ := a.c.TakeReport(0)
				repB, _ := b.c.TakeReport(0)
				if len(repA.Created) != len(repB.Created) {
					t.Fatalf("%s: created %d, one by one %d", op, len(repA.Created), len(repB.Created))
				}
				for i := range repA.Created {
					if repA.Created[i].Slot() != repB.Created[i].Slot() || repA.Created[i].Generation() != repB.Created[i].Generation() {
						t.Fatalf("%s: created[%d] %v, one by one %v", op, i, repA.Created[i], repB.Created[i])
					}
				}
				if commit == 0 && createdFirst(a.c, deferral.AppendCommands(&a.s, nil)[:next]) {
					// A replica holding one more entity, in the slot the world's first create
					// takes, makes another handle there: diverged (the resolutions stay until
					// the next Begin).
					if _, err := rb.Create(tagC.Value(tag{99})); err != nil {
						t.Fatal(err)
					}
					if _, err := a.c.ReplayStream(rb, a.s.Words()[:off], next); !errors.Is(err, deferral.ErrDiverged) {
						t.Fatalf("%s: ReplayStream on a replica with one more entity: %v, want ErrDiverged", op, err)
					}
				}
				repA.Created, repB.Created = nil, nil
				if fmt.Sprint(repA) != fmt.Sprint(repB) {
					t.Fatalf("%s: report %+v, one by one %+v", op, repA, repB)
				}
				a.s.Drop(a.s.Len(), len(a.s.Words()))
				b.s.Drop(b.s.Len(), len(b.s.Words()))
				a.live = a.live[:0]
				for e := range a.w.Entities() {
					a.live = append(a.live, e)
				}
				b.live = b.live[:0]
				for e := range b.w.Entities() {
					b.live = append(b.live, e)
				}
				if len(a.live) == 0 {
					break
				}
			}
		}
	}
}

// createdFirst reports whether a create of cmds made an entity before any destroy applied.
func createdFirst(c *deferral.Core, cmds []deferral.Command) bool {
	for _, cmd := range cmds {
		switch cmd.Verb {
		case deferral.VerbDestroy:
			return false
		case deferral.VerbCreate:
			if _, err := c.Resolve(cmd.Entity); err == nil {
				return true
			}
		}
	}
	return false
}
