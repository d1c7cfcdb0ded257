package ecs

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// ErrNotReplica: CopyFrom between two worlds that are not replicas of each other (different
// ids), or from a world into itself.
var ErrNotReplica = errors.New("worlds are not replicas of each other")

// Replica returns a deep copy of w that carries w's id, so every handle of w is valid in the
// copy and names the same entity there: two replicas of one world. The copy has w's storage,
// entities, generations, free slots, creation order and component values, copied as Go
// assignment copies them (a component holding a slice or pointer shares what it points to);
// on archetype storage it has w's tables and rows, so its queries visit w's order. From then
// on the two evolve independently; the same calls in the same order on both keep them
// identical — equal Hash, and equal handles returned by Create, because slots are allocated
// by the same rule.
//
// Replica only reads w, so it may run while other goroutines read w (Get, Query, Hash). A
// handle of a third world is foreign to both replicas, as before. Keeping replicas apart is the
// caller's job: a handle does not say which replica it was read from.
func (w *World) Replica() *World {
	r := &World{id: w.id}
	r.copyState(w)
	return r
}

// TrustValues turns w's validators off (on true) or on again (on false): while they are off,
// Create, Add, Set and Upsert (World and Component calls, and the record-applying calls)
// accept every value, as for a component registered without a validator, and never call
// one. It is for a replica that replays only calls its original made and validated: a
// validator is user code, and one with state (refusing an id it has seen) would refuse the
// replayed value. A create the original's validator refused must then be left out by the
// code that replays, and code that runs again rather than replays (a closure that reacts to
// a refusal) needs the validators on. CopyFrom and Replica do not carry the setting: a
// Replica of w validates until told otherwise. Not safe for concurrent use with other calls
// on w.
func (w *World) TrustValues(on bool) {
	if w.trusted == on {
		return
	}
	w.trusted = on
	w.refreshRaw(w.hasCol)
}

// CopyFrom makes w identical to src, a replica of it (same ID): afterwards w holds src's
// entities, generations, free slots, creation order and component values, and handles resolve
// the same in both. It reuses w's storage: once w has grown to src's size, CopyFrom does not
// allocate. It reads src only, so others may read src meanwhile; nothing may use w meanwhile.
// Errors: ErrNotReplica (different ids, or src is w), ErrIterating (a query iterates w or w
// is frozen). On error nothing changed.
func (w *World) CopyFrom(src *World) error {
	switch {
	case src == w:
		return fmt.Errorf("copy world %d from itself: %w", w.id, ErrNotReplica)
	case src.id != w.id:
		return fmt.Errorf("copy world %d into world %d: %w", src.id, w.id, ErrNotReplica)
	case w.Iterating():
		return fmt.Errorf("copy into world %d: %w", w.id, ErrIterating)
	}
	w.copyState(src)
	w.changes++
	return nil
}

// copyState copies every field of src that makes up the world's state into w, reusing w's
// slices. It is the only code that knows World's fields besides world.go.
func (w *World) copyState(src *World) {
	w.gens = append(w.gens[:0], src.gens...)
	w.liveGen = append(w.liveGen[:0], src.liveGen...)
	w.masks = append(w.masks[:0], src.masks...)
	w.pos = append(w.pos[:0], src.pos...)
	w.order = append(w.order[:0], src.order...)
	w.free = append(w.free[:0], src.free...)
	w.holes, w.live, w.dense = src.holes, src.live, src.dense
	if src.arch != nil {
		w.arch = src.arch.copyInto(w.arch)
	} else {
		w.arch = nil
	}
	// A world has a column for exactly the components of its hasCol: only those of either
	// world are copied or dropped, and only their views refreshed, so a copy's fixed cost
	// grows with the components the worlds use, not with MaxComponents.
	ids := src.hasCol | w.hasCol
	for m := ids; m != 0; m &= m - 1 {
		id := trailingZeros(m)
		if c := src.cols[id]; c != nil {
			w.cols[id] = c.copyInto(w.cols[id], math.MaxInt) // a value per slot, dead ones zero
		} else {
			w.cols[id] = nil
		}
	}
	if src.arch != nil && w.noWriter.w == w {
		// On archetype storage the world's columns hold no values (the tables do): their
		// views change only where a column came or went.
		ids = src.hasCol ^ w.hasCol
	}
	w.refreshRaw(ids)
}

func (c *typedColumn[T]) copyInto(dst column, n int) column {
	d, ok := dst.(*typedColumn[T])
	if !ok {
		d = &typedColumn[T]{info: c.info, valid: c.valid}
	}
	d.data = slices.Grow(d.data[:0], len(c.data))[:len(c.data)]
	copy(d.data, c.data[:min(n, len(c.data))])
	return d
}

func (c *typedColumn[T]) storageBytes() int { return cap(c.data) * int(c.info.size) }

// Changes returns a counter that moves on every call that changes w: a successful Create,
// Destroy, Add, Set, Upsert or Remove (World or Component), CopyFrom, and MarkChanged. A
// failed call, a read, and a write through Component.Ptr do not move it. Only differences
// between two readings mean something: equal readings mean no counted change happened in
// between. Like the changing calls, read it from the goroutine that changes w.
func (w *World) Changes() uint64 { return w.changes }

// MarkChanged moves the Changes counter: call it after writing values through Component.Ptr
// when something (a strategy keeping a replica of w in step) compares Changes readings.
func (w *World) MarkChanged() { w.changes++ }

// StorageBytes returns the bytes w's storage holds, by capacity: the per-slot arrays
// (generation, liveness, component set, position in the live order), the live order, the free
// list, every component column, on archetype storage every table (its columns, its row list,
// its edges) and each slot's row, and the World value itself. What pointer-holding component
// values point to is not counted. It reads w only.
func (w *World) StorageBytes() int {
	n := int(unsafe.Sizeof(*w)) +
		cap(w.gens)*4 + cap(w.liveGen)*4 + cap(w.masks)*8 + cap(w.pos)*4 + cap(w.order)*4 + cap(w.free)*4
	for m := w.hasCol; m != 0; m &= m - 1 { // the components w has a column for
		n += w.cols[trailingZeros(m)].storageBytes()
	}
	if w.arch != nil {
		n += w.arch.storageBytes()
	}
	return n
}
