package ecs

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
	src := a.srcRows[:0]
	for _, s := range slots {
		src = append(src, a.loc[s].row)
	}
	for _, id := range t.flat {
		if from.mask.Has(id) {
			r, f := &t.raw[id], &from.raw[id]
			for i, sr := range src {
				copyFlat(r.at(uint32(n0+i)), f.at(sr), r.size)
			}
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
	for i, s := range slots {
		a.loc[s] = loc{uint32(ti), uint32(n0 + i)}
	}
	a.moves += uint64(len(slots))
	a.countRun(len(slots))
	return uint32(n0)
}

// dropRows swap-removes the rows of slots — distinct slots whose rows are all in from — in
// this order, as drop does row after row: the swap-removes are made in order on the slots
// and loc (the last row fills the leaving one), then each column replays the copies they
// imply in that order, and the values holding pointers of the rows left are cleared. The
// slots' own places in loc are the caller's.
func (a *archStore) dropRows(from *table, slots []uint32) {
	fill := a.fills[:0]
	fs := from.slots
	for _, s := range slots {
		row, last := a.loc[s].row, uint32(len(fs)-1)
		if row != last {
			l := fs[last]
			fs[row] = l
			a.loc[l].row = row
			fill = append(fill, [2]uint32{row, last})
		}
		fs = fs[:last]
	}
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
