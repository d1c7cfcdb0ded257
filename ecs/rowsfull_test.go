package ecs_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// Components of every value size a column copies in its own way (none, 1, 4, 8, 12, 16, 24
// and 32 bytes). This file sorts after hash_stable_test.go: components it registers get ids
// after the ones TestHashStable's fixed hashes are taken with.
var (
	full0  = ecs.NewComponent[struct{}]("full.c0", nil)
	full1  = ecs.NewComponent[[1]byte]("full.c1", nil)
	full4  = ecs.NewComponent[uint32]("full.c4", nil)
	full8  = ecs.NewComponent[uint64]("full.c8", nil)
	full12 = ecs.NewComponent[[3]uint32]("full.c12", nil)
	full16 = ecs.NewComponent[[2]uint64]("full.c16", nil)
	full24 = ecs.NewComponent[[3]uint64]("full.c24", nil)
	full32 = ecs.NewComponent[[4]uint64]("full.c32", nil)
)

// fullComp is one of them: its id, its value's words, and a Bundle of its value for v.
type fullComp struct {
	id  ecs.ComponentID
	nw  int
	val func(v uint64) ecs.Bundle
}

var fullComps = []fullComp{
	{full0.ID(), 0, func(uint64) ecs.Bundle { return full0.Value(struct{}{}) }},
	{full1.ID(), 1, func(v uint64) ecs.Bundle { return full1.Value([1]byte{byte(v)}) }},
	{full4.ID(), 1, func(v uint64) ecs.Bundle { return full4.Value(uint32(v)) }},
	{full8.ID(), 1, func(v uint64) ecs.Bundle { return full8.Value(v) }},
	{full12.ID(), 2, func(v uint64) ecs.Bundle { return full12.Value([3]uint32{uint32(v), 1, 2}) }},
	{full16.ID(), 2, func(v uint64) ecs.Bundle { return full16.Value([2]uint64{v, 3}) }},
	{full24.ID(), 3, func(v uint64) ecs.Bundle { return full24.Value([3]uint64{v, 4, 5}) }},
	{full32.ID(), 4, func(v uint64) ecs.Bundle { return full32.Value([4]uint64{v, 6, 7, 8}) }},
}

// appendBundleRecord appends the bundle-form record of verb on e with b's values, as a
// recorder's stream holds it: the header and e, then b's 16-byte head and the values it uses.
func appendBundleRecord(words []uint64, verb uint32, e ecs.Entity, b ecs.Bundle) []uint64 {
	_, used, _, _ := ecs.BundleFields(b)
	pw := 2 + int(used)/8
	rec := make([]uint64, 2+pw)
	*(*uint32)(unsafe.Pointer(&rec[0])) = verb | uint32(pw)<<11 | 1<<24
	*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&rec[0]), 4)) = e
	copy(rec[2:], unsafe.Slice((*uint64)(unsafe.Pointer(&b)), pw))
	return append(words, rec...)
}

// TestBulkMoveFillsColumns: bulk row moves — ApplyValues' runs of an Add and a Remove per
// entity, and PutRecords' runs of bundle Adds — that fill the destination table's columns to
// their last row (8, 16 or 32 rows, some of them there before), for values of every size,
// give the receipts, Hash and rows of the records applied one by one, with rows moved in
// bulk. Under -race, checkptr stops any address formed past a column's end.
func TestBulkMoveFillsColumns(t *testing.T) {
	for _, total := range []int{8, 16, 32} {
		for pre := 0; pre < total-1; pre += 3 {
			for ci, c := range fullComps {
				for _, put := range []bool{false, true} {
					// full0 is the component the ApplyValues run removes; every entity has full8
					// and full16, so adding them moves no row of PutRecords' run.
					if ci == 0 || ci == 3 || ci == 5 && put {
						continue
					}
					build := func() (*ecs.World, []ecs.Entity) {
						w := ecs.NewWorld(ecs.WithStorage(ecs.Archetypes))
						for _, x := range fullComps { // every column made
							if err := w.Destroy(mustCreate(t, w, x.val(1))); err != nil {
								t.Fatal(err)
							}
						}
						// pre entities already in the destination table, the rest in the source.
						for i := range pre {
							e := mustCreate(t, w, ecs.NewBundle(full8.Value(uint64(i)), full16.Value([2]uint64{3, uint64(i)})))
							if err := w.Upsert(e, c.val(uint64(i))); err != nil {
								t.Fatal(err)
							}
						}
						var es []ecs.Entity
						for i := range total - pre {
							b := ecs.NewBundle(full8.Value(uint64(i)), full16.Value([2]uint64{9, uint64(i)}))
							if !put {
								b = b.With(full0.Value(struct{}{}))
							}
							es = append(es, mustCreate(t, w, b))
						}
						return w, es
					}
					wa, ea := build()
					wb, eb := build()
					var ra, rb ecs.ValueRun
					if put {
						var words, wordsB []uint64
						for i := range ea {
							words = appendBundleRecord(words, ecs.RecordAdd, ea[i], c.val(uint64(1000+i)))
							wordsB = appendBundleRecord(wordsB, ecs.RecordAdd, eb[i], c.val(uint64(1000+i)))
						}
						ra = wa.PutRecords(words, len(ea))
						for o := 0; o < len(wordsB); {
							r := wb.PutRecords(wordsB[o:], 1)
							if r.Records == 0 {
								t.Fatalf("PutRecords of one record at word %d applied none", o)
							}
							rb.Records += r.Records
							rb.Words += r.Words
							o += r.Words
						}
					} else {
						encode := func(es []ecs.Entity) (words []uint64) {
							for i, e := range es {
								words = appendRecord(words, ecs.RecordAdd, c.id, c.nw, e, uint64(1000+i))
								words = appendRecord(words, ecs.RecordRemove, full0.ID(), 0, e, 0)
							}
							return words
						}
						ra = wa.ApplyValues(encode(ea), 1<<30)
						rb = recordByRecord(wb, encode(eb), 1<<30)
					}
					op := fmt.Sprintf("%d rows, %d there before, component %d, PutRecords %v", total, pre, ci, put)
					if ra != rb || wa.Hash() != wb.Hash() || rowsBySet(wa) != rowsBySet(wb) {
						t.Fatalf("%s: in bulk %+v, hash %#x, rows %s; one by one %+v, hash %#x, rows %s", op, ra, wa.Hash(), rowsBySet(wa), rb, wb.Hash(), rowsBySet(wb))
					}
					if wa.BulkRows() == 0 {
						t.Fatalf("%s: no rows moved in bulk", op)
					}
				}
			}
		}
	}
}
