package ecs

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// tombstone marks a destroyed entity's place in the live-order list.
const tombstone = math.MaxUint32

var worldIDs atomic.Uint32

// World holds entities and their components. Create one with NewWorld. See the package
// documentation for the storage layout and the concurrency rule (one mutating goroutine).
type World struct {
	id   uint32
	gens []uint32 // per slot: generation of the live entity, or of the next one when free
	// liveGen is per slot the generation of the live entity, 0 when the slot is free or
	// retired: liveness and generation in one load. No handle a world issues carries
	// generation 0 (a slot's first is 1), and no real generation has placeholderBit, so
	// liveGen[s] == e.gen holds exactly for a live real handle of slot s.
	liveGen []uint32
	masks   []Mask
	pos     []uint32 // per slot: index in order, tombstone when dead
	order   []uint32 // live slots in creation order, with tombstones
	holes   int      // tombstones in order
	dense   int      // order[i] == i for every i below dense: the prefix a query walks by mask alone
	free    []uint32 // free slots, reused last-in first-out
	// runSlots is CreateRecords' scratch on slots storage: a run's slots (takeSlots).
	runSlots []uint32
	live     int
	cols     [MaxComponents]column
	// raw is each column's untyped view, refreshed when its array moves; colLen is the
	// length of every column's array, at least len(gens), grown by doubling so that a new
	// slot does not touch every column.
	raw    [MaxComponents]rawColumn
	colLen int
	// hasCol is the set of components with a column here; validated the subset whose
	// component has a validator. Create, Add, Set and Upsert check a bundle against both with
	// two mask tests and take the per-value path only for a new column or a validator.
	hasCol, validated Mask
	// zeroable is the subset of hasCol whose values hold no pointers: ApplyValues removes
	// them by a store.
	zeroable Mask
	// writers is each component's Writer, kept current with raw (setWriter); noWriter is
	// the one of an id no component has.
	writers  [MaxComponents]Writer
	noWriter Writer
	iters    atomic.Int32 // queries iterating now
	// changes counts successful changing calls (Changes); replica.go reads and sets it.
	changes uint64
	// trusted: validators are off (TrustValues); setRaw leaves validated empty.
	trusted bool
	// arch is the archetype storage (archetype.go, table.go), nil on slot storage. On
	// archetype storage the per-slot arrays, the live order and the masks are kept as on
	// slots, and cols holds each component's column without values, for its validator.
	arch *archStore
}

// NewWorld returns an empty World with a process-unique id, on slot storage unless an
// option (WithStorage) chooses otherwise.
func NewWorld(opts ...Option) *World {
	var cfg worldConfig
	for _, o := range opts {
		o(&cfg)
	}
	id := worldIDs.Add(1)
	if id == 0 { // wrapped after 2^32 worlds; 0 is reserved for the empty handle
		id = worldIDs.Add(1)
	}
	w := &World{id: id}
	if cfg.storage == Archetypes {
		w.arch = newArchStore()
		w.colLen = math.MaxInt // the columns hold no values: newSlot never grows them
	}
	w.noWriter.w = w
	for i := range w.writers {
		w.setWriter(ComponentID(i))
	}
	return w
}

// ID returns the world's process-unique id, as carried by its handles.
func (w *World) ID() uint32 { return w.id }

// Len returns the number of live entities.
func (w *World) Len() int { return w.live }

// Slots returns the number of slots ever used (live, free or retired), a capacity measure.
func (w *World) Slots() int { return len(w.gens) }

// Check returns nil when e is a live entity of w, else the reason: ErrPlaceholder, ErrEmpty,
// ErrForeign, ErrDead or ErrStale.
func (w *World) Check(e Entity) error {
	switch {
	case e.IsPlaceholder():
		return ErrPlaceholder
	case e.IsZero():
		return ErrEmpty
	case e.world != w.id:
		return ErrForeign
	case int(e.slot) >= len(w.gens) || e.gen > w.gens[e.slot] || e.gen == 0:
		return ErrDead // never issued by this world: treat as never alive
	case w.liveGen[e.slot] == e.gen:
		return nil
	case w.liveGen[e.slot] != 0:
		return ErrStale // the slot holds a newer entity
	case e.gen+1 == w.gens[e.slot] || e.gen == w.gens[e.slot]: // free, or retired
		return ErrDead
	default:
		return ErrStale // a newer entity held the slot since
	}
}

// isLive is Check(e) == nil, small enough to inline: a real handle of this world (never the
// zero handle: world ids start at 1) whose slot is alive at its generation (liveGen). A
// placeholder fails the generation test (no slot's generation carries placeholderBit). The
// generation alone (gens) is not enough: a replica shares its world's id, and a handle from
// the world can carry the generation that a free slot of a replica which is behind will
// issue next; liveGen is 0 there.
func (w *World) isLive(e Entity) bool {
	s := int(e.slot)
	return e.world == w.id && s < len(w.liveGen) && e.gen == w.liveGen[s]
}

// Alive reports whether e is a live entity of w.
func (w *World) Alive(e Entity) bool { return w.isLive(e) }

// Has reports whether e is alive and has component id.
func (w *World) Has(e Entity, id ComponentID) bool {
	return w.isLive(e) && w.masks[e.slot].Has(id)
}

// MaskOf returns e's component set (0 when e is not alive).
func (w *World) MaskOf(e Entity) Mask {
	if w.Check(e) != nil {
		return 0
	}
	return w.masks[e.slot]
}

// Iterating reports whether a query is iterating now, i.e. whether structural calls are
// refused.
func (w *World) Iterating() bool { return w.iters.Load() > 0 }

func (w *World) column(id ComponentID) (column, error) {
	if c := w.cols[id]; c != nil {
		return c, nil
	}
	info := lookup(id)
	if info == nil {
		return nil, ErrUnknownComponent
	}
	c := info.newColumn()
	if w.arch == nil {
		c.grow(w.colLen)
	}
	w.cols[id] = c
	w.setRaw(id)
	return c, nil
}

// setRaw refreshes id's untyped view and its bits in hasCol and validated.
func (w *World) setRaw(id ComponentID) {
	bit := Mask(1) << id
	w.hasCol &^= bit
	w.validated &^= bit
	w.zeroable &^= bit
	w.raw[id] = rawColumn{}
	if c := w.cols[id]; c != nil {
		w.raw[id] = w.rawOf(c)
		w.hasCol |= bit
		if w.raw[id].validate {
			w.validated |= bit
		}
		if w.raw[id].noPtrs {
			w.zeroable |= bit
		}
	}
	w.setWriter(id)
}

// rawOf returns c's untyped view, whose validate is off in a world that trusts values
// (TrustValues).
func (w *World) rawOf(c column) rawColumn {
	r := c.raw()
	r.validate = r.validate && !w.trusted
	return r
}

// growColumns makes every column's array hold at least slots values, doubling.
func (w *World) growColumns(slots int) {
	w.colLen = max(slots, 2*w.colLen, 64)
	for id, c := range &w.cols {
		if c != nil {
			c.grow(w.colLen)
			w.raw[id] = w.rawOf(c)
			w.setWriter(ComponentID(id))
		}
	}
}

// refreshRaw recomputes colLen and the untyped views and writers of the components in ids, a
// superset of those whose columns were replaced, made or dropped (on a world's first refresh,
// of every component).
func (w *World) refreshRaw(ids Mask) {
	if w.noWriter.w != w {
		ids = ^Mask(0) // a world's first refresh (a new Replica) sets every writer
	}
	w.noWriter.w = w
	w.colLen = len(w.gens)
	if w.arch != nil {
		w.colLen = math.MaxInt
	}
	for m := ids; m != 0; m &= m - 1 {
		id := trailingZeros(m)
		c := w.cols[id]
		if c == nil && w.hasCol&(Mask(1)<<id) == 0 && w.writers[id].w == w {
			// No column before and none now: its view and writer are already those of a
			// component without one.
			continue
		}
		if c != nil && w.arch == nil {
			c.grow(w.colLen)
		}
		w.setRaw(id)
	}
}

// Create makes an entity with the components in b and returns its handle. Errors:
// ErrIterating, ErrUnknownComponent, ErrDuplicateComponent, ErrInvalidValue (a validator
// rejected a value), ErrWorldFull. On error nothing changed.
func (w *World) Create(b Bundle) (Entity, error) {
	if w.arch != nil {
		return w.archCreate(&b)
	}
	mask, dup := b.maskDup()
	if dup || mask&^w.hasCol != 0 || mask&w.validated != 0 || w.iters.Load() > 0 {
		if err := w.createCheck(&b); err != nil {
			return Entity{}, err
		}
	}
	slot, err := w.newSlot()
	if err != nil {
		return Entity{}, err
	}
	for i := range int(b.n) {
		w.raw[b.ids[i]].put(slot, unsafe.Pointer(&b.data[b.offs[i]]))
	}
	return w.created(slot, mask), nil
}

// Create2 is w.Create(NewBundle(a.Value(va), b.Value(vb))) for the common two-component
// entity, with the same results and errors (and the same panics: for a component that is not
// inline, and for two values that do not fit one Bundle, such as two of 20 bytes), written value by value into the columns without building a Bundle: Ark's
// Map2.NewEntity does the same. It is a function, not a method, because Go methods take no
// type parameters.
func Create2[A, B any](w *World, a Component[A], va A, b Component[B], vb B) (Entity, error) {
	mask := Mask(1)<<a.id | Mask(1)<<b.id
	// The sizes are constants of the instantiation: values that overflow a Bundle (in whole
	// words) take the path that builds one, and panic as it does, on every world alike.
	fit := (unsafe.Sizeof(va)+7)/8+(unsafe.Sizeof(vb)+7)/8 <= inlineWords
	if !fit || !a.inline || !b.inline || a.id == b.id || mask&^w.hasCol != 0 || mask&w.validated != 0 || w.iters.Load() > 0 {
		return w.Create(NewBundle(a.Value(va), b.Value(vb))) // checks, errors and panics as Create
	}
	if w.arch != nil {
		return archCreate2(w, a, va, b, vb)
	}
	slot, err := w.newSlot()
	if err != nil {
		return Entity{}, err
	}
	ra, rb := &w.raw[a.id], &w.raw[b.id]
	*(*A)(unsafe.Add(ra.base, uintptr(slot)*ra.size)) = va
	*(*B)(unsafe.Add(rb.base, uintptr(slot)*rb.size)) = vb
	return w.created(slot, mask), nil
}

// createCheck is Create's check of b value by value, for a bundle that needs more than the
// mask tests: a duplicate, a component without a column yet (created here), a validator, or
// a query iterating. It returns Create's error, or nil when b may be created.
func (w *World) createCheck(b *Bundle) error {
	if w.Iterating() {
		return fmt.Errorf("create: %w", ErrIterating)
	}
	var mask Mask
	for i := range int(b.n) {
		id := b.ids[i]
		if mask.Has(id) {
			return fmt.Errorf("create: %s: %w", ComponentName(id), ErrDuplicateComponent)
		}
		mask |= 1 << id
		c, err := w.column(id)
		if err != nil {
			return fmt.Errorf("create: component %d: %w", id, err)
		}
		if w.raw[id].validate && !c.validIn(*b, i) {
			return lookup(id).invalid
		}
	}
	return nil
}

func trailingZeros(m Mask) ComponentID { return ComponentID(bits.TrailingZeros64(uint64(m))) }

// Add gives e the components in b. Errors: ErrHasComponent, ErrDuplicateComponent,
// ErrInvalidValue, ErrIterating, ErrUnknownComponent, or the handle's error. On error nothing
// changed.
func (w *World) Add(e Entity, b Bundle) error { return w.put(e, &b, true, false) }

// Set overwrites e's values of the components in b. Set is not structural and is allowed
// while a query iterates. Errors: ErrMissingComponent, ErrDuplicateComponent,
// ErrInvalidValue, ErrUnknownComponent, or the handle's error. On error nothing changed.
func (w *World) Set(e Entity, b Bundle) error { return w.put(e, &b, false, true) }

// Upsert gives e the components in b, overwriting values it already has: the lenient Add that
// deferred commands use. Errors: as Add, without ErrHasComponent.
func (w *World) Upsert(e Entity, b Bundle) error { return w.put(e, &b, true, true) }

// TryUpsert is Upsert for a caller that expects e may be gone, as the target of a deferred
// command may be: when e is not a live entity of w it returns live == false and a nil error,
// changing nothing and allocating nothing; otherwise live == true and Upsert's error. b is
// read during the call, not kept.
func (w *World) TryUpsert(e Entity, b *Bundle) (live bool, err error) {
	return w.tryPut(e, b, true, true)
}

// TrySet is Set as TryUpsert is Upsert.
func (w *World) TrySet(e Entity, b *Bundle) (live bool, err error) {
	return w.tryPut(e, b, false, true)
}

// put is Add (add), Set (set) or Upsert (both) of the values in b.
func (w *World) put(e Entity, b *Bundle, add, set bool) error {
	live, err := w.tryPut(e, b, add, set)
	if !live {
		return w.putCheck(e, b, add, set)
	}
	return err
}

// tryPut is put, reporting a target that is not live as live == false with a nil error.
func (w *World) tryPut(e Entity, b *Bundle, add, set bool) (live bool, err error) {
	if !w.isLive(e) {
		return false, nil
	}
	if w.arch != nil {
		return true, w.archPut(e, b, add, set)
	}
	have := w.masks[e.slot]
	mask, dup := b.maskDup()
	if dup || mask&^w.hasCol != 0 || mask&w.validated != 0 || (!set && mask&have != 0) ||
		(mask&^have != 0 && (!add || w.iters.Load() > 0)) {
		// Out of line, so that the common path keeps its values in registers.
		return true, w.putChecked(e, b, add, set)
	}
	// A single one-word value (the common bundle) is stored without a loop or a call, so
	// that the values after it stay in registers; any other bundle goes out of line.
	if b.n != 1 || !w.raw[b.ids[0]].putWord(e.slot, unsafe.Pointer(&b.data[b.offs[0]])) {
		w.putValues(e.slot, b)
	}
	w.masks[e.slot] = have | mask
	w.changes++
	return true, nil
}

// putChecked is tryPut of a bundle that needs putCheck; e is live.
//
//go:noinline
func (w *World) putChecked(e Entity, b *Bundle, add, set bool) error {
	if err := w.putCheck(e, b, add, set); err != nil {
		return err
	}
	mask, _ := b.maskDup()
	w.putValues(e.slot, b)
	w.masks[e.slot] |= mask
	w.changes++
	return nil
}

// putValues stores b's values in slot's columns.
//
//go:noinline
func (w *World) putValues(slot uint32, b *Bundle) {
	for i := range int(b.n) {
		w.raw[b.ids[i]].put(slot, unsafe.Pointer(&b.data[b.offs[i]]))
	}
}

// putCheck is put's check value by value, for a call that needs more than the mask tests:
// a handle that is not live, a duplicate, a component without a column yet (created here),
// a validator, or a value that is refused. It returns put's error, or nil when b may be
// written.
func (w *World) putCheck(e Entity, b *Bundle, add, set bool) error {
	verb := "add"
	if !add {
		verb = "set"
	}
	if !w.isLive(e) {
		return fmt.Errorf("%s on %v: %w", verb, e, w.Check(e))
	}
	have := w.masks[e.slot]
	var seen Mask
	for i := range int(b.n) {
		id := b.ids[i]
		c, err := w.column(id)
		if err != nil {
			return fmt.Errorf("%s component %d on %v: %w", verb, id, e, err)
		}
		has := have.Has(id)
		switch {
		case seen.Has(id):
			err = ErrDuplicateComponent
		case has && !set:
			err = ErrHasComponent
		case !has && !add:
			err = ErrMissingComponent
		case !has && w.Iterating():
			err = ErrIterating
		case w.raw[id].validate && !c.validIn(*b, i):
			err = ErrInvalidValue
		}
		if err != nil {
			return fmt.Errorf("%s %s on %v: %w", verb, ComponentName(id), e, err)
		}
		seen |= 1 << id
	}
	return nil
}

// Remove takes component id from e. Errors: ErrMissingComponent, ErrIterating,
// ErrUnknownComponent, or the handle's error.
func (w *World) Remove(e Entity, id ComponentID) error {
	if !w.isLive(e) || !w.masks[e.slot].Has(id) || w.iters.Load() > 0 {
		return w.removeError(e, id)
	}
	if w.arch != nil {
		w.archRemove(e.slot, id)
		w.changes++
		return nil
	}
	// The removal itself is written out here and in TryRemove: a shared helper is above
	// the inlining budget, and its call cost either path about 5% of an add+remove.
	if r := &w.raw[id]; !r.noPtrs || !r.zeroWord(e.slot) {
		w.clearValue(id, e.slot)
	}
	w.masks[e.slot] &^= 1 << id
	w.changes++
	return nil
}

// TryRemove is Remove for a caller that expects e may be gone or may lack the component, as
// the target of a deferred command may: it returns live == false when e is not a live entity
// of w, had == false when e lacks id, in both cases with a nil error, changing nothing and
// allocating nothing; otherwise it removes id (had == true). Errors: ErrIterating.
func (w *World) TryRemove(e Entity, id ComponentID) (live, had bool, err error) {
	if !w.isLive(e) {
		return false, false, nil
	}
	if !w.masks[e.slot].Has(id) {
		return true, false, nil
	}
	if w.iters.Load() > 0 {
		return true, true, w.removeError(e, id)
	}
	if w.arch != nil {
		w.archRemove(e.slot, id)
		w.changes++
		return true, true, nil
	}
	if r := &w.raw[id]; !r.noPtrs || !r.zeroWord(e.slot) { // as in Remove
		w.clearValue(id, e.slot)
	}
	w.masks[e.slot] &^= 1 << id
	w.changes++
	return true, true, nil
}

// clearValue zeroes slot's value of component id: the removal's path for a value that is
// not one word (zeroWord) or holds pointers.
//
//go:noinline
func (w *World) clearValue(id ComponentID, slot uint32) {
	if r := &w.raw[id]; r.noPtrs {
		r.zero(slot)
	} else {
		w.cols[id].clear(slot)
	}
}

// removeError is Remove's error for a call it refuses.
func (w *World) removeError(e Entity, id ComponentID) error {
	if !w.isLive(e) {
		return fmt.Errorf("remove %s from %v: %w", ComponentName(id), e, w.Check(e))
	}
	if !w.masks[e.slot].Has(id) { // e has only registered components: no lookup when it has id
		if lookup(id) == nil {
			return fmt.Errorf("remove component %d from %v: %w", id, e, ErrUnknownComponent)
		}
		return fmt.Errorf("remove %s from %v: %w", ComponentName(id), e, ErrMissingComponent)
	}
	return fmt.Errorf("remove %s from %v: %w", ComponentName(id), e, ErrIterating)
}

// Freeze refuses structural calls (ErrIterating) until the returned thaw function is called,
// as if a query were iterating. A frame uses it to run decision callbacks against a world they
// can read but not reshape. Nested freezes and queries stack. Calling thaw twice panics.
func (w *World) Freeze() (thaw func()) {
	w.iters.Add(1)
	var done atomic.Bool
	return func() {
		if done.Swap(true) {
			panic("ecs: thaw called twice")
		}
		w.iters.Add(-1)
	}
}
