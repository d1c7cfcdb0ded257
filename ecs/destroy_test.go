package ecs_test

import (
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// TestDestroyRecordsCompactOrder churns a world through runs of destroys (DestroyRecords),
// which compact the live order once per run: the order, tombstones included, stays within
// twice the live entities plus 64, as it does under Destroy called entity by entity.
func TestDestroyRecordsCompactOrder(t *testing.T) {
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		w := ecs.NewWorld(ecs.WithStorage(st))
		var live []ecs.Entity
		for round := range 20 {
			for i := range 300 {
				live = append(live, mustCreate(t, w, Pos.Value(vec{float64(round), float64(i)})))
			}
			var words []uint64
			for _, e := range live[10:] {
				words = ecs.AppendDestroyRecord(words, e)
			}
			r := w.DestroyRecords(words, len(live)-10)
			if r.Destroyed != len(live)-10 {
				t.Fatalf("%v round %d: destroyed %d of %d", st, round, r.Destroyed, len(live)-10)
			}
			live = live[:10]
			if n := ecs.OrderLen(w); n > 2*w.Len()+64 {
				t.Fatalf("%v round %d: live order holds %d places for %d entities: its tombstones are never dropped", st, round, n, w.Len())
			}
		}
	}
}
