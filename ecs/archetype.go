package ecs

import "unsafe"

// This file holds the World calls' paths on archetype storage (World.arch != nil); each
// World call branches here once, at its start or after its checks.

// archCreate is Create on archetype storage: the entity's row goes straight into the table
// of its final component set.
func (w *World) archCreate(b *Bundle) (Entity, error) {
	mask, dup := b.maskDup()
	if dup || mask&^w.hasCol != 0 || mask&w.validated != 0 || w.iters.Load() > 0 {
		if err := w.createCheck(b); err != nil {
			return Entity{}, err
		}
	}
	slot, err := w.newSlot()
	if err != nil {
		return Entity{}, err
	}
	t, row := w.arch.place(w.arch.tableOf(mask), slot)
	for i := range int(b.n) {
		t.raw[b.ids[i]].put(row, unsafe.Pointer(&b.data[b.offs[i]]))
	}
	return w.created(slot, mask), nil
}

// archCreate2 is Create2 on archetype storage, for inline, distinct components with columns
// and no validator while no query iterates.
func archCreate2[A, B any](w *World, a Component[A], va A, b Component[B], vb B) (Entity, error) {
	slot, err := w.newSlot()
	if err != nil {
		return Entity{}, err
	}
	arch := w.arch
	t, row := arch.place(arch.tableOf(Mask(1)<<a.id|Mask(1)<<b.id), slot)
	*(*A)(t.raw[a.id].at(row)) = va
	*(*B)(t.raw[b.id].at(row)) = vb
	return w.created(slot, Mask(1)<<a.id|Mask(1)<<b.id), nil
}

// archPut is tryPut on archetype storage for a live e: a bundle that adds components moves
// e's row once, to the table of its whole new set, then every value is written there.
func (w *World) archPut(e Entity, b *Bundle, add, set bool) error {
	slot := e.slot
	have := w.masks[slot]
	mask, dup := b.maskDup()
	if dup || mask&^w.hasCol != 0 || mask&w.validated != 0 || (!set && mask&have != 0) ||
		(mask&^have != 0 && (!add || w.iters.Load() > 0)) {
		if err := w.putCheck(e, b, add, set); err != nil {
			return err
		}
	}
	a := w.arch
	if mask&^have != 0 {
		w.archChange(slot, have, have|mask) // one move; the memo serves entity after entity
	}
	l := a.loc[slot]
	t := a.tables[l.t]
	for i := range int(b.n) {
		t.raw[b.ids[i]].put(l.row, unsafe.Pointer(&b.data[b.offs[i]]))
	}
	w.masks[slot] = have | mask
	w.changes++
	return nil
}

// archAdd moves live slot, which lacks id, to the table with id; the caller writes the value.
func (w *World) archAdd(slot uint32, id ComponentID) {
	a := w.arch
	a.move(slot, a.withID(int32(a.loc[slot].t), id))
	w.masks[slot] |= 1 << id
}

// archRemove moves live slot, which has id, to the table without id.
func (w *World) archRemove(slot uint32, id ComponentID) {
	a := w.arch
	a.move(slot, a.withoutID(int32(a.loc[slot].t), id))
	w.masks[slot] &^= 1 << id
}

// archDestroy swap-removes live slot's row.
func (w *World) archDestroy(slot uint32) {
	l := w.arch.loc[slot]
	w.arch.drop(w.arch.tables[l.t], l.row)
}

// archQuery is Query's loop on archetype storage: the matching tables in the order they were
// made, each from its first row to its last.
func (w *World) archQuery(m Mask, yield func(Entity) bool) {
	for _, t := range w.arch.tables {
		if t.mask&m != m {
			continue
		}
		for _, slot := range t.slots {
			if !yield(Entity{world: w.id, slot: slot, gen: w.gens[slot]}) {
				return
			}
		}
	}
}

// nextTable is the typed queries' nextRun on archetype storage: the next matching table with
// rows becomes the run, its rows 0…n-1, with the queried columns' addresses loaded.
func (c *cursor) nextTable() bool {
	for c.next < len(c.tables) {
		t := c.tables[c.next]
		c.next++
		if t.mask&c.mask != c.mask || len(t.slots) == 0 {
			continue
		}
		c.tab = t
		c.a, c.b = t.raw[c.ida].base, t.raw[c.idb].base
		c.slot, c.end = 0, uint32(len(t.slots))
		return true
	}
	c.Close()
	return false
}

// archSet is a Writer's Set on archetype storage for live slot: done when the column needs
// no check (no validator, pointer-free) and slot has the component.
func (x *Writer) archSet(slot uint32, src unsafe.Pointer) (done bool) {
	w := x.w
	if !x.aput || w.masks[slot]&x.bit == 0 {
		return false
	}
	copyFlat(w.arch.ptr(x.id, slot), src, x.size)
	w.changes++
	return true
}

// archUpsert is a Writer's Upsert on archetype storage for live slot.
func (x *Writer) archUpsert(slot uint32, src unsafe.Pointer) (done bool) {
	w := x.w
	if !x.aput {
		return false
	}
	if w.masks[slot]&x.bit == 0 {
		if w.iters.Load() > 0 {
			return false
		}
		w.archAdd(slot, x.id)
	}
	copyFlat(w.arch.ptr(x.id, slot), src, x.size)
	w.changes++
	return true
}

// archRemove is a Writer's Remove on archetype storage for live slot, which has the
// component: done unless a query iterates or the component has no column.
func (x *Writer) archRemove(slot uint32) (done bool) {
	w := x.w
	if !x.acol || w.iters.Load() > 0 {
		return false
	}
	w.archRemove(slot, x.id)
	w.changes++
	return true
}

// archApplyValues is ApplyValues on archetype storage: the same records, rules and stops,
// batched per entity. A record whose successor names another entity is applied through its
// component's Writer; each run of adjacent records naming one live entity that would all
// succeed one by one (runOf) is applied as its net change: at most one row move, to the
// table of the set the run ends with (archChange), then the run's values (putRun). Records, Dead,
// NoopRemoves, the final state and Changes are those of applying the records one by one; only
// Moves differs, by the moves the run saves.
func (w *World) archApplyValues(words []uint64, n int) (r ValueRun) {
	// Entity after entity whose run changes its set the same way from one table waits in
	// w.arch.pend, and moves with the others before anything else touches the tables.
	// pfrom and pfinal are the pending entities' table and set, precs and pnoops the records
	// and no-op Removes of the last one's run, which takes pl words from word po, pvals
	// whether any of their runs writes a value. The runs' bounds wait in a.pendAt and
	// a.pendTo, for putRun, only while one does: runs before it have empty bounds.
	var pfrom int32
	var pfinal Mask
	var precs, pnoops, po, pl int
	var pvals bool
	o := 0
	for r.Records < n && o+2 <= len(words) {
		p := unsafe.Pointer(&words[o])
		h := *(*uint32)(p)
		e := (*Entity)(unsafe.Add(p, 4))
		k, ok := valueRecord(h, e)
		if !ok || o+k > len(words) {
			break
		}
		if !w.isLive(*e) {
			r.Dead++
			r.Records++
			o += k
			continue
		}
		s := e.slot
		if j := o + k; r.Records+1 >= n || j+2 > len(words) ||
			*(*uint64)(unsafe.Add(unsafe.Pointer(&words[j]), 4)) != *(*uint64)(unsafe.Pointer(e)) ||
			*(*uint32)(unsafe.Add(unsafe.Pointer(&words[j]), 12)) != e.gen {
			// A run of one record (the next names another entity): through its Writer,
			// after the pending run's moves.
			if len(w.arch.pend) > 0 {
				w.flushRuns(words, pfrom, pfinal, pvals)
			}
			x := &w.writers[h>>16&0x3f]
			switch {
			case h&0xff == RecordRemove && w.masks[s]&x.bit == 0:
				r.NoopRemoves++
			case h&0xff == RecordRemove:
				if !x.archRemove(s) {
					r.Words = o
					return r
				}
			case h&0xff00 != x.vlen: // an Add or Set whose value is not the component's size
				r.Words = o
				return r
			case h&0xff == RecordSet:
				if !x.archSet(s, valueAt(p, h)) {
					r.Words = o
					return r
				}
			default:
				if !x.archUpsert(s, valueAt(p, h)) {
					r.Words = o
					return r
				}
			}
			r.Records++
			o += k
			// Records with this header after it (Sets or Adds of one component on entity
			// after entity) go on in a typed loop while no row moves (archApplyRun).
			if h&0xff != RecordRemove && r.Records < n && o+2 <= len(words) && headAt(words, o) == h {
				var recs int
				o, recs = w.archApplyRun(words, o, n-r.Records, h, x)
				r.Records += recs
			}
			continue
		}
		have := w.masks[s]
		a := w.arch
		if len(a.pend) > 0 && have == a.tables[pfrom].mask {
			// Entities repeating, header for header, the records of the pending run's last
			// one from its table join the run without runOf (joinRuns). (A pending entity's
			// set is already pfinal, never its table's.)
			var k int
			if o, k = w.joinRuns(words, o, po, pl, precs, n-r.Records, have, pfinal, pvals); k > 0 {
				w.changes += uint64(k * (precs - pnoops))
				r.Records += k * precs
				r.NoopRemoves += k * pnoops
				continue
			}
		}
		end, recs, noops, final, vals := w.runOf(words, o, n-r.Records, *e, have, false)
		if recs == 0 {
			break
		}
		if final != have {
			// A move: it joins the pending run when it makes the run's change from the
			// run's table, else the run moves first and this one starts the next.
			ti := int32(a.loc[s].t)
			if len(a.pend) > 0 && (ti != pfrom || final != pfinal) {
				w.flushRuns(words, pfrom, pfinal, pvals)
				ti = int32(a.loc[s].t) // the entity may have been in the run
			}
			pvals = vals || pvals && len(a.pend) > 0
			pfrom, pfinal, precs, pnoops, po, pl = ti, final, recs, noops, o, end-o
			if pvals {
				for len(a.pendAt) < len(a.pend) {
					a.pendAt, a.pendTo = append(a.pendAt, 0), append(a.pendTo, 0) // no values
				}
				a.pendAt = append(a.pendAt, int32(o))
				a.pendTo = append(a.pendTo, int32(end))
			}
			a.pend = append(a.pend, s)
			w.masks[s] = final
		} else {
			if len(a.pend) > 0 {
				w.flushRuns(words, pfrom, pfinal, pvals)
			}
			l := a.loc[s]
			putRun(&a.tables[l.t].raw, l.row, words, o, end, final)
		}
		w.changes += uint64(recs - noops)
		r.Records += recs
		r.NoopRemoves += noops
		o = end
	}
	if len(w.arch.pend) > 0 {
		w.flushRuns(words, pfrom, pfinal, pvals)
	}
	r.Words = o
	return r
}

// flushRuns moves archApplyValues' pending run — entities of table from whose set becomes
// final, each through its run of records, in order — to final's table together (moveRows),
// then, when vals (some run has an Add or Set), writes each run's values into its entity's
// new row, as archChange and putRun do run by
// run (the entities are distinct: a later run on one of them starts from final, so it moves
// elsewhere or not at all, and flushes the pending run first).
//
//go:noinline
func (w *World) flushRuns(words []uint64, from int32, final Mask, vals bool) {
	a := w.arch
	to := a.hopOf(from, final)
	row := a.moveRows(from, to, a.pend)
	if vals {
		cols := &a.tables[to].raw
		for i, o := range a.pendAt {
			putRun(cols, row+uint32(i), words, int(o), int(a.pendTo[i]), final)
		}
	}
	a.pend, a.pendAt, a.pendTo = a.pend[:0], a.pendAt[:0], a.pendTo[:0]
}
