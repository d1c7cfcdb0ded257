package ecs

import "unsafe"

// table is one archetype of a World on archetype storage: the entities whose component set is
// exactly mask, one row each, with a dense column per component of mask. Row i holds the
// entity of slot slots[i]; columns hold at least rows values.
type table struct {
	mask  Mask
	ids   []ComponentID // the components of mask, ascending
	slots []uint32      // per row: the entity's slot
	rows  int           // the length of every column's array
	cols  [MaxComponents]column
	raw   [MaxComponents]rawColumn // cols' untyped views, refreshed when their arrays move
	// add and rem are the archetype graph's edges, filled on first use: add[id] is 1 + the
	// index of the table reached by adding id to mask, rem[id] by removing it; 0 unknown.
	add, rem [MaxComponents]int32
}

// loc is where an entity's row is: its table's index and its row there.
type loc struct{ t, row uint32 }

// archStore is the archetype storage of a World: the tables, with tables[0] the empty set,
// and each slot's row.
type archStore struct {
	tables []*table
	byMask map[Mask]int32
	loc    []loc // per slot; meaningful while the slot is alive
	moves  uint64
}

func newArchStore() *archStore {
	a := &archStore{byMask: map[Mask]int32{}}
	a.newTable(0)
	return a
}

// newTable appends the table of mask; every component of mask is registered.
func (a *archStore) newTable(mask Mask) int32 {
	t := &table{mask: mask}
	for m := mask; m != 0; m &= m - 1 {
		id := trailingZeros(m)
		t.ids = append(t.ids, id)
		t.cols[id] = lookup(id).newColumn()
	}
	i := int32(len(a.tables))
	a.tables = append(a.tables, t)
	a.byMask[mask] = i
	return i
}

// find returns the index of mask's table, making it when it does not exist yet.
func (a *archStore) find(mask Mask) int32 {
	if i, ok := a.byMask[mask]; ok {
		return i
	}
	return a.newTable(mask)
}

// withID returns the table reached from table ti by adding id, through the cached edge.
func (a *archStore) withID(ti int32, id ComponentID) int32 {
	t := a.tables[ti]
	if e := t.add[id]; e != 0 {
		return e - 1
	}
	to := a.find(t.mask | 1<<id)
	t.add[id], a.tables[to].rem[id] = to+1, ti+1
	return to
}

// withoutID returns the table reached from table ti by removing id, through the cached edge.
func (a *archStore) withoutID(ti int32, id ComponentID) int32 {
	t := a.tables[ti]
	if e := t.rem[id]; e != 0 {
		return e - 1
	}
	to := a.find(t.mask &^ (1 << id))
	t.rem[id], a.tables[to].add[id] = to+1, ti+1
	return to
}

// tableOf returns the table of mask, walking the graph from the empty table: a few cached
// edges instead of a map lookup.
func (a *archStore) tableOf(mask Mask) int32 {
	ti := int32(0)
	for m := mask; m != 0; m &= m - 1 {
		ti = a.withID(ti, trailingZeros(m))
	}
	return ti
}

// place appends a row for slot to table ti and records it as slot's row; the caller writes
// every column of the row.
func (a *archStore) place(ti int32, slot uint32) (*table, uint32) {
	if int(slot) >= len(a.loc) {
		a.loc = append(a.loc, make([]loc, int(slot)+1-len(a.loc))...)
	}
	t := a.tables[ti]
	row := t.push(slot)
	a.loc[slot] = loc{uint32(ti), row}
	return t, row
}

// push appends a row for slot, growing the columns by doubling, and returns it.
func (t *table) push(slot uint32) uint32 {
	row := len(t.slots)
	if row == t.rows {
		t.grow(max(8, 2*t.rows))
	}
	t.slots = append(t.slots, slot)
	return uint32(row)
}

// grow makes every column hold rows values and refreshes the untyped views.
func (t *table) grow(rows int) {
	t.rows = rows
	for _, id := range t.ids {
		t.cols[id].grow(rows)
		t.raw[id] = t.cols[id].raw()
	}
}

// at returns the address of row's value in r.
func (r *rawColumn) at(row uint32) unsafe.Pointer { return unsafe.Add(r.base, uintptr(row)*r.size) }

// copyValue copies src's value of id at srow into dst's at drow: a byte copy for
// pointer-free values, a typed assignment otherwise.
func copyValue(dst *table, drow uint32, src *table, srow uint32, id ComponentID) {
	if r := &dst.raw[id]; r.noPtrs {
		r.put(drow, src.raw[id].at(srow))
		return
	}
	dst.cols[id].(archColumn).setFrom(drow, src.cols[id], srow)
}

// archColumn is what a table needs from a column beyond column: a typed copy of a value
// that holds pointers.
type archColumn interface {
	setFrom(row uint32, src column, srow uint32)
}

func (c *typedColumn[T]) setFrom(row uint32, src column, srow uint32) {
	c.data[row] = src.(*typedColumn[T]).data[srow]
}

// drop swap-removes row: the table's last row fills it (its entity's row is fixed) and the
// last row's values holding pointers are cleared.
func (a *archStore) drop(t *table, row uint32) {
	last := uint32(len(t.slots) - 1)
	if row != last {
		s := t.slots[last]
		for _, id := range t.ids {
			copyValue(t, row, t, last, id)
		}
		t.slots[row] = s
		a.loc[s].row = row
	}
	for _, id := range t.ids {
		if !t.raw[id].noPtrs {
			t.cols[id].clear(last)
		}
	}
	t.slots = t.slots[:last]
}

// move moves slot's row to table to, copying the values of the components both tables have,
// and swap-removes its old row. The caller writes the values of the components only to has.
func (a *archStore) move(slot uint32, to int32) {
	l := a.loc[slot]
	from, t := a.tables[l.t], a.tables[to]
	row := t.push(slot)
	for _, id := range t.ids {
		if from.mask.Has(id) {
			copyValue(t, row, from, l.row, id)
		}
	}
	a.drop(from, l.row)
	a.loc[slot] = loc{uint32(to), row}
	a.moves++
}

// ptr returns the address of slot's value of id; slot is alive and has id.
func (a *archStore) ptr(id ComponentID, slot uint32) unsafe.Pointer {
	l := a.loc[slot]
	return a.tables[l.t].raw[id].at(l.row)
}

// copyInto returns a deep copy of a, reusing d's storage (d may be nil).
func (a *archStore) copyInto(d *archStore) *archStore {
	if d == nil {
		d = &archStore{byMask: map[Mask]int32{}}
	}
	clear(d.byMask)
	for m, i := range a.byMask {
		d.byMask[m] = i
	}
	d.loc = append(d.loc[:0], a.loc...)
	d.moves = a.moves
	old := d.tables
	d.tables = d.tables[:0]
	for i, t := range a.tables {
		var c *table
		if i < len(old) && old[i].mask == t.mask {
			c = old[i]
		} else {
			c = &table{}
		}
		c.mask, c.add, c.rem = t.mask, t.add, t.rem
		c.ids = append(c.ids[:0], t.ids...)
		c.slots = append(c.slots[:0], t.slots...)
		prev := c.cols
		c.cols, c.raw = [MaxComponents]column{}, [MaxComponents]rawColumn{}
		for _, id := range t.ids {
			c.cols[id] = t.cols[id].(replicaColumn).copyInto(prev[id])
		}
		c.rows = t.rows
		c.grow(t.rows)
		d.tables = append(d.tables, c)
	}
	return d
}

// storageBytes returns the bytes a holds, by capacity.
func (a *archStore) storageBytes() int {
	n := int(unsafe.Sizeof(*a)) + cap(a.loc)*int(unsafe.Sizeof(loc{})) + cap(a.tables)*8 + len(a.byMask)*16
	for _, t := range a.tables {
		n += int(unsafe.Sizeof(*t)) + cap(t.ids) + cap(t.slots)*4
		for _, id := range t.ids {
			n += t.cols[id].(replicaColumn).storageBytes()
		}
	}
	return n
}
