package ecs

import (
	"slices"
	"unsafe"
)

// This file holds the bulk row move a commit's runs use on archetype storage: entity after
// entity making the same change from one table moves its rows together (moveRows), the
// destination found once, each column copied in one loop.

// moveRows moves the rows of slots — distinct live slots whose rows are all in table fi, in
// this order — to table ti (not fi), as move does slot after slot, and returns the row the
// first of them gets in ti; the others follow it in order. Rows, the order of rows in both
// tables, loc and Moves are those of move called slot by slot: the values are copied from
// the rows the slots hold before any of them moves (the swap-removes move values, never
// change them), the swap-removes are made in order on the slots and loc, and each column
// then replays the copies they imply in that order. The caller writes the values of the
// components only ti has.
func (a *archStore) moveRows(fi, ti int32, slots []uint32) uint32 {
	from, t := a.tables[fi], a.tables[ti]
	n0 := len(t.slots)
	for n0+len(slots) > t.rows {
		t.growRows() // push's doublings, made at once
	}
	src, locs := slices.Grow(a.srcRows[:0], len(slots))[:len(slots)], a.loc
	for i, s := range slots {
		src[i] = locs[s].row
	}
	for _, id := range t.flat {
		if from.mask.Has(id) {
			gatherRows(&t.raw[id], uint32(n0), from.raw[id].base, src)
		}
	}
	for _, id := range t.ptrs {
		if from.mask.Has(id) {
			c, fc := t.cols[id].(archColumn), from.cols[id]
			for i, sr := range src {
				c.setFrom(uint32(n0+i), fc, sr)
			}
		}
	}
	a.srcRows = src
	t.slots = append(t.slots, slots...)
	a.dropRows(from, slots)
	locs = a.loc
	for i, s := range slots {
		locs[s] = loc{uint32(ti), uint32(n0 + i)}
	}
	a.moves += uint64(len(slots))
	a.countRun(len(slots))
	return uint32(n0)
}

// gatherRows copies into the rows of r from row on, one after another, the values at rows src
// of the column of the same component at base: 8- and 16-byte values as moves in loops of
// their own, with r's base and size held in registers (copyFlat row by row reloads them after
// each store), other sizes through copyBytes.
func gatherRows(r *rawColumn, row uint32, base unsafe.Pointer, src []uint32) {
	if len(src) == 0 {
		return // row may be r's end: no address is formed there
	}
	// dst is never advanced past the last row: an address past a column's end is not formed.
	dst, size := r.at(row), r.size
	switch size {
	case 8:
		for i, sr := range src {
			*(*uint64)(unsafe.Add(dst, uintptr(i)*8)) = *(*uint64)(unsafe.Add(base, uintptr(sr)*8))
		}
	case 16:
		for i, sr := range src {
			*(*[2]uint64)(unsafe.Add(dst, uintptr(i)*16)) = *(*[2]uint64)(unsafe.Add(base, uintptr(sr)*16))
		}
	default:
		for i, sr := range src {
			copyBytes(unsafe.Add(dst, uintptr(i)*size), unsafe.Add(base, uintptr(sr)*size), size)
		}
	}
}

// dropRows swap-removes the rows of slots — distinct slots whose rows are all in from — in
// this order, as drop does row after row: the swap-removes are made in order on the slots
// and loc (the last row fills the leaving one), then each column copies into the rows that
// stay the values those swap-removes leave there, and the values holding pointers of the
// rows left are cleared. The slots' own places in loc are the caller's.
//
// A swap-remove's source is always the table's last row at the time, which is among the
// len(slots) rows past the final length, and is gone once it has been read: so every value a
// staying row ends with comes from one of those rows as they were before the first
// swap-remove, and a copy into a row that leaves later (a table emptied, entity after entity,
// copies nothing) is never made; a table emptied skips the swap-removes as well. The state is that of drop row after row; only the copies
// that drop would have overwritten or discarded are skipped.
func (a *archStore) dropRows(from *table, slots []uint32) {
	fs := from.slots
	keep := uint32(len(fs) - len(slots)) // the rows that stay: 0…keep-1
	if keep == 0 {
		// The table empties: no row stays to be filled, and the row each slot would pass
		// through on its way out is the caller's to overwrite (loc of a slot that leaves).
		for _, id := range from.ptrs {
			c := from.cols[id]
			for r := range fs {
				c.clear(uint32(r))
			}
		}
		from.slots = fs[:0]
		return
	}
	fill := a.fills[:0]
	// orig[r-keep] is the row before the first swap-remove whose value row r ≥ keep holds now
	// (r itself until a swap-remove fills it).
	orig := a.origRows[:0]
	for r := keep; r < uint32(len(fs)); r++ {
		orig = append(orig, r)
	}
	for _, s := range slots {
		row, last := a.loc[s].row, uint32(len(fs)-1)
		if row != last {
			l := fs[last]
			fs[row] = l
			a.loc[l].row = row
			if src := orig[last-keep]; row >= keep {
				orig[row-keep] = src
			} else {
				fill = append(fill, [2]uint32{row, src})
			}
		}
		fs = fs[:last]
	}
	// A staying row filled twice (its new slot left too) keeps the later value: the copies
	// are made in order, and no source lies among the staying rows.
	for _, id := range from.flat {
		r := &from.raw[id]
		for _, f := range fill {
			copyFlat(r.at(f[0]), r.at(f[1]), r.size)
		}
	}
	for _, id := range from.ptrs {
		c := from.cols[id]
		ac := c.(archColumn)
		for _, f := range fill {
			ac.setFrom(f[0], c, f[1])
		}
		for r := len(fs); r < len(from.slots); r++ {
			c.clear(uint32(r))
		}
	}
	from.slots = fs
	a.fills = fill
	a.origRows = orig
}

// hopOf returns the table reached from table fi by making its set final, through the memo
// archChange keeps (and sets).
func (a *archStore) hopOf(fi int32, final Mask) int32 {
	if fi == a.hopFrom && final == a.hopMask {
		return a.hopTo
	}
	return a.hop(fi, a.tables[fi].mask, final)
}

// countRun counts in BulkRows the n rows one bulk table operation handled, when they are two
// or more.
func (a *archStore) countRun(n int) {
	if n > 1 {
		a.bulk += uint64(n)
	}
}
