package ecs

import (
	"fmt"
	"unsafe"
)

// TryChange applies a net structural change to e in one step: it gives e the components in b,
// overwriting values e already has (as TryUpsert), then takes from e every component of
// remove that it has, skipping those it lacks (as TryRemove). The final state, and the error
// of a change that fails before anything is applied, are those of TryUpsert(e, b) followed
// by TryRemove(e, id) for each id of remove; a component in both b and remove ends removed
// (its value is still validated). On archetype storage e's row moves at most once, to the
// table of its final component set, however many components are added and removed (Moves
// counts one; none when the set does not change); this is the primitive a commit that merges
// an entity's adjacent structural commands applies them with. b is read during the call, not
// kept.
//
// When e is not a live entity of w it returns live == false and a nil error, changing nothing.
// Errors: those of TryUpsert (ErrDuplicateComponent, ErrInvalidValue, ErrUnknownComponent, and
// ErrIterating for a component added while a query iterates), and ErrIterating when the
// change removes a component e has while a query iterates. On error nothing changed — unlike
// the one-by-one calls, which would have applied b before refusing the removal — and Changes
// moves once for a change that succeeds.
func (w *World) TryChange(e Entity, b *Bundle, remove Mask) (live bool, err error) {
	if !w.isLive(e) {
		return false, nil
	}
	slot := e.slot
	have := w.masks[slot]
	mask, dup := b.maskDup()
	if dup || mask&^w.hasCol != 0 || mask&w.validated != 0 || (mask&^have != 0 && w.iters.Load() > 0) {
		if err := w.putCheck(e, b, true, true); err != nil {
			return true, err
		}
	}
	gone := (have | mask) & remove
	if gone != 0 && w.iters.Load() > 0 {
		return true, fmt.Errorf("remove %s from %v: %w", ComponentName(trailingZeros(gone)), e, ErrIterating)
	}
	final := (have | mask) &^ remove
	if w.arch != nil {
		w.archTryChange(slot, b, have, final)
	} else {
		for i := range int(b.n) {
			w.raw[b.ids[i]].put(slot, unsafe.Pointer(&b.data[b.offs[i]]))
		}
		for m := gone; m != 0; m &= m - 1 {
			if id := trailingZeros(m); w.raw[id].noPtrs {
				w.raw[id].zero(slot)
			} else {
				w.cols[id].clear(slot)
			}
		}
	}
	w.masks[slot] = final
	w.changes++
	return true, nil
}

// archTryChange is TryChange's write on archetype storage: one move from have's table to
// final's, along cached edges (archChange, batch.go), then b's values of the components
// final keeps.
func (w *World) archTryChange(slot uint32, b *Bundle, have, final Mask) {
	if final != have {
		w.archChange(slot, have, final)
	}
	a := w.arch
	l := a.loc[slot]
	t := a.tables[l.t]
	for i := range int(b.n) {
		if id := b.ids[i]; final.Has(id) {
			t.raw[id].put(l.row, unsafe.Pointer(&b.data[b.offs[i]]))
		}
	}
}
