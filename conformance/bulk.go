package conformance

import (
	"fmt"
	"maps"
	"slices"

	"github.com/deferbench/deferbench/conformance/internal/reference"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// bulkCases are the commits the bulk row runs: many commands making one change in a row —
// creates of one bundle shape, destroys, Adds and Sets of one bundle entity after entity —
// which a commit may apply as runs (ecs.World.CreateRecords, DestroyRecords, PutRecords),
// each broken by what one-by-one application does differently: a culled create, a create
// of another shape, a destroy of a dead, repeated or placeholder target, an Add to an entity
// that has the components already, an entity whose row the run moved changing again, a Set
// of a component the entity lacks or a hand-built create of a placeholder already created
// (the commit fails there).
var bulkCases = []batchCase{
	{name: "CreatesOfOneShape", setup: ents(), stage: func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		var ph []ecs.Entity
		for i := range 24 {
			b := pt(float64(i), 1).With(vl(1, float64(i)))
			switch i {
			case 7:
				b = pt(7, 7).With(life(-1)) // culled
			case 13:
				b = tag(13) // another shape
			}
			ph = append(ph, r.Create(b))
		}
		return ph
	}},
	{name: "CreateTwiceRefused", setup: ents(), stage: func(r *deferral.Recorder, _ []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(1, 1).With(vl(1, 1)))
		q := r.Create(pt(2, 2).With(vl(2, 2)))
		// A hand-built create of a placeholder this commit created: the commit fails there.
		r.Stage(deferral.Command{Verb: deferral.VerbCreate, Entity: p, Bundle: pt(3, 3).With(vl(3, 3))})
		return []ecs.Entity{p, q}
	}},
	{name: "Destroys", setup: ents(pt(0, 0), pt(1, 1), pt(2, 2).With(vl(2, 2)), pt(3, 3), pt(4, 4), tag(5)), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		p := r.Create(pt(9, 9))
		for _, i := range []int{0, 2, 4, 2, 5} { // e[2] twice: the second is ignored
			r.Destroy(e[i])
		}
		r.Destroy(p)
		r.Destroy(e[1])
		r.Destroy(e[3])
		return []ecs.Entity{p}
	}},
	{name: "AddBundleEntityAfterEntity", setup: ents(pt(0, 0), pt(1, 1).With(vl(1, 1)), pt(2, 2), tag(3), pt(4, 4), pt(5, 5)), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for i, x := range e {
			r.Add(x, vl(float64(i), 2).With(tag(uint32(i))))
		}
		for i, x := range e[:3] {
			r.Add(x, vl(float64(i), 3).With(tag(uint32(i+10)))) // overwrites
		}
		return nil
	}},
	{name: "AddBundleTwiceEntityAfterEntity", setup: ents(pt(0, 0), pt(1, 1), pt(2, 2), pt(3, 3).With(tag(3))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for i, x := range e { // each Add moves the row, the second from where the first put it
			r.Add(x, vl(float64(i), 1).With(pt(float64(i), 1)))
			r.Add(x, tag(uint32(i)).With(pt(float64(i), 2))) // e[3] has the tag: no move
		}
		return nil
	}},
	{name: "RemovesEntityAfterEntityThenAgain", setup: ents(pt(0, 0).With(vl(0, 0)).With(tag(0)), pt(1, 1).With(vl(1, 1)).With(tag(1)), pt(2, 2).With(vl(2, 2)).With(tag(2)), pt(3, 3).With(vl(3, 3)).With(tag(3))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for _, x := range e { // entity after entity, the same two Removes: one change from one table
			r.Remove(x, workload.Velocity.ID())
			r.Remove(x, batchTag.ID())
		}
		r.Remove(e[1], workload.Position.ID()) // an entity of that run changes again
		r.Add(e[1], vl(9, 9))
		r.Remove(e[2], workload.Position.ID())
		r.Add(e[2], tag(9))
		return nil
	}},
	// Two one-component commands per entity, entity after entity (what a loop that adds or
	// sets two components one call each stages), for each pair of value sizes the world
	// copies (16, 8 and 4 bytes): Adds, Adds that overwrite, Sets, Removes, with a dead
	// target in the middle.
	{name: "PairsEntityAfterEntity", setup: ents(pt(0, 0), pt(1, 1), pt(2, 2), pt(3, 3).With(vl(3, 3)), pt(4, 4), pt(5, 5)), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		r.Destroy(e[2])
		for i, x := range e {
			f := float64(i)
			r.Add(x, vl(f, 1)) // e[3] has a velocity: overwritten
			r.Add(x, tag(uint32(i)))
		}
		for i, x := range e {
			f := float64(i)
			r.Set(x, pt(f, 2))
			r.Set(x, vl(f, 2))
		}
		for i, x := range e {
			r.Set(x, tag(uint32(i+20)))
			r.Set(x, pt(float64(i), 3))
		}
		for i, x := range e {
			r.Add(x, batchHeat.Value(int64(i)))
			r.Add(x, tag(uint32(i+30)))
		}
		for i, x := range e {
			r.Set(x, batchHeat.Value(int64(i+40)))
			r.Set(x, vl(float64(i), 4))
		}
		for _, x := range e[:4] {
			r.Remove(x, workload.Velocity.ID())
			r.Remove(x, batchTag.ID())
		}
		for _, x := range e[4:] {
			r.Remove(x, batchHeat.ID())
			r.Remove(x, batchTag.ID())
		}
		return nil
	}},
	// Entity after entity of one table out of row order, half of it leaving: rows that
	// swap-removes fill and then empty again, whose values move twice before they settle
	// (e[7] moves to e[5]'s row, then to e[0]'s once e[6], which took e[0]'s row, leaves).
	{name: "OutOfRowOrder", setup: ents(pt(0, 0), pt(1, 1), pt(2, 2), pt(3, 3), pt(4, 4), pt(5, 5), pt(6, 6), pt(7, 7), vl(8, 8), vl(9, 9), vl(10, 10), vl(11, 11), vl(12, 12), vl(13, 13)), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for _, i := range []int{5, 0, 6, 2} {
			r.Destroy(e[i])
		}
		for _, i := range []int{13, 8, 12, 10} {
			r.Add(e[i], pt(float64(i), 1).With(tag(uint32(i))))
		}
		return nil
	}},
	// Entity after entity repeating one run of Removes (then of Adds), broken by what
	// one-by-one application does differently: a longer run on one entity, a dead target,
	// an entity the run already moved, the same Removes in the other order, a lone Remove.
	{name: "RepeatedRunsWithBreaks", setup: withDead(5, ents(pt(0, 0).With(vl(0, 0)).With(tag(0)), pt(1, 1).With(vl(1, 1)).With(tag(1)), pt(2, 2).With(vl(2, 2)).With(tag(2)), pt(3, 3).With(vl(3, 3)).With(tag(3)), pt(4, 4).With(vl(4, 4)).With(tag(4)), pt(5, 5).With(vl(5, 5)).With(tag(5)), pt(6, 6).With(vl(6, 6)).With(tag(6)), pt(7, 7).With(vl(7, 7)).With(tag(7)), pt(8, 8).With(vl(8, 8)).With(tag(8)), pt(9, 9).With(vl(9, 9)).With(tag(9)), pt(10, 10))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		rm := func(x ecs.Entity, ids ...ecs.ComponentID) {
			for _, id := range ids {
				r.Remove(x, id)
			}
		}
		v, t := workload.Velocity.ID(), batchTag.ID()
		rm(e[0], v, t)
		rm(e[1], v, t)
		rm(e[2], v, t)
		r.Add(e[2], batchHeat.Value(2)) // e[2]'s run is longer
		rm(e[3], v, t)
		rm(e[4], v, t)
		rm(e[5], v, t) // dead
		rm(e[6], v, t)
		rm(e[0], v, t) // moved already: no-ops
		rm(e[7], t, v) // the other order, the same change
		rm(e[8], t, v)
		rm(e[9], v) // alone
		rm(e[10], workload.Position.ID())
		for _, i := range []int{1, 3, 4} {
			r.Add(e[i], batchHeat.Value(int64(i)))
			r.Add(e[i], tag(uint32(i)))
		}
		return nil
	}},
	// Entity after entity repeating one run of Removes, the last one's run longer by the
	// record the commit ends with: that entity makes its own change, alone.
	{name: "LongerRunLast", setup: ents(pt(0, 0).With(vl(0, 0)).With(tag(0)), pt(1, 1).With(vl(1, 1)).With(tag(1)), pt(2, 2).With(vl(2, 2)).With(tag(2))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for _, x := range e {
			r.Remove(x, workload.Velocity.ID())
			r.Remove(x, batchTag.ID())
		}
		r.Add(e[2], batchHeat.Value(2))
		return nil
	}},
	// One change from one table, entity after entity: two Removes, then the same Removes
	// and a Set that writes a value into the row each entity moves to.
	{name: "RemovesThenSetsInOneRun", setup: ents(pt(0, 0).With(vl(0, 0)).With(tag(0)), pt(1, 1).With(vl(1, 1)).With(tag(1)), pt(2, 2).With(vl(2, 2)).With(tag(2)), pt(3, 3).With(vl(3, 3)).With(tag(3))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for _, x := range e[:2] {
			r.Remove(x, batchTag.ID())
			r.Remove(x, workload.Velocity.ID())
		}
		for i, x := range e[2:] {
			r.Remove(x, batchTag.ID())
			r.Remove(x, workload.Velocity.ID())
			r.Set(x, pt(float64(i+2), 9))
		}
		return nil
	}},
	// Adds of one bundle entity after entity, broken by an entity the run already moved, a
	// dead target, the same bundle with its values in the other order, another bundle.
	{name: "BundleAddsWithBreaks", setup: withDead(3, ents(pt(0, 0), pt(1, 1), pt(2, 2), pt(3, 3), pt(4, 4), pt(5, 5), pt(6, 6), pt(7, 7), pt(8, 8), pt(9, 9))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for _, i := range []int{0, 1, 2, 0, 3, 4, 5} { // e[0] again: it has them, no move
			r.Add(e[i], vl(float64(i), 1).With(tag(uint32(i))))
		}
		r.Add(e[6], tag(6).With(vl(6, 1)))
		r.Add(e[7], vl(7, 1).With(tag(7)))
		for _, i := range []int{8, 9} {
			r.Add(e[i], vl(float64(i), 2).With(batchHeat.Value(int64(i))))
		}
		return nil
	}},
	// Removes of two components entity after entity, then Adds of one bundle on other
	// entities, each run passing a stale handle whose slot a live entity of the run's table
	// holds now: its records are Dead, and the live entity keeps its set.
	{name: "StaleHandleInRuns", setup: withReused(7, pt(7, 9), withReused(2, pt(2, 9).With(vl(2, 9)).With(tag(2)), ents(pt(0, 0).With(vl(0, 0)).With(tag(0)), pt(1, 1).With(vl(1, 1)).With(tag(1)), pt(2, 2).With(vl(2, 2)).With(tag(2)), pt(3, 3).With(vl(3, 3)).With(tag(3)), pt(4, 4).With(vl(4, 4)).With(tag(4)), pt(5, 5), pt(6, 6), pt(7, 7), pt(8, 8), pt(9, 9)))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for _, x := range e[:5] {
			r.Remove2(x, workload.Velocity.ID(), batchTag.ID())
		}
		for i, x := range e[5:] {
			r.Add(x, batchHeat.Value(int64(i)).With(tag(uint32(i))))
		}
		return nil
	}},
	{name: "SetBundleMissingFails", setup: ents(pt(0, 0).With(tag(0)), pt(1, 1).With(tag(1)), pt(2, 2), pt(3, 3).With(tag(3))), stage: func(r *deferral.Recorder, e []ecs.Entity) []ecs.Entity {
		for i, x := range e {
			r.Set(x, pt(float64(i), 9).With(tag(uint32(i)))) // fails at e[2], which lacks the tag
		}
		return nil
	}},
}

// bulkRows are the rows bulk table operations handle (ecs.World.BulkRows) on archetype
// storage in each bulk case — its commit, retry and discard — for a strategy declaring
// BulkRuns: the runs of two or more like commands that one-by-one application does not
// break, each run's rows moved, appended or swap-removed together.
var bulkRows = map[string]uint64{
	"CreatesOfOneShape":  22, // appended in runs of 7, 5 and 10: the culled create and the other shape break them
	"CreateTwiceRefused": 2,  // the two creates before the hand-built one
	// Destroys of one table's entities go together: e[0], e[2], e[4] and e[5] lie in three
	// tables one after another, then the placeholder's destroy, then e[1] and e[3] of one.
	"Destroys":                   2,
	"AddBundleEntityAfterEntity": 2, // e[4] and e[5], the only neighbours from one table
	// Each entity's two Adds are one net change of its own (per-entity batching): no run of
	// entities.
	"AddBundleTwiceEntityAfterEntity":   0,
	"RemovesEntityAfterEntityThenAgain": 4, // the four entities' Removes, one change from one table
	"SetBundleMissingFails":             0, // Sets move no row
	"OutOfRowOrder":                     8, // the four destroys, then the four Adds
	// The dead e[2] breaks no run. The first Adds: e[0], e[1] and e[4], e[5] (e[3] lies in
	// another table); the second: the five live entities; the Removes: e[0], e[1], e[3] and
	// e[4], e[5]. Sets move no row.
	"PairsEntityAfterEntity": 2 + 2 + 5 + 3 + 2,
	// e[0], e[1] (e[2]'s run is longer); e[3], e[4], e[6] (the dead e[5] breaks no run, e[0]
	// moves no more); e[7], e[8] (e[9]'s lone Remove moves by itself); the Adds of e[1], e[3],
	// e[4].
	"RepeatedRunsWithBreaks":  2 + 3 + 2 + 3,
	"LongerRunLast":           2, // e[0], e[1]; e[2]'s run is longer
	"RemovesThenSetsInOneRun": 4,
	// The stale e[2] breaks no run: e[0], e[1], e[3], e[4]; nor the stale e[7]: e[5], e[6],
	// e[8], e[9].
	"StaleHandleInRuns": 4 + 4,
	// e[0], e[1], e[2] (e[0] again moves nothing); e[4] to e[7] (the dead e[3] breaks no
	// run, nor the other order of e[6]'s bundle: the same change); e[8], e[9].
	"BundleAddsWithBreaks": 3 + 4 + 2,
}

// bulkName names the bulk row: every strategy's commit must give the results of one-by-one
// application for commits of many like commands, however it applies them.
// withDead returns setup with entity i of the ones it returns destroyed: a stale handle.
func withDead(i int, setup func(w *ecs.World) []ecs.Entity) func(w *ecs.World) []ecs.Entity {
	return func(w *ecs.World) []ecs.Entity {
		es := setup(w)
		if err := w.Destroy(es[i]); err != nil {
			panic(fmt.Sprintf("conformance: batch setup: destroy: %v", err))
		}
		return es
	}
}

// withReused returns setup with entity i of the ones it returns destroyed and an entity of b
// created after it, which takes its slot: entity i is a stale handle of a live slot.
func withReused(i int, b ecs.Bundle, setup func(w *ecs.World) []ecs.Entity) func(w *ecs.World) []ecs.Entity {
	return func(w *ecs.World) []ecs.Entity {
		es := withDead(i, setup)(w)
		e, err := w.Create(b)
		if err != nil {
			panic(fmt.Sprintf("conformance: batch setup: create: %v", err))
		}
		if e.Slot() != es[i].Slot() {
			panic(fmt.Sprintf("conformance: batch setup: the create took slot %d, not the destroyed entity's %d", e.Slot(), es[i].Slot()))
		}
		return es
	}
}

func bulkName(deferral.Capabilities) string { return "BulkRunsAsOneByOne" }

// checkBulk: every bulk case commits with the results of one-by-one application (the
// reference strategy on a twin world) — the commit's error, the report, the resolutions, the
// world's Hash and Changes, after a retry and after discarding the suffix (as checkBatch) —
// on the fixture's storage and on archetype storage, where the order in which a query visits
// the entities, set by set, must be one-by-one's too (sameVisits).
func checkBulk(x *fixture) {
	stores := []ecs.Storage{x.store}
	if x.store != ecs.Archetypes {
		stores = append(stores, ecs.Archetypes)
	}
	for _, st := range stores {
		for _, c := range bulkCases {
			x.bulkCase(c, st)
		}
	}
}

func (x *fixture) bulkCase(c batchCase, st ecs.Storage) {
	x.Helper()
	op := fmt.Sprintf("bulk %s (storage %v)", c.name, st)
	sides := [2]*batchSide{}
	for i, f := range []Factory{x.f, reference.Factory(reference.Ordered, reference.NoBug)} {
		w := ecs.NewWorld(ecs.WithStorage(st))
		s := f(w)
		x.owned = append(x.owned, s)
		sides[i] = &batchSide{w: w, s: s, ents: c.setup(w)}
		sides[i].bulk, sides[i].moves = w.BulkRows(), w.Moves()
		sides[i].ph = c.stage(s.NewRecorder(), sides[i].ents)
	}
	got, ref := sides[0], sides[1]
	masks := make([]ecs.Mask, len(got.ents))
	for i, e := range got.ents {
		masks[i] = got.w.MaskOf(e)
	}
	errGot, errRef := got.s.Commit(), ref.s.Commit()
	for i, e := range got.ents {
		if got.w.Alive(e) && got.w.MaskOf(e) != masks[i] {
			got.changed++
		}
	}
	x.sameCommit(op, errGot, errRef)
	x.sameState(op, got, ref)
	x.sameVisits(op, got.w, ref.w)
	defer x.sameBulk(op, c, st, got, ref)
	if errRef != nil {
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
}

// sameBulk checks the rows bulk table operations handled (ecs.World.BulkRows) in a bulk
// case: none one by one, none on slot storage, and with BulkRuns declared the case's count on
// archetype storage; a strategy that does not declare it has them logged. The row moves
// (ecs.World.Moves) lie between one per entity whose set changed and one-by-one application's.
func (x *fixture) sameBulk(op string, c batchCase, st ecs.Storage, got, ref *batchSide) {
	x.Helper()
	want(x, op+": bulk rows one by one", ref.w.BulkRows()-ref.bulk, 0)
	// World.Moves counts each row a bulk move moves: at least one per entity whose component
	// set the commit changed, at most one-by-one application's.
	if moved, oneByOne := got.w.Moves()-got.moves, ref.w.Moves()-ref.moves; st == ecs.Archetypes && (moved < got.changed || moved > oneByOne) {
		x.Errorf("%s: %d row moves (World.Moves), want between %d (entities whose set changed) and %d (one by one)", op, moved, got.changed, oneByOne)
	}
	n := got.w.BulkRows() - got.bulk
	switch {
	case st != ecs.Archetypes:
		want(x, op+": bulk rows on slot storage", n, 0)
	case x.caps.BulkRuns:
		want(x, op+": bulk rows with BulkRuns declared (the case's runs)", n, bulkRows[c.name])
	default:
		x.Logf("%s: %d bulk rows, %d with BulkRuns declared", op, n, bulkRows[c.name])
	}
}

// sameVisits reports unless the two worlds' queries visit their entities (by slot) in the
// same order: Query(0) (creation order) as a whole, and a query of Position table by table —
// the entities of each component set in the same row order, which moving the rows of entity
// after entity together keeps (ecs's moveRows: the order of moving them one at a time). The
// ecs package promises neither beyond Query(0): batching skips the sets an entity passes
// through one command after another, so it may make their tables later or never, and a run
// that nets out to no change (an Add, then a Remove of it) leaves a row where one by one it
// would have moved out and back. The bulk cases hold no such run, so a row order apart from
// one-by-one's is a bulk move's fault; the order of the tables is not compared.
func (x *fixture) sameVisits(op string, got, ref *ecs.World) {
	x.Helper()
	a, b := slotsOf(got, 0), slotsOf(ref, 0)
	if !slices.Equal(a, b) {
		x.Errorf("%s: Query(0) visits slots %v, one by one %v", op, a, b)
	}
	m := ecs.MaskOf(workload.Position.ID())
	ta, tb := rowsBySet(got, m), rowsBySet(ref, m)
	if !maps.EqualFunc(ta, tb, slices.Equal) {
		x.Errorf("%s: a query of %v visits, set by set, slots %v, one by one %v", op, m, ta, tb)
	}
}

// slotsOf returns the slots of the entities w.Query(m) visits, in its order.
func slotsOf(w *ecs.World, m ecs.Mask) []uint32 {
	var out []uint32
	for e := range w.Query(m) {
		out = append(out, e.Slot())
	}
	return out
}

// rowsBySet returns the slots of the entities w.Query(m) visits, in its order, by the
// entity's component set.
func rowsBySet(w *ecs.World, m ecs.Mask) map[ecs.Mask][]uint32 {
	out := map[ecs.Mask][]uint32{}
	for e := range w.Query(m) {
		out[w.MaskOf(e)] = append(out[w.MaskOf(e)], e.Slot())
	}
	return out
}
