package ecs

// Query1 iterates the live entities having component A (and every component of an extra
// mask), in creation order, giving direct pointers into A's column: the typed, allocation-free
// counterpart of World.Query for hot loops. Make one with NewQuery1, then
//
//	for q.Next() {
//		p := q.Get() // *A, valid until the next structural change
//		...
//	}
//
// Next and Get are small enough for the compiler to inline, so the per-entity cost is a slot
// load, a mask test and an index, with no call. While the query iterates, structural calls on
// the World return ErrIterating, as during World.Query; the iteration ends when Next returns
// false, or when Close is called (call it when breaking out early, e.g. with defer). A Query1
// is used from one goroutine; several queries may iterate at once as long as nothing mutates
// the World. The design follows the generic typed queries of Ark (github.com/mlange-42/ark).
type Query1[A any] struct {
	cursor
	a []A
}

// Query2 is Query1 for two components, A and B; Get returns a pointer to each.
type Query2[A, B any] struct {
	cursor
	a []A
	b []B
}

// cursor is the untyped part of a typed query: the creation-order list, the masks and the
// position.
type cursor struct {
	w     *World
	order []uint32
	masks []Mask
	mask  Mask
	i     int
	slot  uint32
	open  bool
}

// start freezes w and positions the cursor before the first entity.
func (c *cursor) start(w *World, m Mask) {
	w.iters.Add(1)
	*c = cursor{w: w, order: w.order, masks: w.masks, mask: m, i: -1, open: true}
}

// NewQuery1 starts a query over the entities having a and every component in extra.
func NewQuery1[A any](w *World, a Component[A], extra ...ComponentID) *Query1[A] {
	q := &Query1[A]{}
	q.start(w, MaskOf(extra...)|1<<a.id)
	q.a = columnData(w, a)
	return q
}

// NewQuery2 starts a query over the entities having a, b and every component in extra.
func NewQuery2[A, B any](w *World, a Component[A], b Component[B], extra ...ComponentID) *Query2[A, B] {
	q := &Query2[A, B]{}
	q.start(w, MaskOf(extra...)|1<<a.id|1<<b.id)
	q.a = columnData(w, a)
	q.b = columnData(w, b)
	return q
}

// columnData returns c's column in w, nil when no entity of w ever had c (then no entity
// matches a query that needs it).
func columnData[T any](w *World, c Component[T]) []T {
	if col := w.cols[c.id]; col != nil {
		return col.(*typedColumn[T]).data
	}
	return nil
}

// Next advances to the next matching entity and reports whether there is one. When it
// returns false the query is over and the World accepts structural calls again.
func (c *cursor) Next() bool {
	for c.i++; c.i < len(c.order); c.i++ {
		// A tombstone is MaxUint32, never below len(masks): one compare skips it and
		// proves the index in range.
		if s := c.order[c.i]; s < uint32(len(c.masks)) && c.masks[s]&c.mask == c.mask {
			c.slot = s
			return true
		}
	}
	c.Close()
	return false
}

// Entity returns the current entity.
func (c *cursor) Entity() Entity {
	return Entity{world: c.w.id, slot: c.slot, gen: c.w.gens[c.slot]}
}

// Close ends the iteration early; the World accepts structural calls again once no other
// query iterates. Calling it again, or after Next returned false, does nothing.
func (c *cursor) Close() {
	if c.open {
		c.open = false
		c.i = len(c.order)
		c.w.iters.Add(-1)
	}
}

// Get returns a pointer to the current entity's A. Writing through it is allowed (it is not
// structural) and bypasses the validator.
func (q *Query1[A]) Get() *A { return &q.a[q.slot] }

// Get returns pointers to the current entity's A and B (see Query1.Get).
func (q *Query2[A, B]) Get() (*A, *B) { return &q.a[q.slot], &q.b[q.slot] }
