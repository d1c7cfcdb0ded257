package ecs_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

var (
	patC1  = ecs.NewComponent[[1]byte]("ecs_test.patC1", nil)
	patC12 = ecs.NewComponent[[3]uint32]("ecs_test.patC12", nil)
	patC20 = ecs.NewComponent[[5]uint32]("ecs_test.patC20", nil)
)

// appendRecord appends to words a one-value record of verb on component id for e, with nw
// value words each v (none for a Remove).
func appendRecord(words []uint64, verb uint32, id ecs.ComponentID, nw int, e ecs.Entity, v uint64) []uint64 {
	rec := make([]uint64, 2+nw)
	*(*uint32)(unsafe.Pointer(&rec[0])) = verb | uint32(nw*8)<<8 | uint32(id)<<16
	*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&rec[0]), 4)) = e
	for j := 2; j < len(rec); j++ {
		rec[j] = v
	}
	return append(words, rec...)
}

// rowsBySet lists, per component set (sorted), the slots of its entities in query order.
func rowsBySet(w *ecs.World) string {
	seen := map[ecs.Mask]bool{}
	for e := range w.Query(0) {
		seen[w.MaskOf(e)] = true
	}
	sets := make([]ecs.Mask, 0, len(seen))
	for m := range seen {
		sets = append(sets, m)
	}
	slices.Sort(sets)
	s := ""
	for _, m := range sets {
		var slots []uint32
		for e := range w.Query(m) {
			if w.MaskOf(e) == m {
				slots = append(slots, e.Slot())
			}
		}
		s += fmt.Sprintf("%x:%v ", m, slots)
	}
	return s
}

// TestApplyValuesRepeatedPatterns holds ApplyValues over a pattern of 1 to 4 one-value
// records repeated on entity after entity of one table (the runs that join a pending bulk
// move without being read again), broken now and then by another entity or one more record,
// to the records applied one per call: the same receipts, Hash and Changes, and, where no
// Remove can net a run out to no change, the same rows in every set. The limit n is the
// record count, a cut inside the stream, or past its end, and the words end at the stream's
// end or anywhere in it, mid-record included. A limit past the end — the count plus 5, or
// math.MaxInt — applies exactly what the count does, moves and rows included.
func TestApplyValuesRepeatedPatterns(t *testing.T) {
	comps := []struct {
		id ecs.ComponentID
		nw int
	}{{avTag.ID(), 0}, {patC1.ID(), 1}, {avU32.ID(), 1}, {avU64.ID(), 1}, {patC12.ID(), 2}, {avV2.ID(), 2}, {patC20.ID(), 3}, {avW3.ID(), 3}, {HP.ID(), 1}}
	rng := rand.New(rand.NewPCG(5, 5))
	rounds := 3000
	if testing.Short() {
		rounds = 1000
	}
	var bulk uint64 // rows moved together: the patterns did join pending runs
	for round := range rounds {
		st := []ecs.Storage{ecs.Archetypes, ecs.Slots}[min(round%4, 1)]
		build := func() (*ecs.World, []ecs.Entity) { // every column made; 14 entities, es[9] dead
			w := ecs.NewWorld(ecs.WithStorage(st))
			x := mustCreate(t, w, avU32.Value(1))
			for _, c := range []ecs.Bundle{avTag.Value(struct{}{}), patC1.Value([1]byte{1}), avU64.Value(1), patC12.Value([3]uint32{}), avV2.Value([2]uint64{}), patC20.Value([5]uint32{}), avW3.Value([3]uint64{}), HP.Value(hp{1})} {
				if err := w.Add(x, c); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Destroy(x); err != nil {
				t.Fatal(err)
			}
			var es []ecs.Entity
			for i := range 14 {
				b := ecs.NewBundle(avU32.Value(uint32(i)), avU64.Value(uint64(i)))
				if i%5 == 4 {
					b = ecs.NewBundle(avU32.Value(uint32(i)))
				}
				es = append(es, mustCreate(t, w, b))
			}
			if err := w.Destroy(es[9]); err != nil {
				t.Fatal(err)
			}
			return w, es
		}
		type rec struct {
			verb uint32
			c    int
		}
		pat := make([]rec, 1+rng.IntN(4))
		removes := false
		for j := range pat {
			pat[j] = rec{[]uint32{ecs.RecordAdd, ecs.RecordAdd, ecs.RecordSet, ecs.RecordRemove}[rng.IntN(4)], rng.IntN(len(comps))}
			removes = removes || pat[j].verb == ecs.RecordRemove
		}
		// The records as (record, entity index, value): each world's handles carry its id.
		type planned struct {
			rec
			ei int
			v  uint64
		}
		var plan []planned
		start := rng.IntN(14)
		for i := range 2 + rng.IntN(10) {
			ei := (start + i) % 14
			if rng.IntN(10) == 0 {
				ei = rng.IntN(14)
			}
			for _, r := range pat {
				plan = append(plan, planned{r, ei, rng.Uint64() & 0x7fffffff})
			}
			if rng.IntN(8) == 0 { // one more record on this entity
				r := rec{[]uint32{ecs.RecordAdd, ecs.RecordSet, ecs.RecordRemove}[rng.IntN(3)], rng.IntN(len(comps))}
				plan = append(plan, planned{r, ei, rng.Uint64() & 0x7fffffff})
				removes = true
			}
		}
		encode := func(es []ecs.Entity) (words []uint64) {
			for _, p := range plan {
				nw := comps[p.c].nw
				if p.verb == ecs.RecordRemove {
					nw = 0
				}
				words = appendRecord(words, p.verb, comps[p.c].id, nw, es[p.ei], p.v)
			}
			return words
		}
		cnt, size := len(plan), len(encode(make([]ecs.Entity, 14)))
		for _, cut := range []int{size, rng.IntN(size + 1)} {
			var whole string // the world after the count's limit: what a limit past the end gives too
			for _, n := range []int{cnt, 1 + rng.IntN(cnt), cnt + 5, math.MaxInt} {
				op := fmt.Sprintf("round %d %v pattern %v n=%d cut=%d of %d", round, st, pat, n, cut, size)
				wa, ea := build()
				wb, eb := build()
				wordsA, wordsB := encode(ea)[:cut:cut], encode(eb)[:cut:cut]
				ra := wa.ApplyValues(wordsA, n)
				bulk += wa.BulkRows()
				rb := recordByRecord(wb, wordsB, n)
				if ra != rb || wa.Hash() != wb.Hash() || wa.Changes() != wb.Changes() {
					t.Fatalf("%s: batched %+v hash %#x changes %d; one by one %+v hash %#x changes %d", op, ra, wa.Hash(), wa.Changes(), rb, wb.Hash(), wb.Changes())
				}
				if !removes {
					if a, b := rowsBySet(wa), rowsBySet(wb); a != b {
						t.Fatalf("%s: rows batched %s; one by one %s", op, a, b)
					}
				}
				got := fmt.Sprintf("%+v moves %d rows %s", ra, wa.Moves(), rowsBySet(wa))
				switch {
				case n == cnt:
					whole = got
				case n > cnt && got != whole:
					t.Fatalf("%s: a limit past the records applied %s; the records' count %s", op, got, whole)
				}
			}
		}
	}
	if bulk == 0 {
		t.Errorf("no rows moved together in %d rounds: no pattern joined a pending run", rounds)
	}
	t.Logf("%d rows moved together", bulk)
}
