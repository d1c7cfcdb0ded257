package ecs

import (
	"slices"
	"unsafe"
)

// This file holds per-entity batching: a run of adjacent one-value records (Add, Set,
// Remove) naming one entity is folded into its net change — the component set it ends with
// and the last value written to each component — and applied with at most one row move on
// archetype storage (archApplyValues), or, after the create of a placeholder, with the row
// placed straight into the table of the final set (CreateValues).

// runOf folds the run of one-value records starting at word o of words that name target e,
// at most n of them, starting from component set have, and returns the word where the run
// ends, how many records it covers, how many of them are Removes of a component the entity
// lacks at that point (no-ops), the set the entity ends with, and whether any of them is an
// Add or Set (a value putRun writes). The run stops before the
// first record that is not a one-value Add, Set or Remove naming e, or that one-by-one
// application could not finish on its fast path: an unknown component, a component without
// a column (unless mkCols: then its first Add makes it, as it does one by one), a component
// with a validator (unless mkCols: then a value the validator accepts joins the run, and a
// rejected one ends it, to be refused by the checked path, which runs the validator on it
// again — validators are predicates), a value holding pointers, a Set of a component the entity lacks at that point, or a change
// of the set while a query iterates. Every record in the run would succeed, so applying the
// net change gives the state, receipts and Changes of applying them one by one.
func (w *World) runOf(words []uint64, o, n int, e Entity, have Mask, mkCols bool) (end, recs, noops int, final Mask, vals bool) {
	// The target as two loads: its first 8 bytes (world, slot) and its generation.
	ews, eg := *(*uint64)(unsafe.Pointer(&e)), e.gen
	iter := w.iters.Load() > 0
	plain := w.hasCol &^ w.validated // Add and Set need no check beyond the value's
	final = have
	for end = o; recs < n && end+2 <= len(words); recs++ {
		p := unsafe.Pointer(&words[end])
		if *(*uint64)(unsafe.Add(p, 4)) != ews || *(*uint32)(unsafe.Add(p, 12)) != eg {
			break
		}
		h := *(*uint32)(p)
		k := 2 + int(h>>11&0x1f)
		if h&0xffc0_0000 != 0 || h&0xff-RecordAdd > RecordSet-RecordAdd || end+k > len(words) {
			break
		}
		bit := Mask(1) << (h >> 16 & 0x3f)
		if h&0xff == RecordRemove {
			if final&bit == 0 {
				noops++
			} else if iter {
				break
			}
			final &^= bit
			end += k
			continue
		}
		if plain&bit == 0 {
			// A value of a component with a validator ends the run: one by one, the
			// validator runs once, accepting or not (calling it here too would call it twice
			// for a value it rejects).
			if w.validated&bit != 0 || !mkCols || !w.mkColumn(ComponentID(h>>16&0x3f)) {
				break
			}
			if plain = w.hasCol &^ w.validated; plain&bit == 0 {
				break // the column just made is of a component with a validator
			}
		}
		if rc := &w.raw[h>>16&0x3f]; !rc.noPtrs || h&0xff00 != rc.vlen || final&bit == 0 && (h&0xff == RecordSet || iter) {
			break
		}
		final |= bit
		vals = true
		end += k
	}
	return end, recs, noops, final, vals
}

// joinRuns adds to archApplyValues' pending run, entity after entity from word o of words,
// each entity whose records repeat, header for header, the run of the pending run's last
// entity (l words of recs records at word po, which runOf accepted), while at least recs
// records are left of the left the commit may still apply: a live entity whose set is have,
// that of the pending run's table, and, where runOf could read on (records are left after
// the repeat), whose next record names another entity. From the same set runOf would accept
// the same records and end with the same set, final, so each such entity joins the run
// without it. When vals (a run of the pending run writes values), each entity's bounds go to
// a.pendAt and a.pendTo too, for putRun. It returns the word after the last entity it added
// and how many it added.
func (w *World) joinRuns(words []uint64, o, po, l, recs, left int, have, final Mask, vals bool) (end, added int) {
	// At most left/recs entities, each l words, inside words: they end by word lim. The
	// records after an entity whose block ends before word more are ones the commit may
	// still apply: runOf would read on into them. (left may be any int: full, capped one
	// entity past words, keeps o+full*l from overflowing.)
	full := min(left/recs, (len(words)-o)/l+1)
	lim, more := o+min(full, (len(words)-o)/l)*l, o+full*l
	if left%recs != 0 {
		more++
	}
	more = min(more, len(words)-1) // the next record's two words lie inside words
	if lim <= o {
		return o, 0
	}
	base := unsafe.Pointer(unsafe.SliceData(words))
	// First the words alone, then the world: in two loops (one loop keeps more values than
	// there are registers), the first a call of its own so that the values after it are not
	// reloaded in it.
	scan := repeats(base, o, po, l, lim, more)
	end = w.takeLive(base, o, scan, l, have, final)
	added = (end - o) / l
	// Then the pending run's lists, grown once and filled in a loop of their own.
	a := w.arch
	n0 := len(a.pend)
	a.pend = slices.Grow(a.pend, added)[:n0+added]
	pend := a.pend[n0:]
	for i := range pend {
		pend[i] = *(*uint32)(unsafe.Add(base, uintptr(o+i*l)*8+8))
	}
	if vals {
		a.pendAt = slices.Grow(a.pendAt, added)[:n0+added]
		a.pendTo = slices.Grow(a.pendTo, added)[:n0+added]
		at, to := a.pendAt[n0:], a.pendTo[n0:]
		for i := range at {
			at[i], to[i] = int32(o+i*l), int32(o+i*l+l)
		}
	}
	return end, added
}

// repeats returns the word where the blocks of l words from word o of the words at base stop
// repeating the pattern block at word po, lim at most: the records of each, header for header
// and on one target, those of the pattern, each naming another entity than the block before
// it. A block naming the entity of the one before it is one runOf would read on into from
// that entity's run: that entity stays out (the read-on test of a block before lim is made by
// the block after it). The last block's test reads the record after it, where that record
// starts before word more (one the commit may still apply). The words up to lim and the
// record at more-1 lie inside the words.
//
//go:noinline
func repeats(base unsafe.Pointer, o, po, l, lim, more int) int {
	pat := unsafe.Add(base, uintptr(po)*8)
	// The pattern's first word: its first record's header and target's world, which is the
	// world's (the pending run's entity is live). A block's first record matches it and
	// names its target, so samePattern starts at the second record, j0.
	pw := *(*uint64)(pat)
	j0 := 2 + int(headerOf(pw)>>11&0x1f)
	wd := *(*uint32)(unsafe.Add(pat, 4))                  // the world's id
	prev := ^*(*uint64)(unsafe.Add(base, uintptr(o)*8+8)) // no block's slot and generation
	scan := o
	for ; scan < lim; scan += l {
		// Records lie inside the words from here on (scan+l ≤ lim, po+l ≤ scan).
		p := unsafe.Add(base, uintptr(scan)*8)
		sg := *(*uint64)(unsafe.Add(p, 8)) // the target's slot and generation
		if sg == prev && *(*uint32)(unsafe.Add(p, 4)) == wd {
			return scan - l
		}
		if *(*uint64)(p) != pw || !samePattern(p, pat, j0, l, sg) {
			return scan
		}
		prev = sg
	}
	if scan < more {
		if p := unsafe.Add(base, uintptr(scan)*8); *(*uint64)(unsafe.Add(p, 8)) == prev && *(*uint32)(unsafe.Add(p, 4)) == wd {
			return scan - l
		}
	}
	return scan
}

// takeLive takes into a run, block after block of l words from word o of the words at base
// up to word scan, the entity each block's first record names, while it is live and its set
// is have, which becomes final (a later run on it starts from final, so it is not taken). It
// returns the word where it stopped.
//
//go:noinline
func (w *World) takeLive(base unsafe.Pointer, o, scan, l int, have, final Mask) int {
	gens := w.liveGen
	masks := w.masks[:len(gens)] // one length: a slot below it indexes both
	end := o
	for ; end < scan; end += l {
		p := unsafe.Add(base, uintptr(end)*8)
		s := *(*uint32)(unsafe.Add(p, 8))
		if int(s) >= len(gens) || gens[s] != *(*uint32)(unsafe.Add(p, 12)) || masks[s] != have {
			break
		}
		masks[s] = final
	}
	return end
}

// mkColumn makes the column of id when it has none, as the first Add of id does one by one,
// and reports whether id now has a column.
//
//go:noinline
func (w *World) mkColumn(id ComponentID) bool {
	_, err := w.column(id)
	return err == nil
}

// putRun writes into the columns cols at row the values of the Add and Set records in
// words[o:end] (a run runOf accepted) whose component is in final, in order, so that the
// last one of each component wins.
func putRun(cols *[MaxComponents]rawColumn, row uint32, words []uint64, o, end int, final Mask) {
	for o < end {
		h := headAt(words, o)
		if id := ComponentID(h >> 16 & 0x3f); h&0xff != RecordRemove && final.Has(id) {
			cols[id].put(row, valueAt(unsafe.Pointer(&words[o]), h))
		}
		o += 2 + int(h>>11&0x1f)
	}
}

// archChange moves live slot's row from the table of have to the table of final: one move,
// however many components differ. The destination is the last change's when it made the
// same change from the same table (the memo, for runs of entities making one change), else
// it is found along the cached edges.
func (w *World) archChange(slot uint32, have, final Mask) {
	a := w.arch
	ti := int32(a.loc[slot].t)
	to := a.hopTo
	if ti != a.hopFrom || final != a.hopMask {
		to = a.hop(ti, have, final)
	}
	a.move(slot, to)
	w.masks[slot] = final
}

// hop returns the table reached from table ti, of set have, by making its set final, along
// cached edges, and makes it the memo.
func (a *archStore) hop(ti int32, have, final Mask) int32 {
	a.hopFrom, a.hopMask = ti, final
	for m := final &^ have; m != 0; m &= m - 1 {
		ti = a.withID(ti, trailingZeros(m))
	}
	for m := have &^ final; m != 0; m &= m - 1 {
		ti = a.withoutID(ti, trailingZeros(m))
	}
	a.hopTo = ti
	return ti
}

// CreateValues is Create(*b) followed by the run of one-value records (Add, Set, Remove, in
// ApplyValues's format) at the start of words, at most n, that name ph — the placeholder a
// deferred create minted, which the commands after it name — applied as if each named the
// new entity, in one step: the entity gets the component set the create and the run end
// with. On archetype storage its row is placed straight into the table of that final set, no
// move (Moves does not change), where Create followed by the records one by one places the
// row and moves it once per record that changes the set.
//
// The run stops before the first record that is not a one-value record naming ph, or that
// one-by-one application could not finish without the checked path (as ApplyValues: an
// unknown component, a Set of a component the entity lacks at that point, a value of a
// component with a validator, a change while a query iterates; unlike ApplyValues, an Add of
// a component without a column yet makes the column, as Create's does); it may be empty.
// The entity, its values, the receipts (r: Records and Words of the run, NoopRemoves for
// Removes of a component it lacked at that point; Dead is 0) and Changes are those of
// Create(*b) followed by the run one by one.
//
// Errors: Create's, for the create (ErrIterating, ErrUnknownComponent,
// ErrDuplicateComponent, ErrInvalidValue, ErrWorldFull); b's validators run once, as
// Create runs them. On error nothing changed and no record was applied. b is read, not
// kept.
func (w *World) CreateValues(b *Bundle, ph Entity, words []uint64, n int) (e Entity, r ValueRun, err error) {
	mask, dup := b.maskDup()
	if dup || mask&^w.hasCol != 0 || mask&w.validated != 0 || w.iters.Load() > 0 {
		if err := w.createCheck(b); err != nil {
			return e, r, err
		}
	}
	slot, err := w.newSlot()
	if err != nil {
		return e, r, err
	}
	used, recs, noops, final, _ := w.runOf(words, 0, n, ph, mask, true)
	cols, row := &w.raw, slot
	if w.arch != nil {
		t, trow := w.arch.place(w.arch.tableOf(final), slot)
		cols, row = &t.raw, trow
	}
	for i := range int(b.n) {
		if id := b.ids[i]; final.Has(id) {
			cols[id].put(row, unsafe.Pointer(&b.data[b.offs[i]]))
		}
	}
	putRun(cols, row, words, 0, used, final)
	e = w.created(slot, final)
	w.changes += uint64(recs - noops)
	return e, ValueRun{Records: recs, Words: used, NoopRemoves: noops}, nil
}

// samePattern reports whether the records of the l words at p from word j0 on (a record's
// start) have, record after record, the first word (header and the target's world) of the
// records at pat, and sg as their second word (the target's slot and generation).
func samePattern(p, pat unsafe.Pointer, j0, l int, sg uint64) bool {
	for j := j0; j < l; {
		ph := *(*uint64)(unsafe.Add(pat, uintptr(j)*8))
		if *(*uint64)(unsafe.Add(p, uintptr(j)*8)) != ph || *(*uint64)(unsafe.Add(p, uintptr(j)*8+8)) != sg {
			return false
		}
		j += 2 + int(headerOf(ph)>>11&0x1f)
	}
	return true
}
