package ecs

import (
	"slices"
	"unsafe"
)

// This file holds the bulk primitives a deferred commit applies creates and destroys with:
// CreateRecords and DestroyRecords, over records of the stream format ApplyValues reads.

// The record verbs of creates and destroys: the values of deferral's VerbCreate and
// VerbDestroy (deferral holds its verbs to these).
const (
	RecordCreate  = 1
	RecordDestroy = 2
)

// The forms of a record (byte 3 of its header): one value (or none), or a Bundle.
const (
	formValue  = 0
	formBundle = 1
)

// CreateRecords creates, from the start of words, one entity per create record, up to n
// records, as Create does each, appends their handles to created in order, and returns how
// many records it applied, the words they use, and the extended slice. A create record is a
// 4-byte header — byte 0 RecordCreate, byte 1 the payload's length in bytes (a multiple of
// 8), byte 2 zero, byte 3 the form (1: a Bundle) — the 12-byte entity the create minted (a
// placeholder; CreateRecords ignores it), then the payload: the Bundle's first 16 bytes
// (count, bytes used, ids, offsets) and the words of values it uses.
//
// It stops before the first record that is not a create record of that shape, or whose
// bundle needs more than Create's mask tests (a duplicate component, a component without a
// column yet, a validator, a query iterating), or when the world is full: the caller takes
// Create's checked path for that record, which returns its error. Consecutive records of one
// bundle shape (the same first 16 bytes) are checked once; on archetype storage their rows go
// into one table, found once. The entities, their values, Changes, Placements and the order
// of slots and rows are those of Create called record by record. It never fails, and reads
// no word past a record's length or past words.
func (w *World) CreateRecords(words []uint64, n int, created []Entity) (recs, used int, out []Entity) {
	if w.iters.Load() > 0 {
		return 0, 0, created
	}
	if w.arch != nil {
		return w.archCreateRecords(words, n, created)
	}
	o := 0
	for recs < n && o+4 <= len(words) {
		h := headAt(words, o)
		k := 2 + int(h>>11&0x1f)
		if h&0xff != RecordCreate || h>>24 != formBundle || o+k > len(words) {
			break
		}
		mask, ok := w.bundleShape(words[o+2:o+k], k-4)
		if !ok {
			break
		}
		// The run: the records from o on with this header and this bundle head; the
		// entities first, then the values, column after column (as archCreateRecords).
		h0, h1 := words[o+2], words[o+3]
		first, o0 := len(created), o
		j := sameShape(words[o:], min(n-recs, (len(words)-o)/k), k, h, h0, h1)
		w.runSlots = slices.Grow(w.runSlots[:0], j)
		slots := w.takeSlots(w.runSlots[:j])
		full := len(slots) < j
		created = slices.Grow(created, len(slots))[:first+len(slots)]
		w.createdRun(slots, mask, created[first:])
		recs += len(slots)
		o += len(slots) * k
		made := created[first:]
		b := unsafe.Pointer(&words[o0+2])
		cnt, usedBytes := int(*(*uint8)(b)), uintptr(*(*uint8)(unsafe.Add(b, 1)))
		for i := range cnt {
			col := &w.raw[*(*ComponentID)(unsafe.Add(b, 2+i))]
			off := uintptr(*(*uint8)(unsafe.Add(b, 2+MaxBundle+i))) * 8
			if off >= usedBytes {
				continue // a value of no size at the end of the values: nothing to copy
			}
			src := unsafe.Add(b, 16+off)
			for r, e := range made {
				col.put(e.slot, unsafe.Add(src, uintptr(r*k)*8))
			}
		}
		if full {
			break // the caller's checked create reports ErrWorldFull
		}
	}
	return recs, o, created
}

// archCreateRecords is CreateRecords on archetype storage: each run of records with one
// header and one bundle head is checked once and its rows appended together to its table,
// found once: the columns grown once for the run (push's doublings), then per record a
// slot, a row, its place in loc and its handle, and then per component the run's values,
// copied column after column (putStrided).
func (w *World) archCreateRecords(words []uint64, n int, created []Entity) (recs, used int, out []Entity) {
	a := w.arch
	o := 0
	for recs < n && o+4 <= len(words) {
		h := headAt(words, o)
		k := 2 + int(h>>11&0x1f)
		if h&0xff != RecordCreate || h>>24 != formBundle || o+k > len(words) {
			break
		}
		mask, ok := w.bundleShape(words[o+2:o+k], k-4)
		if !ok {
			break
		}
		// The run: the records from o on with this header and this bundle head.
		h0, h1 := words[o+2], words[o+3]
		j := sameShape(words[o:], min(n-recs, (len(words)-o)/k), k, h, h0, h1)
		ti := a.tableOf(mask)
		t := a.tables[ti]
		for len(t.slots)+j > t.rows {
			t.growRows()
		}
		o0, r0 := o, len(t.slots)
		row0 := uint32(r0)
		// The rows first: the run's slots, as newSlot would take them one after another —
		// freed ones, the last freed first, then new ones past the last — written straight
		// into the table's slots (takeSlots); then their places in loc and their handles
		// (createdRun). No call is made in a loop over the run but growSlot's.
		t.slots = slices.Grow(t.slots, j)
		rows := w.takeSlots(t.slots[r0 : r0+j])
		made := len(rows)
		t.slots = t.slots[:r0+made]
		if len(a.loc) < len(w.gens) {
			a.growLoc(len(w.gens))
		}
		for i, slot := range rows {
			a.loc[slot] = loc{uint32(ti), row0 + uint32(i)}
		}
		first := len(created)
		created = slices.Grow(created, made)[:first+made]
		w.createdRun(rows, mask, created[first:])
		recs += made
		o += made * k
		a.placed += uint64(made)
		// Then the values, column after column: the i-th value of each record, a record
		// every k words (a value of no size at the end of the values: nothing to copy).
		putBundles(&t.raw, row0, unsafe.Pointer(&words[o0+2]), uintptr(k)*8, made)
		if made < j { // the world is full: the caller's checked create reports it
			a.countRun(made)
			return recs, o, created
		}
		a.countRun(made)
	}
	return recs, o, created
}

// putStrided copies n values into col's rows row, row+1, …, the first at src and each next
// one stride bytes after it (a value in each of a run of records): the common sizes as
// moves in a loop of their own, as put copies one. No address past the last value is formed.
func putStrided(col *rawColumn, row uint32, src unsafe.Pointer, stride uintptr, n int) {
	switch col.size {
	case 16:
		dst := unsafe.Slice((*[2]uint64)(col.at(row)), n)
		for r := range dst {
			dst[r] = *(*[2]uint64)(unsafe.Add(src, uintptr(r)*stride))
		}
	case 8:
		dst := unsafe.Slice((*uint64)(col.at(row)), n)
		for r := range dst {
			dst[r] = *(*uint64)(unsafe.Add(src, uintptr(r)*stride))
		}
	case 4:
		dst := unsafe.Slice((*uint32)(col.at(row)), n)
		for r := range dst {
			dst[r] = *(*uint32)(unsafe.Add(src, uintptr(r)*stride))
		}
	default:
		for r := range uint32(n) {
			col.put(row+r, unsafe.Add(src, uintptr(r)*stride))
		}
	}
}

// bundleShape checks the bundle whose first 16 bytes start payload, with vwords words of
// values, as Create's mask tests do, and returns its component set; ok is false when Create
// must take its checked path (a duplicate, an unknown component or one without a column, a
// validator) or the payload is not a bundle of that length whose values lie inside it.
//
//go:noinline
func (w *World) bundleShape(payload []uint64, vwords int) (mask Mask, ok bool) {
	p := unsafe.Pointer(unsafe.SliceData(payload))
	cnt, usedBytes := int(*(*uint8)(p)), int(*(*uint8)(unsafe.Add(p, 1)))
	if cnt == 0 || cnt > MaxBundle || usedBytes != vwords*8 {
		return 0, false
	}
	for i := range cnt {
		id := *(*ComponentID)(unsafe.Add(p, 2+i))
		off := int(*(*uint8)(unsafe.Add(p, 2+MaxBundle+i)))
		bit := Mask(1) << id
		if id >= MaxComponents || mask&bit != 0 || w.hasCol&bit == 0 || w.validated&bit != 0 ||
			off*8+int(w.raw[id].size) > usedBytes && w.raw[id].size > 0 {
			return 0, false
		}
		mask |= bit
	}
	return mask, true
}

// DestroyRun is what DestroyRecords applied: Records records using Words words, of which
// Destroyed destroyed an entity and Dead named no live entity of the world (dead, stale,
// foreign or empty handles, or one already destroyed: nothing changed).
type DestroyRun struct {
	Records, Words, Destroyed, Dead int
}

// DestroyRecords destroys, from the start of words, the target of each destroy record, up
// to n records, as Destroy does each, and returns what it applied. A destroy record is a
// 4-byte header — byte 0 RecordDestroy, bytes 1 to 3 zero — and the 12-byte target. A target
// that is not a live entity of w is counted Dead and changes nothing. It stops before the
// first record that is not a destroy record of that shape or that names a placeholder (the
// caller resolves it), and at once while a query iterates (Destroy's ErrIterating is the
// caller's). The world's state, Changes and the order of slots and rows are those of Destroy
// called record by record.
func (w *World) DestroyRecords(words []uint64, n int) (r DestroyRun) {
	if w.iters.Load() > 0 {
		return r
	}
	if w.arch != nil {
		return w.archDestroyRecords(words, n)
	}
	o := 0
	for ; r.Records < n && o+2 <= len(words); r.Records++ {
		p := unsafe.Pointer(&words[o])
		if *(*uint32)(p) != RecordDestroy {
			break
		}
		e := *(*Entity)(unsafe.Add(p, 4))
		if !w.isLive(e) {
			if e.IsPlaceholder() {
				break
			}
			r.Dead++
		} else {
			w.destroyOne(e.slot)
			r.Destroyed++
		}
		o += 2
	}
	r.Words = o
	w.compactSome()
	return r
}

// archDestroyRecords is DestroyRecords on archetype storage: the rows of entity after entity
// of one table wait in a.pend and go together (dropRows) before a row of another table goes;
// the rest of each destroy is made at once.
func (w *World) archDestroyRecords(words []uint64, n int) DestroyRun {
	a := w.arch
	var pt uint32 // the pending rows' table
	o, recs, dead := 0, 0, 0
	gens := w.gens
	liveGen, pos, masks := w.liveGen[:len(gens)], w.pos[:len(gens)], w.masks[:len(gens)]
	for ; recs < n && o+2 <= len(words); recs++ {
		p := unsafe.Pointer(&words[o])
		if *(*uint32)(p) != RecordDestroy {
			break
		}
		e := *(*Entity)(unsafe.Add(p, 4))
		if e.world != w.id || int(e.slot) >= len(gens) || e.gen != liveGen[e.slot] { // !isLive(e)
			if e.IsPlaceholder() {
				break
			}
			dead++
		} else {
			if t := a.loc[e.slot].t; t != pt {
				w.flushDrops(pt)
				pt = t
			}
			a.pend = append(a.pend, e.slot) // its row goes with the others (flushDrops)
			w.retire(e.slot, gens, liveGen, pos, masks)
		}
		o += 2
	}
	r := DestroyRun{Records: recs, Words: o, Destroyed: recs - dead, Dead: dead}
	w.live -= r.Destroyed
	w.changes += uint64(r.Destroyed)
	w.flushDrops(pt)
	w.compactSome()
	return r
}

// flushDrops swap-removes DestroyRecords' pending rows, all of table t, together, as
// archDestroy does one after another.
func (w *World) flushDrops(t uint32) {
	if a := w.arch; a != nil && len(a.pend) > 0 {
		a.countRun(len(a.pend))
		a.dropRows(a.tables[t], a.pend)
		a.pend = a.pend[:0]
	}
}

// PutRecords applies, from the start of words, up to n bundle-form Add and Set records by
// the lenient rules of a commit, as Upsert (an Add) or Set of the record's Bundle on its
// target, and returns what it applied. Such a record is a 4-byte header — byte 0 RecordAdd
// or RecordSet, byte 1 the payload's length in bytes, byte 2 zero, byte 3 the form (1: a
// Bundle) — the 12-byte target, then the Bundle's first 16 bytes and the words of values it
// uses, as in CreateRecords. A record on an entity that is not live is counted Dead and
// changes nothing.
//
// It stops before the first record that is not of that shape, names a placeholder, or that
// Upsert or Set could not finish with their mask tests: a duplicate component, one without a
// column yet, a validator, a Set of a component the entity lacks, an Add of one while a query
// iterates. Consecutive records of one bundle shape are checked once; on archetype storage a
// record that adds components moves the row once, and entity after entity making the same
// change from one table moves its rows together (moveRows: the destination found once, through
// the memo archChange keeps). The state, Changes, Moves and the order of rows are those of
// the calls record by record.
func (w *World) PutRecords(words []uint64, n int) (r ValueRun) {
	iter := w.iters.Load() > 0
	var shape [2]uint64
	var mask, final Mask // final: the set the pending run's entities get (archetype storage)
	var from int32       // the pending run's table
	o := 0
	for ; r.Records < n && o+4 <= len(words); r.Records++ {
		p := unsafe.Pointer(&words[o])
		h := *(*uint32)(p)
		k := 2 + int(h>>11&0x1f)
		if v := h & 0xff; v != RecordAdd && v != RecordSet || h&0xff_ff0000 != formBundle<<24 || o+k > len(words) {
			break
		}
		e := (*Entity)(unsafe.Add(p, 4))
		if !w.isLive(*e) {
			if e.IsPlaceholder() {
				break
			}
			r.Dead++
			o += k
			continue
		}
		if head := [2]uint64{words[o+2], words[o+3]}; head != shape {
			m, ok := w.bundleShape(words[o+2:o+k], k-4)
			if !ok {
				break
			}
			shape, mask = head, m
		}
		slot := e.slot
		have := w.masks[slot]
		if mask&^have != 0 && (h&0xff == RecordSet || iter) {
			break
		}
		b := unsafe.Add(p, 16)
		cols, row := &w.raw, slot
		if a := w.arch; a != nil {
			if mask&^have != 0 {
				// A move: it joins the pending run when it makes the run's change from the
				// run's table, else the run moves first and this one starts the next.
				ti := int32(a.loc[slot].t)
				if len(a.pend) > 0 && (ti != from || have|mask != final) {
					w.flushPuts(words, from, final)
					ti = int32(a.loc[slot].t) // the entity may have been in the run
				}
				from, final = ti, have|mask
				if a.joined && len(a.pend) > 0 {
					a.listJoined(words)
				}
				a.joined = len(a.pend) == 0
				a.pend = append(a.pend, slot)
				a.pendAt = append(a.pendAt, int32(o))
				w.masks[slot] = final
				w.changes++
				o += k
				// The records after it with its header and bundle head, on entities of its
				// table, make the same change: they join the run in a loop of their own.
				j := w.joinPuts(words, o, k, n-r.Records-1, shape, have, final)
				r.Records += j
				w.changes += uint64(j)
				o += j * k
				continue
			}
			if len(a.pend) > 0 {
				w.flushPuts(words, from, final)
			}
			l := a.loc[slot]
			cols, row = &a.tables[l.t].raw, l.row
		}
		putBundle(cols, row, b)
		w.masks[slot] = have | mask
		w.changes++
		o += k
	}
	if w.arch != nil && len(w.arch.pend) > 0 {
		w.flushPuts(words, from, final)
	}
	r.Words = o
	return r
}

// flushPuts moves the pending run of PutRecords — entities of table from whose set becomes
// final, one record each, in the order of their records — to final's table together
// (moveRows), then writes each record's values into its entity's new row, as archChange and
// putBundle do record by record (the entities are distinct: a second record on one of them
// would find its set final already and flush the run first).
//
//go:noinline
func (w *World) flushPuts(words []uint64, from int32, final Mask) {
	a := w.arch
	to := a.hopOf(from, final)
	row := a.moveRows(from, to, a.pend)
	cols := &a.tables[to].raw
	// Records one after another with one header and bundle head (as joinPuts gathers them)
	// write their values column after column; any others, record by record.
	o0, n := int(a.pendAt[0]), len(a.pend)
	if k := 2 + int(headAt(words, o0)>>11&0x1f); a.joined || int(a.pendAt[n-1])-o0 == (n-1)*k &&
		sameShape(words[o0:], n, k, headAt(words, o0), words[o0+2], words[o0+3]) == n {
		putBundles(cols, row, unsafe.Pointer(&words[o0+2]), uintptr(k)*8, n)
	} else {
		for i, o := range a.pendAt {
			putBundle(cols, row+uint32(i), unsafe.Pointer(&words[o+2]))
		}
	}
	a.pend, a.pendAt = a.pend[:0], a.pendAt[:0]
}

// listJoined lists in a.pendAt the places of the records joinPuts added to a joined pending
// run (a.joined), which it leaves unlisted: they follow the run's first record one after
// another, each of that record's words. A record joining the run another way needs them
// listed (flushPuts then writes record by record).
func (a *archStore) listJoined(words []uint64) {
	o0 := int(a.pendAt[0])
	k := 2 + int(headAt(words, o0)>>11&0x1f)
	for o := o0 + k*len(a.pendAt); len(a.pendAt) < len(a.pend); o += k {
		a.pendAt = append(a.pendAt, int32(o))
	}
}

// joinPuts adds to PutRecords' pending run, record after record from word o of words, each
// bundle-form record of k words with the header and bundle head (shape) of the pending run's
// last record, the one before o, on a live entity whose set is have, that of the pending run's
// table: at most most records. Each makes the change the last one made, to the set final, so
// it joins the run as that one did. Their slots go to a.pend; their places to a.pendAt only
// when the run is not joined (listJoined lists them when it stops being so). It returns how
// many it added; they end at word o+added*k.
func (w *World) joinPuts(words []uint64, o, k, most int, shape [2]uint64, have, final Mask) (added int) {
	// The records it may add lie inside words: they end by word lim.
	lim := o + min(most, (len(words)-o)/k)*k
	base := unsafe.Pointer(unsafe.SliceData(words))
	// The last record's first word: its header and its target's world, which is w's (it is
	// live).
	hw := *(*uint64)(unsafe.Add(base, uintptr(o-k)*8))
	gens := w.liveGen
	masks := w.masks[:len(gens)] // one length: a slot below it indexes both
	at := o
	for ; at < lim; at += k {
		p := unsafe.Add(base, uintptr(at)*8)
		if *(*uint64)(p) != hw || *(*[2]uint64)(unsafe.Add(p, 16)) != shape {
			break
		}
		s := *(*uint32)(unsafe.Add(p, 8))
		if int(s) >= len(gens) || gens[s] != *(*uint32)(unsafe.Add(p, 12)) || masks[s] != have {
			break
		}
		masks[s] = final // a later record on this entity finds final, so it is not taken
	}
	added = (at - o) / k
	// Then the pending run's lists, grown once and filled in a loop of their own.
	a := w.arch
	n0 := len(a.pend)
	a.pend = slices.Grow(a.pend, added)[:n0+added]
	pend := a.pend[n0:]
	for i := range pend {
		pend[i] = *(*uint32)(unsafe.Add(base, uintptr(o+i*k)*8+8)) // the target's slot: bytes 8–11
	}
	if !a.joined {
		a.pendAt = slices.Grow(a.pendAt, added)[:n0+added]
		at := a.pendAt[n0:]
		for i := range at {
			at[i] = int32(o + i*k)
		}
	}
	return added
}

// putBundles writes the values of n bundle records of one shape, stride bytes apart, the first
// one's payload at b, into the columns cols at rows row, row+1, …, column after column
// (putStrided), as putBundle does record by record (a value of no size: nothing to copy).
func putBundles(cols *[MaxComponents]rawColumn, row uint32, b unsafe.Pointer, stride uintptr, n int) {
	cnt, usedBytes := int(*(*uint8)(b)), uintptr(*(*uint8)(unsafe.Add(b, 1)))
	for i := range cnt {
		off := uintptr(*(*uint8)(unsafe.Add(b, 2+MaxBundle+i))) * 8
		if off >= usedBytes {
			continue
		}
		putStrided(&cols[*(*ComponentID)(unsafe.Add(b, 2+i))], row, unsafe.Add(b, 16+off), stride, n)
	}
}

// putBundle writes the values of the bundle record payload at b (its first 16 bytes, then
// its values; a shape bundleShape accepted) into the columns cols at row.
func putBundle(cols *[MaxComponents]rawColumn, row uint32, b unsafe.Pointer) {
	cnt, usedBytes := uintptr(*(*uint8)(b)), uintptr(*(*uint8)(unsafe.Add(b, 1)))
	for i := range cnt {
		id := *(*ComponentID)(unsafe.Add(b, 2+i))
		src := b // a value of no size may sit at the end of the values: no address past them is formed
		if off := uintptr(*(*uint8)(unsafe.Add(b, 2+MaxBundle+i))) * 8; off < usedBytes {
			src = unsafe.Add(b, 16+off)
		}
		cols[id].put(row, src)
	}
}

// sameShape returns the length of the run of records at the start of words, each k words
// long (k ≥ 4), that have header h and bundle head h0, h1, at most most records: at least 1,
// the first record, which the caller checked. The records it reads lie inside words (most is
// cut to those), so the loop reads them without index checks.
func sameShape(words []uint64, most, k int, h uint32, h0, h1 uint64) int {
	if most > len(words)/k {
		most = len(words) / k // most records must lie inside words
	}
	p, stride := unsafe.Pointer(unsafe.SliceData(words)), uintptr(k)*8
	j := 1
	if j >= most {
		return j
	}
	// q is record j's address, formed only while j < most: a pointer past the array, even
	// unused, is invalid (checkptr, under -race, stops on it).
	for q := unsafe.Add(p, stride); ; q = unsafe.Add(q, stride) {
		if *(*uint32)(q) != h || *(*uint64)(unsafe.Add(q, 16)) != h0 || *(*uint64)(unsafe.Add(q, 24)) != h1 {
			break
		}
		if j++; j >= most {
			break
		}
	}
	return j
}
