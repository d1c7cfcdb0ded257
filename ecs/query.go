package ecs

import (
	"iter"
	"unsafe"
)

// Query1 iterates the live entities having component A (and every component of an extra
// mask), in World.Query's order (creation order on slot storage, table order on archetype
// storage), giving direct pointers into A's column: the typed, allocation-free
// counterpart of World.Query for hot loops. Make one with NewQuery1, then
//
//	for q.Next() {
//		p := q.Get() // *A, valid until the next structural change
//		...
//	}
//
// On slot storage the query walks the creation order in runs: a run is a stretch of
// consecutive slots that all match, found by one tight scan; on archetype storage a run is a
// matching table's rows. A visit inside a run is an increment and a compare (Next) and an
// index (Get), with no call. While the query iterates, structural calls
// on the World return ErrIterating, as during World.Query; the iteration ends when Next
// returns false, or when Close is called (call it when breaking out early, e.g. with defer). A
// Query1 is used from one goroutine; several queries may iterate at once as long as nothing
// mutates the World. The design follows the generic typed queries of Ark
// (github.com/mlange-42/ark).
type Query1[A any] struct {
	cursor
}

// Query2 is Query1 for two components, A and B; Get returns a pointer to each.
type Query2[A, B any] struct {
	cursor
}

// cursor is the untyped part of a typed query: the creation-order list, the masks and the
// position. The rest of the current run is the slots slot+1, …, end-1, all matching, at the
// entries of order before next; slot is the current entity's.
//
// On archetype storage a run is a whole matching table: slot is the current row, end the
// table's row count, next the index of the next table to try, and a and b are reloaded per
// table; a visit inside the table costs what it costs on slots.
type cursor struct {
	slot  uint32
	end   uint32
	next  int
	a, b  unsafe.Pointer // the queried components' values: by slot, or the table's by row
	w     *World
	order []uint32
	masks []Mask
	mask  Mask
	dense int // the world's dense prefix of order when the query started (World.dense)
	open  bool
	// Archetype storage: the world's tables, the current one, and the queried ids.
	tables   []*table
	tab      *table
	ida, idb ComponentID
}

// maxRun bounds one scan ahead, so that a query broken off early has not scanned far past
// where it stopped.
const maxRun = 256

// start freezes w and positions the cursor before the first entity.
func (c *cursor) start(w *World, m Mask, ida, idb ComponentID) {
	w.iters.Add(1)
	*c = cursor{w: w, order: w.order, masks: w.masks, mask: m, dense: w.dense, open: true, ida: ida, idb: idb}
	if w.arch != nil {
		c.tables = w.arch.tables
	}
}

// NewQuery1 starts a query over the entities having a and every component in extra.
func NewQuery1[A any](w *World, a Component[A], extra ...ComponentID) *Query1[A] {
	q := &Query1[A]{}
	q.start(w, MaskOf(extra...)|1<<a.id, a.id, a.id)
	if w.arch == nil {
		q.a = columnBase(w, a)
	}
	return q
}

// NewQuery2 starts a query over the entities having a, b and every component in extra.
func NewQuery2[A, B any](w *World, a Component[A], b Component[B], extra ...ComponentID) *Query2[A, B] {
	q := &Query2[A, B]{}
	q.start(w, MaskOf(extra...)|1<<a.id|1<<b.id, a.id, b.id)
	if w.arch == nil {
		q.a = columnBase(w, a)
		q.b = columnBase(w, b)
	}
	return q
}

// columnBase returns the address of c's values in w, nil when no entity of w ever had c
// (then no entity matches a query that needs it). Every slot the world issued indexes the
// array (its length is at least the number of slots), so Get indexes it without a check.
func columnBase[T any](w *World, c Component[T]) unsafe.Pointer {
	if col := w.cols[c.id]; col != nil {
		return unsafe.Pointer(unsafe.SliceData(col.(*typedColumn[T]).data))
	}
	return nil
}

// Next advances to the next matching entity and reports whether there is one. When it
// returns false the query is over and the World accepts structural calls again.
func (c *cursor) Next() bool {
	if c.slot+1 < c.end { // inside a run: the next slot matches
		c.slot++
		return true
	}
	return c.nextRun()
}

// nextRun finds the next matching entity after the current run and the run it starts.
func (c *cursor) nextRun() bool {
	if c.tables != nil {
		return c.nextTable()
	}
	order, masks, m := c.order, c.masks, c.mask
	i := c.next
	for ; i < len(order); i++ {
		// A tombstone is MaxUint32, never below len(masks): one compare skips it and
		// proves the index in range.
		s := order[i]
		if s >= uint32(len(masks)) || masks[s]&m != m {
			continue
		}
		// Extend the run while the next entries are the next slots and match: every
		// slot in order is below len(masks), so masks is indexed without a check. In the
		// dense prefix entry j is slot j, so only the mask is tested.
		base := unsafe.Pointer(unsafe.SliceData(masks))
		j, lim := i+1, min(len(order), i+maxRun)
		t := s + 1
		if dl := min(lim, c.dense); j < dl {
			for ; j < dl && *(*Mask)(unsafe.Add(base, uintptr(j)*8))&m == m; j++ {
			}
			t = uint32(j)
		}
		for ; j < lim && order[j] == t && *(*Mask)(unsafe.Add(base, uintptr(t)*8))&m == m; j++ {
			t++
		}
		c.next, c.slot, c.end = j, s, t
		return true
	}
	c.Close()
	return false
}

// Entity returns the current entity.
func (c *cursor) Entity() Entity {
	s := c.slot
	if c.tab != nil {
		s = c.tab.slots[s]
	}
	return Entity{world: c.w.id, slot: s, gen: c.w.gens[s]}
}

// Close ends the iteration early; the World accepts structural calls again once no other
// query iterates. Calling it again, or after Next returned false, does nothing.
func (c *cursor) Close() {
	if c.open {
		c.open = false
		c.next, c.slot, c.end = max(len(c.order), len(c.tables)), 0, 0
		c.w.iters.Add(-1)
	}
}

// Get returns a pointer to the current entity's A. Writing through it is allowed (it is not
// structural) and bypasses the validator.
func (q *Query1[A]) Get() *A {
	return (*A)(unsafe.Add(q.a, uintptr(q.slot)*unsafe.Sizeof(*new(A))))
}

// Get returns pointers to the current entity's A and B (see Query1.Get).
func (q *Query2[A, B]) Get() (*A, *B) {
	return (*A)(unsafe.Add(q.a, uintptr(q.slot)*unsafe.Sizeof(*new(A)))),
		(*B)(unsafe.Add(q.b, uintptr(q.slot)*unsafe.Sizeof(*new(B))))
}

// Query returns the live entities having every component in m: in creation order on slot
// storage, and on archetype storage for the empty mask (every entity); in table order (see the
// package documentation) on archetype storage for any other mask. While the
// sequence is being ranged over, structural calls on w return ErrIterating; breaking out of
// the loop (or a panic in its body) ends the iteration. Several queries may iterate at once,
// from several goroutines, as long as nothing mutates w.
func (w *World) Query(m Mask) iter.Seq[Entity] {
	return func(yield func(Entity) bool) {
		w.iters.Add(1)
		defer w.iters.Add(-1)
		if w.arch != nil && m != 0 {
			w.archQuery(m, yield)
			return
		}
		for _, slot := range w.order {
			if slot == tombstone || w.masks[slot]&m != m {
				continue
			}
			if !yield(Entity{world: w.id, slot: slot, gen: w.gens[slot]}) {
				return
			}
		}
	}
}

// Entities returns every live entity in creation order, on either storage (a Query with the
// empty mask).
func (w *World) Entities() iter.Seq[Entity] { return w.Query(0) }
