package conformance

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/conformance/internal/reference"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Components of the batching rows besides workload's: a 4-byte tag and an 8-byte value,
// neither validated.
var (
	batchTag  = ecs.NewComponent[uint32]("conformance.BatchTag", nil)
	batchHeat = ecs.NewComponent[int64]("conformance.BatchHeat", nil)
)

func tag(v uint32) ecs.Bundle { return batchTag.Value(v) }

// batchCase is one commit of a batching row: entities made with the strict API, then
// commands staged on one recorder with key 0, in one commit.
type batchCase struct {
	name  string
	setup func(w *ecs.World) []ecs.Entity
	// stage stages the commit's commands naming ents (setup's) and returns the placeholders
	// it minted.
	stage func(r *deferral.Recorder, ents []ecs.Entity) []ecs.Entity
	// moves: archetype row moves of the commit applied one command at a time, and with each
	// run of adjacent commands naming one entity applied as its net change (a strategy
	// declaring BatchesPerEntity).
	oneByOne, batched uint64
}

// ents returns a setup creating one entity per bundle, after two entities, not returned,
// that hold every component of the cases between them: a world that has used a component has its
// column, so the commands of a case meet the world of a running program.
func ents(bs ...ecs.Bundle) func(w *ecs.World) []ecs.Entity {
	return func(w *ecs.World) []ecs.Entity {
		for _, b := range []ecs.Bundle{pt(0, 0).With(vl(0, 0)).With(tag(0)), batchHeat.Value(0).With(life(1))} {
			if _, err := w.Create(b); err != nil {
				panic(fmt.Sprintf("conformance: batch setup: create: %v", err))
			}
		}
		out := make([]ecs.Entity, len(bs))
		for i, b := range bs {
			e, err := w.Create(b)
			if err != nil {
				panic(fmt.Sprintf("conformance: batch setup: create: %v", err))
			}
			out[i] = e
		}
		return out
	}
}

// batchCases are the commits the batching rows run: each kind of net change (a spawn through
// the placeholder, Add + Add, Remove + Remove, Add then Remove of one component, Remove then
// Add, Sets and no-op Removes inside a run), and runs cut or ended by what one-by-one
// application does differently: a failing command in the middle (a Set of a missing
// component, a rejected value), a destroy in between, a closure (a barrier), another
// entity's command in between, a culled create, a dead target.
var batchCases = []batchCase{
	{"Spawn", ents(), func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 2))
		r.Add(p, vl(3, 4))
		r.Add(p, tag(5))
		return []ecs.Entity{p}
	}, 2, 0},
	{"SpawnValidatedCreate", ents(), func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 2).With(life(9)))
		r.Add(p, vl(3, 4))
		deferral.Add(r, p, batchHeat, 7)
		r.Set(p, pt(5, 6))
		return []ecs.Entity{p}
	}, 2, 0},
	{"SpawnRemoveAndNoop", ents(), func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 2).With(vl(3, 4)))
		r.Remove(p, workload.Velocity.ID())
		r.Remove(p, workload.Velocity.ID()) // lacks it by now: a no-op
		r.Add(p, tag(5))
		return []ecs.Entity{p}
	}, 2, 0},
	{"SpawnThenDestroyInBetween", ents(), func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 2))
		r.Add(p, vl(3, 4))
		r.Destroy(p)
		r.Add(p, tag(5)) // skipped: destroyed
		return []ecs.Entity{p}
	}, 1, 0},
	{"SpawnCulled", ents(), func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 2).With(life(-1)))
		r.Add(p, vl(3, 4)) // skipped: culled
		r.Add(p, tag(5))
		return []ecs.Entity{p}
	}, 0, 0},
	{"SpawnFailsInRun", ents(), func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 2))
		r.Add(p, vl(3, 4))
		r.Set(p, tag(5)) // fails: it lacks the tag
		r.Add(p, tag(6))
		return []ecs.Entity{p}
	}, 1, 0},
	{"SpawnInvalidAddInRun", ents(), func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 2))
		r.Add(p, tag(5))
		r.Add(p, life(-1)) // fails: rejected value
		r.Add(p, vl(3, 4))
		return []ecs.Entity{p}
	}, 1, 0},
	{"AddAdd", ents(pt(0, 0)), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Add(e[0], tag(2))
		deferral.Add(r, e[0], batchHeat, 3)
		return nil
	}, 3, 1},
	{"RemoveRemove", ents(pt(0, 0).With(vl(1, 1)).With(tag(2))), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Remove(e[0], workload.Velocity.ID())
		r.Remove(e[0], batchTag.ID())
		return nil
	}, 2, 1},
	{"AddThenRemoveSame", ents(pt(0, 0)), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Remove(e[0], workload.Velocity.ID())
		return nil
	}, 2, 0},
	{"RemoveThenAddSame", ents(pt(0, 0).With(vl(1, 1))), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Remove(e[0], workload.Velocity.ID())
		r.Add(e[0], vl(7, 7))
		return nil
	}, 2, 0},
	{"MixedWithSetAndNoop", ents(pt(0, 0).With(tag(1))), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Set(e[0], pt(2, 2))
		r.Remove(e[0], batchHeat.ID()) // lacks it: a no-op
		r.Add(e[0], vl(3, 3))          // overwrites
		r.Remove(e[0], batchTag.ID())
		r.Set(e[0], vl(4, 4))
		return nil
	}, 2, 1},
	{"AddOverExisting", ents(pt(0, 0).With(vl(1, 1))), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(2, 2))
		r.Add(e[0], tag(3))
		return nil
	}, 1, 1},
	{"SetMissingFailsInRun", ents(pt(0, 0)), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Add(e[0], tag(2))
		r.Set(e[0], batchHeat.Value(3)) // fails: it lacks the component
		r.Add(e[0], batchHeat.Value(4))
		return nil
	}, 2, 1},
	{"InvalidAddFailsInRun", ents(pt(0, 0)), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Add(e[0], tag(2))
		r.Add(e[0], life(-1)) // fails: rejected value
		r.Add(e[0], batchHeat.Value(4))
		return nil
	}, 2, 1},
	{"DestroyInBetween", ents(pt(0, 0)), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Add(e[0], tag(2))
		r.Destroy(e[0])
		r.Add(e[0], batchHeat.Value(3)) // skipped: destroyed
		r.Remove(e[0], batchTag.ID())   // skipped
		return nil
	}, 2, 1},
	{"ClosureBarrier", ents(pt(0, 0)), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Do(func(*ecs.World) error { return nil })
		r.Add(e[0], tag(2))
		return nil
	}, 2, 2},
	{"OtherEntityInBetween", ents(pt(0, 0), pt(1, 1)), func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Add(e[1], vl(1, 1))
		r.Add(e[0], tag(2))
		return nil
	}, 3, 3},
	{"DeadTarget", func(w *ecs.World) []ecs.Entity {
		e := ents(pt(0, 0))(w)
		if err := w.Destroy(e[0]); err != nil {
			panic(err)
		}
		return e
	}, func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Add(e[0], vl(1, 1))
		r.Add(e[0], tag(2))
		r.Remove(e[0], workload.Position.ID())
		return nil
	}, 0, 0},
}

// batchName names the batching row after what the strategy declares.
func batchName(caps deferral.Capabilities) string {
	if caps.BatchesPerEntity {
		return "BatchPerEntityNetMoves"
	}
	return "BatchPerEntityNotClaimed"
}

// checkBatch: every batching case commits with the results of one-by-one application — the
// reference strategy, which applies one command at a time, on a twin world: the commit's
// error (its position and cause), the report, what each placeholder resolves to, the world's
// Hash and Changes. After a failed commit both are compared, then retried once the cause is
// gone (the retry must apply exactly the suffix), and compared again. A strategy declaring
// BatchesPerEntity must also make exactly the net change's row moves on archetype storage
// (the case's batched count, where one-by-one makes oneByOne); on slot storage, which moves
// nothing, the check runs its cases on archetype storage as well for that count.
func checkBatch(x *fixture) {
	stores := []ecs.Storage{x.store}
	if x.caps.BatchesPerEntity && x.store != ecs.Archetypes {
		stores = append(stores, ecs.Archetypes)
	}
	for _, st := range stores {
		for _, c := range batchCases {
			x.batchCase(c, st)
		}
	}
}

// batchSide is one of the two worlds a batching case runs on.
type batchSide struct {
	w     *ecs.World
	s     deferral.Strategy
	ents  []ecs.Entity
	ph    []ecs.Entity
	moves uint64
	bulk  uint64 // the world's BulkRows before the commit
	// changed counts the set-up entities alive after the commit whose component set it changed.
	changed uint64
}

func (x *fixture) batchCase(c batchCase, st ecs.Storage) {
	x.Helper()
	op := fmt.Sprintf("%s (storage %v)", c.name, st)
	sides := [2]*batchSide{}
	for i, f := range []Factory{x.f, reference.Factory(reference.Ordered, reference.NoBug)} {
		w := ecs.NewWorld(ecs.WithStorage(st))
		s := f(w)
		x.owned = append(x.owned, s)
		sides[i] = &batchSide{w: w, s: s, ents: c.setup(w)}
		sides[i].moves = w.Moves()
		sides[i].ph = c.stage(s.NewRecorder(), sides[i].ents)
	}
	got, ref := sides[0], sides[1]
	errGot, errRef := got.s.Commit(), ref.s.Commit()
	x.sameCommit(op, errGot, errRef)
	x.sameState(op, got, ref)
	if errRef != nil {
		// The cause stays: a retry fails at the same command again, applying nothing twice.
		x.sameCommit(op+": retry", got.s.Commit(), ref.s.Commit())
		x.sameState(op+": after the retry", got, ref)
		for _, sd := range sides {
			sd.s.Discard()
		}
		x.sameState(op+": after discarding the suffix", got, ref)
	}
	gotRep, err1 := got.s.TakeReport()
	refRep, err2 := ref.s.TakeReport()
	if x.wantNil(op+": take report", err1) && x.wantNil(op+": take report of one-by-one", err2) {
		x.sameReport(op, gotRep, refRep)
	}
	if st != ecs.Archetypes {
		want(x, op+": moves on slot storage", got.w.Moves()-got.moves, 0)
		return
	}
	want(x, op+": row moves of one-by-one application (the case's count)", ref.w.Moves()-ref.moves, c.oneByOne)
	if x.caps.BatchesPerEntity {
		want(x, op+": row moves with BatchesPerEntity declared (the net change's)", got.w.Moves()-got.moves, c.batched)
	} else {
		x.Logf("%s: %d row moves, %d one by one, %d batched", op, got.w.Moves()-got.moves, c.oneByOne, c.batched)
	}
}

// sameCommit reports unless the two commit errors agree: both nil, or both a
// *deferral.CommandError at the same position with the same verb and cause.
func (x *fixture) sameCommit(op string, got, ref error) {
	x.Helper()
	var g, r *deferral.CommandError
	switch {
	case got == nil && ref == nil:
	case ref == nil:
		x.Errorf("%s: commit: got error %v, want nil (one by one)", op, got)
	case got == nil:
		x.Errorf("%s: commit: got nil, want error %v (one by one)", op, ref)
	case !errors.As(got, &g) || !errors.As(ref, &r):
		x.Errorf("%s: commit: got error %v, want a *deferral.CommandError like %v", op, got, ref)
	default:
		want(x, op+": failure position", g.Pos, r.Pos)
		want(x, op+": failing verb", g.Verb, r.Verb)
		for _, cause := range []error{ecs.ErrMissingComponent, ecs.ErrInvalidValue} {
			want(x, fmt.Sprintf("%s: failure wraps %v", op, cause), errors.Is(got, cause), errors.Is(ref, cause))
		}
	}
}

// sameState reports where the two sides' worlds or pending counts differ.
func (x *fixture) sameState(op string, got, ref *batchSide) {
	x.Helper()
	want(x, op+": pending", got.s.Pending(), ref.s.Pending())
	want(x, op+": world hash equals one-by-one's", got.w.Hash(), ref.w.Hash())
	want(x, op+": world Changes", got.w.Changes(), ref.w.Changes())
	want(x, op+": live entities", got.w.Len(), ref.w.Len())
	for i := range got.ph {
		e1, err1 := got.s.Resolve(got.ph[i])
		e2, err2 := ref.s.Resolve(ref.ph[i])
		want(x, fmt.Sprintf("%s: placeholder %d resolves (error class)", op, i), resolveClass(err1), resolveClass(err2))
		want(x, fmt.Sprintf("%s: placeholder %d slot", op, i), e1.Slot(), e2.Slot())
		want(x, fmt.Sprintf("%s: placeholder %d generation", op, i), e1.Generation(), e2.Generation())
	}
}

// sameReport compares two reports field by field, Created by slot and generation (the
// worlds differ).
func (x *fixture) sameReport(op string, got, ref deferral.Report) {
	x.Helper()
	want(x, op+": report.Created count", len(got.Created), len(ref.Created))
	for i := range min(len(got.Created), len(ref.Created)) {
		want(x, fmt.Sprintf("%s: report.Created[%d] slot", op, i), got.Created[i].Slot(), ref.Created[i].Slot())
	}
	got.Created, ref.Created = nil, nil
	want(x, op+": report", fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", ref))
}

// resolveClass names the sentinel a Resolve error matches ("" for nil).
func resolveClass(err error) string {
	for _, e := range []error{deferral.ErrCulled, deferral.ErrUnresolved, deferral.ErrForeignPlaceholder, deferral.ErrNotPlaceholder} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}
