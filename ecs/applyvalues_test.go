package ecs_test

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

var (
	avU32  = ecs.NewComponent[uint32]("ecs_test.avU32", nil)
	avU64  = ecs.NewComponent[uint64]("ecs_test.avU64", nil)
	avV2   = ecs.NewComponent[[2]uint64]("ecs_test.avV2", nil)
	avW3   = ecs.NewComponent[[3]uint64]("ecs_test.avW3", nil)
	avTag  = ecs.NewComponent[struct{}]("ecs_test.avTag", nil)
	avComp = []struct {
		id    ecs.ComponentID
		words int
	}{{avU32.ID(), 1}, {avU64.ID(), 1}, {avV2.ID(), 2}, {avW3.ID(), 3}, {avTag.ID(), 0}, {HP.ID(), 1}}
)

// TestApplyValuesRuns holds ApplyValues over a whole stream (where runs of records with one
// header take the run loop) to ApplyValues one record at a time (never a run): the same
// records applied, dead and no-op removes, the same stop, and the same world (hash, Changes).
// The streams mix runs, runs of pairs (two components on one entity, entity after
// entity) and single records of Add, Set and Remove on values of 0, 4, 8, 16
// and 24 bytes, a validated component (a stop), live, dead and stale targets, and placeholders
// (a stop); some are applied while the world is frozen (adds and removes stop). Odd rounds
// run on archetype storage, where the entities lie in four tables, so that a run's targets
// change table from record to record.
func TestApplyValuesRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 7))
	for round := range 1200 {
		frozen := round%5 == 4
		st := []ecs.Storage{ecs.Slots, ecs.Archetypes}[round%2]
		build := func() (*ecs.World, []ecs.Entity) { // a world and handles: live, stale, dead, a placeholder
			w := ecs.NewWorld(ecs.WithStorage(st))
			var es []ecs.Entity
			for i := range 8 {
				b := ecs.NewBundle(avU32.Value(uint32(i)))
				if i%2 == 0 {
					b = ecs.NewBundle(avU32.Value(uint32(i)), avV2.Value([2]uint64{1, 2}), avTag.Value(struct{}{}))
				}
				es = append(es, mustCreate(t, w, b))
				if i%4 == 0 {
					if err := w.Add(es[i], ecs.NewBundle(avW3.Value([3]uint64{3}))); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Destroy(es[7]); err != nil {
				t.Fatal(err)
			}
			mustCreate(t, w, avU64.Value(9)) // reuses es[7]'s slot: es[7] is stale
			if err := w.Destroy(es[6]); err != nil {
				t.Fatal(err)
			}
			es = append(es, ecs.NewPlaceholder(1, 2, 3))
			return w, es
		}
		wa, es := build()
		wb := wa.Replica()
		var words []uint64
		n := 0
		add := func(c struct {
			id    ecs.ComponentID
			words int
		}, verb uint32, e ecs.Entity) {
			rec := make([]uint64, 2+c.words)
			*(*uint32)(unsafe.Pointer(&rec[0])) = verb | uint32(c.words*8)<<8 | uint32(c.id)<<16
			*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&rec[0]), 4)) = e
			for j := 2; j < len(rec); j++ {
				rec[j] = rng.Uint64() & 0x7fff_ffff // HP's validator wants N >= 0
			}
			words = append(words, rec...)
			n++
		}
		pick := func(k int) ecs.Entity {
			e := es[rng.IntN(len(es))]
			if rng.IntN(3) > 0 {
				e = es[k%6]
			}
			if e.IsPlaceholder() && rng.IntN(4) > 0 {
				e = es[0]
			}
			return e
		}
		for len(words) < 160 {
			c := avComp[rng.IntN(len(avComp))]
			verb := []uint32{ecs.RecordAdd, ecs.RecordRemove, ecs.RecordSet}[rng.IntN(3)]
			run := 1 + rng.IntN(6)
			if rng.IntN(2) == 0 { // a run of pairs: two components on one entity, entity after entity
				c2 := avComp[rng.IntN(len(avComp))]
				for k := range run {
					e := pick(k)
					add(c, verb, e)
					switch rng.IntN(8) { // now and then the pattern breaks
					case 0:
						e = pick(k + 1)
					case 1:
						add(avComp[rng.IntN(len(avComp))], verb, e)
						continue
					}
					add(c2, verb, e)
				}
				continue
			}
			for k := range run {
				add(c, verb, pick(k))
			}
		}
		if frozen {
			defer wa.Freeze()()
			defer wb.Freeze()()
		}
		ca, cb := wa.Changes(), wb.Changes()
		ra := wa.ApplyValues(words, n)
		rb := recordByRecord(wb, words, n)
		if ra != rb {
			t.Fatalf("round %d (%v): whole stream %+v, record by record %+v", round, st, ra, rb)
		}
		if wa.Hash() != wb.Hash() || wa.Changes()-ca != wb.Changes()-cb {
			t.Fatalf("round %d (%v): worlds differ: hash %x/%x, changes %d/%d", round, st, wa.Hash(), wb.Hash(), wa.Changes()-ca, wb.Changes()-cb)
		}
		if ra.Records == 0 && round%50 == 0 {
			t.Logf("round %d stopped at once", round)
		}
	}
}

// TestApplyValuesWrongLength: an Add or Set record whose value is shorter or longer than its
// component (a hand-built stream) stops ApplyValues before it, on both storages, whether it
// comes alone, after records of the right length (a run), or last in words: nothing is read
// past the record (go test -race checks the pointers) and the entity keeps its value.
func TestApplyValuesWrongLength(t *testing.T) {
	for _, s := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		for _, c := range []struct {
			id          ecs.ComponentID
			words, have int // the component's words, the record's
		}{{avW3.ID(), 3, 0}, {avW3.ID(), 3, 2}, {avW3.ID(), 3, 4}, {avV2.ID(), 2, 1}, {avU32.ID(), 1, 0}, {avTag.ID(), 0, 1}} {
			for _, verb := range []uint32{ecs.RecordSet, ecs.RecordAdd} {
				for _, before := range []int{0, 1, 3} { // right-length records on other entities first
					w := ecs.NewWorld(ecs.WithStorage(s))
					var es []ecs.Entity
					for range before + 1 {
						e := mustCreate(t, w, ecs.NewBundle(avV2.Value([2]uint64{2, 2}), avW3.Value([3]uint64{3, 3, 3}), avTag.Value(struct{}{})))
						if err := w.Add(e, avU32.Value(1)); err != nil {
							t.Fatal(err)
						}
						es = append(es, e)
					}
					var words []uint64
					rec := func(e ecs.Entity, k int) {
						r := make([]uint64, 2+k)
						*(*uint32)(unsafe.Pointer(&r[0])) = verb | uint32(k*8)<<8 | uint32(c.id)<<16
						*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&r[0]), 4)) = e
						for j := 2; j < len(r); j++ {
							r[j] = 7
						}
						words = append(words, r...)
					}
					for i := range before {
						rec(es[i], c.words)
					}
					rec(es[before], c.have)
					h := w.Hash()
					got := w.ApplyValues(words[:len(words):len(words)], before+1)
					if got.Records != before {
						t.Errorf("%v: %d right-length records then a %d-word value of a %d-word component: applied %d records, want %d",
							s, before, c.have, c.words, got.Records, before)
					}
					if before == 0 && w.Hash() != h {
						t.Errorf("%v: a %d-word value of a %d-word component changed the world", s, c.have, c.words)
					}
				}
			}
		}
	}
}
