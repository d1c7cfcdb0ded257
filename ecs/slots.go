package ecs

import (
	"fmt"
	"math"
)

// Slots: where a new entity goes (the last slot freed, or a new one that grows the columns),
// and how a created entity becomes live (its generation, dense index, mask and place in the
// creation order), one at a time or as a run.

// newSlot returns a free slot for a new entity, the last one freed or a new one (growing the
// columns). Errors: ErrWorldFull.
func (w *World) newSlot() (uint32, error) {
	if slot, ok := w.popFree(); ok {
		return slot, nil
	}
	return w.growSlot()
}

// popFree takes the slot freed last from the free list; ok is false when none is free. The
// runs of creates call it inline, and growSlot only when it finds none.
func (w *World) popFree() (slot uint32, ok bool) {
	if f := len(w.free) - 1; f >= 0 {
		slot = w.free[f]
		w.free = w.free[:f]
		return slot, true
	}
	return 0, false
}

// growSlot is newSlot with no free slot: a new one past the last.
func (w *World) growSlot() (uint32, error) {
	if uint64(len(w.gens)) >= math.MaxUint32-1 {
		return 0, fmt.Errorf("create: %w", ErrWorldFull)
	}
	slot := uint32(len(w.gens))
	w.gens = append(w.gens, 1)
	w.liveGen = append(w.liveGen, 0)
	w.masks = append(w.masks, 0)
	w.pos = append(w.pos, tombstone)
	if len(w.gens) > w.colLen {
		w.growColumns(len(w.gens))
	}
	return slot, nil
}

// created makes slot, whose values are written, a live entity with components mask.
func (w *World) created(slot uint32, mask Mask) Entity {
	g := w.gens[slot]
	w.liveGen[slot] = g
	w.masks[slot] = mask
	w.pos[slot] = uint32(len(w.order))
	if w.dense == len(w.order) && int(slot) == w.dense {
		w.dense++
	}
	w.order = append(w.order, slot)
	w.live++
	w.changes++
	return Entity{world: w.id, slot: slot, gen: g}
}

// takeSlots fills dst with the slots newSlot would return one call after another — freed
// ones, the last freed first, then new ones past the last (growSlot) — and returns the part it
// filled: all of dst, or less when the world is full (ErrWorldFull, the caller's to report).
func (w *World) takeSlots(dst []uint32) []uint32 {
	take := min(len(dst), len(w.free))
	free := w.free[len(w.free)-take:]
	for i := range dst[:take] {
		dst[i] = free[take-1-i]
	}
	w.free = w.free[:len(w.free)-take]
	for n := take; n < len(dst); n++ {
		slot, err := w.growSlot()
		if err != nil {
			return dst[:n]
		}
		dst[n] = slot
	}
	return dst
}

// createdRun is created of each of slots in turn, the handles into out (as long as slots):
// the slots take consecutive places in the live order, appended in one copy, and the
// counters move once.
func (w *World) createdRun(slots []uint32, mask Mask, out []Entity) {
	n0, d := len(w.order), w.dense
	// The per-slot slices have one length: resliced to it, one bounds test covers them all.
	gens := w.gens
	liveGen, masks, pos := w.liveGen[:len(gens)], w.masks[:len(gens)], w.pos[:len(gens)]
	out = out[:len(slots)]
	for i, slot := range slots {
		g := gens[slot]
		liveGen[slot] = g
		masks[slot] = mask
		pos[slot] = uint32(n0 + i)
		if d == n0+i && int(slot) == d {
			d++
		}
		out[i] = Entity{world: w.id, slot: slot, gen: g}
	}
	w.dense = d
	w.order = append(w.order, slots...)
	w.live += len(slots)
	w.changes += uint64(len(slots))
}
