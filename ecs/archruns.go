package ecs

import "unsafe"

// This file holds ApplyValues' typed loop on archetype storage for runs of one header that
// move no row: Sets and overwriting Adds of one component on entity after entity.

// archApplyRun applies the records from word o on that have header h, a Set or Add that
// archApplyValues just applied through the component's Writer x (a column without a
// validator whose values hold no pointers, of 4, 8 or 16 bytes), as long as each target is
// live and already has the component: no row moves, so each record is a liveness and
// generation check, a mask test, the entity's row and a copy, as on slot storage. It
// returns the word after the last record it applied and how many it applied; at most n.
//
//go:noinline
func (w *World) archApplyRun(words []uint64, o, n int, h uint32, x *Writer) (end, recs int) {
	k := 2 + int(h>>11&0x1f)
	lim := min(len(words)-k, o+(min(n, len(words))-1)*k)
	switch x.size {
	case 16:
		end = archValueRun[[2]uint64](w, words, o, lim, k, h, x)
	case 8:
		end = archValueRun[uint64](w, words, o, lim, k, h, x)
	case 4:
		end = archValueRun[uint32](w, words, o, lim, k, h, x)
	default:
		return o, 0
	}
	recs = (end - o) / k
	w.changes += uint64(recs)
	return end, recs
}

// archValueRun is archApplyRun's loop for values of type T: the target's row (loc), its
// table and the column's address there, two loads, then the copy.
func archValueRun[T any](w *World, words []uint64, o, lim, k int, h uint32, x *Writer) int {
	// A record of a T is 2 + T's words long: a constant stride (as in valueRun).
	if k != recordWords[T]() || unsafe.Sizeof(*new(T)) != x.size {
		return o
	}
	k = recordWords[T]()
	base, hw, bit := unsafe.Pointer(unsafe.SliceData(words)), headWord(h, w.id), x.bit
	a := w.arch
	// The world's slices, read once (as in valueRun); every live slot has its place in loc,
	// and every place names a table of a.tables, which has the component's column when the
	// entity has the component. colAt is the offset of that column's address in a table.
	gens, slots, masks := unsafe.Pointer(unsafe.SliceData(w.liveGen)), uintptr(len(w.liveGen)), unsafe.Pointer(unsafe.SliceData(w.masks))
	locs, tables := unsafe.Pointer(unsafe.SliceData(a.loc)), unsafe.Pointer(unsafe.SliceData(a.tables))
	colAt := unsafe.Offsetof(table{}.raw) + uintptr(x.id)*unsafe.Sizeof(rawColumn{}) + unsafe.Offsetof(rawColumn{}.base)
	for ; o <= lim; o += k {
		p := unsafe.Add(base, o*8)
		e := (*Entity)(unsafe.Add(p, 4))
		s := uintptr(e.slot)
		if *(*uint64)(p) != hw || s >= slots || e.gen != *(*uint32)(unsafe.Add(gens, s*4)) ||
			*(*Mask)(unsafe.Add(masks, s*8))&bit == 0 {
			break
		}
		l := *(*loc)(unsafe.Add(locs, s*unsafe.Sizeof(loc{})))
		t := *(*unsafe.Pointer)(unsafe.Add(tables, uintptr(l.t)*unsafe.Sizeof((*table)(nil))))
		col := *(*unsafe.Pointer)(unsafe.Add(t, colAt))
		*(*T)(unsafe.Add(col, uintptr(l.row)*unsafe.Sizeof(*new(T)))) = *(*T)(unsafe.Add(p, 16))
	}
	return o
}
