package ecs

import (
	"slices"
	"unsafe"
)

// table is one archetype of a World on archetype storage: the entities whose component set is
// exactly mask, one row each, with a dense column per component of mask. Row i holds the
// entity of slot slots[i]; columns hold at least rows values.
type table struct {
	mask  Mask
	ids   []ComponentID // the components of mask, ascending
	flat  []ComponentID // those of ids whose values hold no pointers: copied as bytes
	ptrs  []ComponentID // the others: copied by typed assignment, cleared when a row goes
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
	placed uint64 // rows place wrote: a create's row, placed straight into its table
	// lastMask's table is lastTable: tableOf's memo, for runs of creates of one set (the
	// zero values are right: table 0 is the empty set's).
	lastMask  Mask
	lastTable int32
	// A move from table hopFrom to the table of set hopMask goes to table hopTo: the memo of
	// the last net change (archChange), for runs of entities making the same change (the
	// zero values are right: the empty set's table reached from itself).
	hopFrom, hopTo int32
	hopMask        Mask
	// Scratch of a commit's bulk moves (moveRows and its callers), reused: the pending run's
	// slots and its records' word offsets (start and end), the source rows, the swap-removes'
	// copies (to, from).
	pend           []uint32
	pendAt, pendTo []int32
	srcRows        []uint32
	fills          [][2]uint32
	origRows       []uint32 // dropRows' scratch: where the rows past the staying ones came from
	// joined: PutRecords' pending run is one record and those joinPuts added after it —
	// records one after another, of one header and bundle head (flushPuts writes their
	// values column by column without checking them again). pendAt then lists only the
	// first record's place.
	joined bool
	// bulk counts the rows bulk table operations of two rows or more handled (BulkRows).
	bulk uint64
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
		info := lookup(id)
		if info.noPtrs {
			t.flat = append(t.flat, id)
		} else {
			t.ptrs = append(t.ptrs, id)
		}
		t.cols[id] = info.newColumn()
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
	if e := a.tables[ti].add[id]; e != 0 {
		return e - 1
	}
	return a.addEdge(ti, id)
}

// addEdge finds or makes the table of withID and caches the edges both ways.
func (a *archStore) addEdge(ti int32, id ComponentID) int32 {
	t := a.tables[ti]
	to := a.find(t.mask | 1<<id)
	t.add[id], a.tables[to].rem[id] = to+1, ti+1
	return to
}

// withoutID returns the table reached from table ti by removing id, through the cached edge.
func (a *archStore) withoutID(ti int32, id ComponentID) int32 {
	if e := a.tables[ti].rem[id]; e != 0 {
		return e - 1
	}
	return a.remEdge(ti, id)
}

// remEdge is addEdge for withoutID.
func (a *archStore) remEdge(ti int32, id ComponentID) int32 {
	t := a.tables[ti]
	to := a.find(t.mask &^ (1 << id))
	t.rem[id], a.tables[to].add[id] = to+1, ti+1
	return to
}

// tableOf returns the table of mask, walking the graph from the empty table: a few cached
// edges instead of a map lookup.
func (a *archStore) tableOf(mask Mask) int32 {
	if mask == a.lastMask {
		return a.lastTable
	}
	return a.walk(mask)
}

// walk is tableOf without the memo; it sets the memo.
func (a *archStore) walk(mask Mask) int32 {
	ti := int32(0)
	for m := mask; m != 0; m &= m - 1 {
		ti = a.withID(ti, trailingZeros(m))
	}
	a.lastMask, a.lastTable = mask, ti
	return ti
}

// place appends a row for slot to table ti and records it as slot's row; the caller writes
// every column of the row.
func (a *archStore) place(ti int32, slot uint32) (*table, uint32) {
	if int(slot) >= len(a.loc) {
		a.growLoc(int(slot) + 1)
	}
	t := a.tables[ti]
	row := t.push(slot)
	a.loc[slot] = loc{uint32(ti), row}
	a.placed++
	return t, row
}

// growLoc makes loc hold at least n slots, growing its capacity as append does and using
// all of it, so that the next new slots find their place without a call.
func (a *archStore) growLoc(n int) {
	a.loc = slices.Grow(a.loc, n-len(a.loc))
	a.loc = a.loc[:cap(a.loc)]
}

// push appends a row for slot, growing the columns by doubling, and returns it.
func (t *table) push(slot uint32) uint32 {
	n := len(t.slots)
	if n == t.rows {
		t.growRows()
	}
	t.slots = append(t.slots, slot)
	return uint32(n)
}

// growRows doubles the columns' length (8 rows at first).
func (t *table) growRows() { t.grow(max(8, 2*t.rows)) }

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

// copyFlat copies the size bytes at src to dst: 8 and 16 bytes as moves, small enough to
// inline, other sizes through copyBytes.
func copyFlat(dst, src unsafe.Pointer, size uintptr) {
	switch size {
	case 8:
		*(*uint64)(dst) = *(*uint64)(src)
	case 16:
		*(*[2]uint64)(dst) = *(*[2]uint64)(src)
	default:
		copyBytes(dst, src, size)
	}
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
		for _, id := range t.flat {
			r := &t.raw[id]
			copyFlat(r.at(row), r.at(last), r.size)
		}
		for _, id := range t.ptrs {
			t.cols[id].(archColumn).setFrom(row, t.cols[id], last)
		}
		t.slots[row] = s
		a.loc[s].row = row
	}
	for _, id := range t.ptrs {
		t.cols[id].clear(last)
	}
	t.slots = t.slots[:last]
}

// move moves slot's row to table to, copying the values of the components both tables have,
// and swap-removes its old row. The caller writes the values of the components only to has.
func (a *archStore) move(slot uint32, to int32) {
	l := a.loc[slot]
	from, t := a.tables[l.t], a.tables[to]
	row := t.push(slot)
	for _, id := range t.flat {
		if from.mask.Has(id) {
			r := &t.raw[id]
			copyFlat(r.at(row), from.raw[id].at(l.row), r.size)
		}
	}
	for _, id := range t.ptrs {
		if from.mask.Has(id) {
			t.cols[id].(archColumn).setFrom(row, from.cols[id], l.row)
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
	d.loc = append(d.loc[:0], a.loc...)
	d.moves, d.placed, d.bulk, d.lastMask, d.lastTable = a.moves, a.placed, a.bulk, a.lastMask, a.lastTable
	d.hopFrom, d.hopTo, d.hopMask = a.hopFrom, a.hopTo, a.hopMask
	old := d.tables
	d.tables = d.tables[:0]
	// When d has a's tables already (the same sets in the same order), its map and its edges
	// are right as they are and are not copied: byMask holds each table's index by its set and
	// nothing else (newTable), and an edge, once filled, names the index of the table of a set,
	// which is a's. (An edge d lacks it fills on first use, finding the table a has.) The
	// edges are 512 bytes a table: copying them was most of a copy's fixed cost.
	same := len(old) == len(a.tables)
	for i := 0; same && i < len(old); i++ {
		same = old[i].mask == a.tables[i].mask
	}
	for i, t := range a.tables {
		var c *table
		if i < len(old) && old[i].mask == t.mask {
			c = old[i] // its ids, flat and ptrs are its set's, which newTable derives them from
		} else {
			c = &table{mask: t.mask}
			c.ids = append(c.ids, t.ids...)
			c.flat = append(c.flat, t.flat...)
			c.ptrs = append(c.ptrs, t.ptrs...)
		}
		if !same {
			c.add, c.rem = t.add, t.rem
		}
		c.slots = append(c.slots[:0], t.slots...)
		// A table kept from the last copy has the same set, so its columns are those of
		// t.ids and the other entries are empty: each column is copied into its old one, and
		// its view refreshed. A new table starts empty. Of a column whose values hold
		// no pointers only the live rows are copied: every row a table gains is written whole
		// (push's callers), and a row dropped keeps its bytes (drop), so the bytes past the
		// live rows mean nothing. A column of pointers is copied whole: its dead rows are
		// zero (drop clears them), and must stay so in the copy.
		for _, id := range t.flat {
			c.cols[id] = t.cols[id].copyInto(c.cols[id], len(t.slots))
			c.raw[id] = c.cols[id].raw()
		}
		for _, id := range t.ptrs {
			c.cols[id] = t.cols[id].copyInto(c.cols[id], t.rows)
			c.raw[id] = c.cols[id].raw()
		}
		c.rows = t.rows // each column is as long as t's: t.rows
		d.tables = append(d.tables, c)
	}
	if !same {
		clear(d.byMask)
		for m, i := range a.byMask {
			d.byMask[m] = i
		}
	}
	return d
}

// storageBytes returns the bytes a holds, by capacity.
func (a *archStore) storageBytes() int {
	n := int(unsafe.Sizeof(*a)) + cap(a.loc)*int(unsafe.Sizeof(loc{})) + cap(a.tables)*8 + len(a.byMask)*16
	for _, t := range a.tables {
		n += int(unsafe.Sizeof(*t)) + cap(t.ids) + cap(t.flat) + cap(t.ptrs) + cap(t.slots)*4
		for _, id := range t.ids {
			n += t.cols[id].storageBytes()
		}
	}
	return n
}
