package ecs

import "fmt"

// Destroy removes e and all its components. Its slot is reused later with a newer generation,
// so e and its copies become stale. Errors: ErrIterating, or the handle's error.
func (w *World) Destroy(e Entity) error {
	if err := w.Check(e); err != nil {
		return fmt.Errorf("destroy %v: %w", e, err)
	}
	if w.Iterating() {
		return fmt.Errorf("destroy %v: %w", e, ErrIterating)
	}
	w.destroy(e.slot)
	return nil
}

// destroy is Destroy of live slot while no query iterates.
func (w *World) destroy(slot uint32) {
	w.destroyOne(slot)
	w.compactSome()
}

// destroyOne is destroy but for the live order's compaction (compactSome), which a run of
// destroys makes once, after its last: tombstones are invisible to every reader of the
// order (queries, Hash, Len), so when they are dropped changes nothing observable.
func (w *World) destroyOne(slot uint32) {
	if w.arch != nil {
		w.archDestroy(slot)
	} else {
		for m := w.masks[slot]; m != 0; m &= m - 1 {
			// A pointer-free value is cleared by stores, without the column's method.
			if id := trailingZeros(m); w.zeroable.Has(id) {
				w.raw[id].zero(slot)
			} else {
				w.cols[id].clear(slot)
			}
		}
	}
	gens := w.gens
	w.retire(slot, gens, w.liveGen[:len(gens)], w.pos[:len(gens)], w.masks[:len(gens)])
	w.live--
	w.changes++
}

// retire is what destroying live slot does to the world's slot tables, once its values are
// gone: the slot leaves the live order (a tombstone), its generation advances and it joins
// the free list, or, at the last generation, it is retired for good. The caller passes the
// per-slot slices resliced to one length, so that one bounds test covers them all (a run of
// destroys reslices them once), and counts the destroy in live and changes (a run, once for
// all).
func (w *World) retire(slot uint32, gens, liveGen, pos []uint32, masks []Mask) {
	g := gens[slot] + 1
	masks[slot] = 0
	liveGen[slot] = 0
	p := pos[slot]
	w.dense = min(w.dense, int(p))
	w.order[p] = tombstone
	pos[slot] = tombstone
	w.holes++
	// The generation advances, to maxGeneration at most. At maxGeneration the slot is
	// retired, never reused: a free slot's generation stays below it, so Check tells the
	// retired slot's last handle (dead) from older ones (stale).
	if g < maxGeneration {
		gens[slot] = g
		w.free = append(w.free, slot)
	} else {
		gens[slot] = maxGeneration
	}
}

// compactSome drops the live order's tombstones once they are more than 64 and more than
// half of it, so that the order stays within twice the live entities (plus 64).
func (w *World) compactSome() {
	if w.holes > 64 && w.holes > len(w.order)/2 {
		w.compact()
	}
}

// compact drops tombstones from the live order, keeping creation order.
func (w *World) compact() {
	n := 0
	for _, s := range w.order {
		if s != tombstone {
			w.order[n] = s
			w.pos[s] = uint32(n)
			n++
		}
	}
	clear(w.order[n:])
	w.order = w.order[:n]
	w.holes = 0
	for w.dense < n && w.order[w.dense] == uint32(w.dense) {
		w.dense++
	}
}
