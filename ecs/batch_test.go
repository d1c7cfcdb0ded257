package ecs_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// batchRecord appends to words a one-value record of verb on e: Pos or Vel (a vec), Small
// (one byte in a word) or HP (validated), with a value drawn from rng.
func batchRecord(words []uint64, rng *rand.Rand, e ecs.Entity) []uint64 {
	verb := []byte{ecs.RecordAdd, ecs.RecordRemove, ecs.RecordSet}[rng.IntN(3)]
	id, n := Pos.ID(), 2
	switch rng.IntN(5) {
	case 0:
		id = Vel.ID()
	case 1:
		id, n = Small.ID(), 1
	case 2:
		id, n = HP.ID(), 1 // validated: an ApplyValues run stops before it, a create's takes a valid value
	}
	rec := make([]uint64, 2+n)
	*(*uint32)(unsafe.Pointer(&rec[0])) = uint32(verb) | uint32(n*8)<<8 | uint32(id)<<16
	*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&rec[0]), 4)) = e
	rec[2] = uint64(rng.IntN(4))
	if id == HP.ID() && rng.IntN(4) == 0 {
		rec[2] = uint64(^uint32(0)) // hp{-1}: the validator rejects it
	}
	return append(words, rec...)
}

// retarget returns a copy of words with every record's target ph replaced by e.
func retarget(words []uint64, ph, e ecs.Entity) []uint64 {
	out := append([]uint64(nil), words...)
	for o := 0; o < len(out); o += 2 + int(*(*uint32)(unsafe.Pointer(&out[o]))>>11&0x1f) {
		if p := (*ecs.Entity)(unsafe.Add(unsafe.Pointer(&out[o]), 4)); *p == ph {
			*p = e
		}
	}
	return out
}

// oneByOne applies the first n records of words to w one ApplyValues call per record (runs of
// one record: no batching), and returns the sum of what the calls applied. A valid HP value,
// which ApplyValues leaves to the checked path (HP has a validator), is applied as that path
// does (Upsert for an Add record, Set for a Set record).
func oneByOne(w *ecs.World, words []uint64, n int) (sum ecs.ValueRun) {
	for o := 0; sum.Records < n && o < len(words); {
		r := w.ApplyValues(words[o:], 1)
		if h := *(*uint32)(unsafe.Pointer(&words[o])); r.Records == 0 && ecs.ComponentID(h>>16&0x3f) == HP.ID() && h&0xff != ecs.RecordRemove {
			e, b := *(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&words[o]), 4)), HP.Value(*(*hp)(unsafe.Pointer(&words[o+2])))
			put := w.Upsert
			if h&0xff == ecs.RecordSet {
				put = w.Set
			}
			if put(e, b) != nil {
				break
			}
			r = ecs.ValueRun{Records: 1, Words: 2 + int(h>>11&0x1f)}
		}
		if r.Records == 0 {
			break
		}
		sum.Records++
		sum.Words += r.Words
		sum.Dead += r.Dead
		sum.NoopRemoves += r.NoopRemoves
		o += r.Words
	}
	return sum
}

// TestBatchEquivalence drives ApplyValues and CreateValues with runs of records on one or two
// entities, on both storages, and compares each with the same records applied one per call
// on a twin world: what they applied, Hash, Changes and the component set; on archetype
// storage the batched world moves rows at most once per run of one entity, and at most as
// often as one by one.
func TestBatchEquivalence(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	for _, s := range benchStorages {
		var saved uint64 // moves one by one made that batching did not
		for i := range 2000 {
			w, twin := ecs.NewWorld(ecs.WithStorage(s)), ecs.NewWorld(ecs.WithStorage(s))
			for _, x := range []*ecs.World{w, twin} { // every column exists, as in a running world
				mustCreate(t, x, Pos.Value(vec{}).With(Vel.Value(vec{})))
				mustCreate(t, x, Small.Value(small{}).With(HP.Value(hp{1})))
			}
			init := bundleOf(byte(rng.IntN(8)), byte(rng.IntN(256)))
			op := fmt.Sprintf("%v/case %d", s, i)
			var words []uint64
			if i%2 == 0 { // a create and records on its placeholder, then on another entity
				ph := ecs.NewPlaceholder(w.ID(), 1, uint32(i))
				other := mustCreate(t, w, Pos.Value(vec{}))
				mustCreate(t, twin, Pos.Value(vec{}))
				for range 1 + rng.IntN(6) {
					words = batchRecord(words, rng, ph)
				}
				words = batchRecord(words, rng, other)
				moves, placed := w.Moves(), w.Placements()
				e, r, err := w.CreateValues(&init, ph, words, 1+rng.IntN(8))
				e2, err2 := twin.Create(init)
				if errClass(err) != errClass(err2) || e.Slot() != e2.Slot() || e.Generation() != e2.Generation() {
					t.Fatalf("%s: CreateValues: %v %v; Create: %v %v", op, e, err, e2, err2)
				}
				if err != nil {
					continue
				}
				want := oneByOne(twin, retarget(words, ph, e2), r.Records)
				if r != want || w.Hash() != twin.Hash() || w.Changes() != twin.Changes() || w.MaskOf(e) != twin.MaskOf(e2) {
					t.Fatalf("%s: CreateValues applied %+v, hash %#x changes %d mask %b; one by one %+v, hash %#x changes %d mask %b",
						op, r, w.Hash(), w.Changes(), w.MaskOf(e), want, twin.Hash(), twin.Changes(), twin.MaskOf(e2))
				}
				if got := w.Moves() - moves; got != 0 {
					t.Fatalf("%s: CreateValues moved %d rows, want 0", op, got)
				}
				wantPlaced := uint64(0) // slot storage places no rows
				if w.Storage() == ecs.Archetypes {
					wantPlaced = 1
				}
				if got := w.Placements() - placed; got != wantPlaced {
					t.Fatalf("%s: CreateValues placed %d rows, want %d", op, got, wantPlaced)
				}
				continue
			}
			e, err := w.Create(init)
			if err != nil { // a rejected value: nothing to run on
				continue
			}
			e2 := mustCreate(t, twin, init)
			f, f2 := mustCreate(t, w, Pos.Value(vec{})), mustCreate(t, twin, Pos.Value(vec{}))
			runs := 0
			for k := range 1 + rng.IntN(10) {
				target := e
				if rng.IntN(4) == 0 {
					target = f
				}
				if k == 0 || target != lastTarget(words) {
					runs++
				}
				words = batchRecord(words, rng, target)
			}
			n := rng.IntN(12)
			m, m2 := w.Moves(), twin.Moves()
			r := w.ApplyValues(words, n)
			tw := retarget(retarget(words, e, e2), f, f2)
			want := oneByOne(twin, tw, r.Records)
			if r != want || w.Hash() != twin.Hash() || w.Changes() != twin.Changes() {
				t.Fatalf("%s: ApplyValues applied %+v, hash %#x changes %d; one by one %+v, hash %#x changes %d",
					op, r, w.Hash(), w.Changes(), want, twin.Hash(), twin.Changes())
			}
			got, one := w.Moves()-m, twin.Moves()-m2
			if got > one || got > uint64(runs) {
				t.Fatalf("%s: batched moves %d, one by one %d, runs of one entity %d", op, got, one, runs)
			}
			saved += one - got
		}
		if s == ecs.Archetypes && saved == 0 {
			t.Errorf("%v: batching saved no move in any case, want runs that change the set once", s)
		}
	}
}

// lastTarget returns the target of the last record of words.
func lastTarget(words []uint64) (last ecs.Entity) {
	for o := 0; o < len(words); o += 2 + int(*(*uint32)(unsafe.Pointer(&words[o]))>>11&0x1f) {
		last = *(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&words[o]), 4))
	}
	return last
}

// TestCreateValuesValidated: a create's run ends before an Add of a component with a
// validator, whether the validator would accept the value or not, so the validator runs once,
// when the caller applies that record one by one; what came before it is still placed once.
func TestCreateValuesValidated(t *testing.T) {
	rec := func(id ecs.ComponentID, e ecs.Entity, v uint64, n int) []uint64 {
		r := make([]uint64, 2+n)
		*(*uint32)(unsafe.Pointer(&r[0])) = uint32(ecs.RecordAdd) | uint32(n*8)<<8 | uint32(id)<<16
		*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&r[0]), 4)) = e
		r[2] = v
		return r
	}
	for _, s := range benchStorages {
		for _, c := range []struct {
			hp        int32
			wantRecs  int
			wantMoves uint64
		}{{1, 1, 0}, {-1, 1, 0}} {
			w := ecs.NewWorld(ecs.WithStorage(s))
			mustCreate(t, w, Pos.Value(vec{}).With(Vel.Value(vec{})).With(HP.Value(hp{1}))) // every column exists
			ph := ecs.NewPlaceholder(w.ID(), 1, 0)
			words := append(rec(Vel.ID(), ph, 0, 2), rec(HP.ID(), ph, uint64(uint32(c.hp)), 1)...)
			init := Pos.Value(vec{})
			moves, placed := w.Moves(), w.Placements()
			e, r, err := w.CreateValues(&init, ph, words, 2)
			if err != nil {
				t.Fatalf("%v hp %d: %v", s, c.hp, err)
			}
			if r.Records != c.wantRecs || w.Moves()-moves != c.wantMoves {
				t.Errorf("%v hp %d: CreateValues applied %d records, moved %d rows; want %d and %d", s, c.hp, r.Records, w.Moves()-moves, c.wantRecs, c.wantMoves)
			}
			if s == ecs.Archetypes && w.Placements()-placed != 1 {
				t.Errorf("%v hp %d: placed %d rows, want 1", s, c.hp, w.Placements()-placed)
			}
			if !w.Has(e, Vel.ID()) || w.Has(e, HP.ID()) {
				t.Errorf("%v hp %d: after the run the entity has Vel %v, HP %v; want Vel only", s, c.hp, w.Has(e, Vel.ID()), w.Has(e, HP.ID()))
			}
		}
	}
}
