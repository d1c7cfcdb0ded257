package ecs

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ComponentID is a component type's process-wide id, 0…MaxComponents-1, in registration order.
type ComponentID uint8

// MaxComponents is the number of component types one process may register.
const MaxComponents = 64

// MaxInline is the largest inline component value, in bytes. Inline components are
// pointer-free types of at most this size; their values travel inside Value and Bundle. It is
// also what one Bundle holds, each value rounded up to whole 8-byte words (see Bundle).
const MaxInline = 40

// inlineWords is MaxInline in 8-byte words; the payload arrays are word arrays so that any
// inline component is suitably aligned inside them.
const inlineWords = MaxInline / 8

// componentInfo is what the registry knows about one component type.
type componentInfo struct {
	id     ComponentID
	name   string
	size   uintptr
	inline bool // pointer-free and at most MaxInline bytes
	noPtrs bool // pointer-free, any size
	// pad is, for a pointer-free type with padding, per byte of a value 0xff where a field
	// lies and 0 in padding (nil otherwise): Hash leaves the padding out, whose bytes a copy
	// of the whole value carries from wherever the value was built (paddingMask).
	pad       []byte
	newColumn func() column
	// invalid is the error Create returns for a value the validator rejects, made once so that
	// culling a create (the lenient commit's path) does not allocate.
	invalid error
}

var registry struct {
	mu    sync.Mutex
	infos atomic.Pointer[[]*componentInfo] // copy-on-write, indexed by ComponentID
}

func lookup(id ComponentID) *componentInfo {
	p := registry.infos.Load()
	if p == nil || int(id) >= len(*p) {
		return nil
	}
	return (*p)[id]
}

// Component is the typed handle of one registered component type T. It is a small value:
// copy it freely, usually keep it in a package-level variable.
type Component[T any] struct {
	id     ComponentID
	inline bool
}

// NewComponent registers component type T under name and returns its handle. valid, when not
// nil, is the component's validator: World.Create, Add and Set refuse a value it rejects with
// ErrInvalidValue, and deferred creates carrying such a value are culled (deferral's lenient
// rule). NewComponent panics when MaxComponents types are already registered; call it during
// package initialisation. It is safe for concurrent use.
func NewComponent[T any](name string, valid func(T) bool) Component[T] {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	var old []*componentInfo
	if p := registry.infos.Load(); p != nil {
		old = *p
	}
	if len(old) >= MaxComponents {
		panic(fmt.Sprintf("ecs: cannot register component %q: all %d component ids are used", name, MaxComponents))
	}
	id := ComponentID(len(old))
	typ := reflect.TypeFor[T]()
	info := &componentInfo{
		id:     id,
		name:   name,
		size:   typ.Size(),
		noPtrs: !hasPointers(typ),
	}
	info.inline = info.noPtrs && info.size <= MaxInline
	if info.noPtrs {
		info.pad = paddingMask(typ)
	}
	info.invalid = fmt.Errorf("create: %s: %w", name, ErrInvalidValue)
	info.newColumn = func() column { return &typedColumn[T]{info: info, valid: valid} }
	next := append(append([]*componentInfo(nil), old...), info)
	registry.infos.Store(&next)
	return Component[T]{id: id, inline: info.inline}
}

// hasPointers reports whether values of t hold any pointer the garbage collector must see.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	default:
		return true
	}
}

// paddingMask returns, for pointer-free type t, per byte of a value 0xff where a field lies
// and 0 in the padding between and after struct fields, or nil when t has no padding.
func paddingMask(t reflect.Type) []byte {
	mask := make([]byte, t.Size())
	if !markFields(t, mask) {
		return nil
	}
	return mask
}

// markFields sets to 0xff the bytes of mask (t.Size() long) where t's fields lie, and reports
// whether t has padding.
func markFields(t reflect.Type, mask []byte) (padded bool) {
	switch t.Kind() {
	case reflect.Array:
		n, es := t.Len(), t.Elem().Size()
		if n == 0 || es == 0 {
			return false
		}
		if !markFields(t.Elem(), mask[:es]) {
			for i := range mask {
				mask[i] = 0xff
			}
			return false
		}
		for i := 1; i < n; i++ {
			copy(mask[uintptr(i)*es:], mask[:es])
		}
		return true
	case reflect.Struct:
		end := uintptr(0)
		for i := range t.NumField() {
			f := t.Field(i)
			inner := markFields(f.Type, mask[f.Offset:f.Offset+f.Type.Size()])
			padded = padded || inner || f.Offset > end
			end = f.Offset + f.Type.Size()
		}
		return padded || end < t.Size()
	default:
		for i := range mask {
			mask[i] = 0xff
		}
		return false
	}
}

// ID returns the component's process-wide id.
func (c Component[T]) ID() ComponentID { return c.id }

// Name returns the name the component was registered under.
func (c Component[T]) Name() string { return lookup(c.id).name }

// Inline reports whether values of T can travel inside a Value (pointer-free, at most
// MaxInline bytes).
func (c Component[T]) Inline() bool { return c.inline }

// Value packs v into a one-value Bundle by copy. It panics when the component is not inline
// (T holds pointers or is larger than MaxInline bytes): stage such components through a
// strategy's closure tier instead. Value does not allocate, and it is small enough for the
// compiler to inline, so the Bundle is built in place where it is used.
func (c Component[T]) Value(v T) (b Bundle) {
	if !c.inline {
		// A conversion, not a call, keeps Value within the inlining budget; the panic
		// value's Error method formats the message.
		panic(notInlineError(c.id))
	}
	// The count, bytes used and id in one store (the other ids stay 0): they are the
	// Bundle's first 8 bytes, laid out as valueHead says. Addressed through the field b.n,
	// not &b, the store is one the compiler can forward: where the Bundle is passed on (to
	// an inlined Recorder.Set, say), it writes these few stores in place of a 56-byte copy.
	*(*uint64)(unsafe.Pointer(&b.n)) = valueHead(c.id, uint8((unsafe.Sizeof(v)+7)&^7))
	*(*T)(unsafe.Pointer(&b.data)) = v
	return b
}

// notInlineError is the panic value of Component.Value for a component that is not inline.
type notInlineError ComponentID

func (id notInlineError) Error() string {
	return fmt.Sprintf("ecs: component %q is not inline (holds pointers or exceeds MaxInline=%d bytes): use the closure tier", ComponentName(ComponentID(id)), MaxInline)
}

// Get returns e's value of the component. Errors: ErrMissingComponent, or the handle's error
// (ErrEmpty, ErrForeign, ErrDead, ErrStale, ErrPlaceholder).
func (c Component[T]) Get(w *World, e Entity) (T, error) {
	var zero T
	if err := w.Check(e); err != nil {
		return zero, fmt.Errorf("get %s of %v: %w", c.Name(), e, err)
	}
	if !w.masks[e.slot].Has(c.id) {
		return zero, fmt.Errorf("get %s of %v: %w", c.Name(), e, ErrMissingComponent)
	}
	if w.arch != nil {
		return *(*T)(w.arch.ptr(c.id, e.slot)), nil
	}
	return w.cols[c.id].(*typedColumn[T]).data[e.slot], nil
}

// Ptr returns a pointer to e's value of the component, or nil when e is not alive or lacks
// it. The pointer is valid until the next structural change of the World. Writing through it
// is allowed while a query iterates (it is not structural) and bypasses the validator, and
// World.Changes does not count it: a writer that keeps replicas in step calls
// World.MarkChanged after such writes.
func (c Component[T]) Ptr(w *World, e Entity) *T {
	if w.Check(e) != nil || !w.masks[e.slot].Has(c.id) {
		return nil
	}
	if w.arch != nil {
		return (*T)(w.arch.ptr(c.id, e.slot))
	}
	return &w.cols[c.id].(*typedColumn[T]).data[e.slot]
}

// Has reports whether e is alive and has the component.
func (c Component[T]) Has(w *World, e Entity) bool { return w.Has(e, c.id) }

// Add gives e the component with value v. Errors: ErrHasComponent, ErrInvalidValue,
// ErrIterating, or the handle's error. Unlike Value it accepts non-inline components.
func (c Component[T]) Add(w *World, e Entity, v T) error { return c.put(w, e, v, true, false) }

// Set overwrites e's value of the component. Errors: ErrMissingComponent, ErrInvalidValue, or
// the handle's error. Set is not structural and is allowed while a query iterates.
func (c Component[T]) Set(w *World, e Entity, v T) error { return c.put(w, e, v, false, true) }

func (c Component[T]) put(w *World, e Entity, v T, add, set bool) error {
	verb := "add"
	if !add {
		verb = "set"
	}
	if err := w.Check(e); err != nil {
		return fmt.Errorf("%s %s on %v: %w", verb, c.Name(), e, err)
	}
	col, err := w.column(c.id)
	if err != nil {
		return err
	}
	tc := col.(*typedColumn[T]) // typed: v passed through the column interface would escape
	has := w.masks[e.slot].Has(c.id)
	switch {
	case has && !set:
		err = ErrHasComponent
	case !has && !add:
		err = ErrMissingComponent
	case !has && w.Iterating():
		err = ErrIterating
	case tc.valid != nil && !w.trusted && !tc.valid(v):
		err = ErrInvalidValue
	}
	if err != nil {
		return fmt.Errorf("%s %s on %v: %w", verb, c.Name(), e, err)
	}
	if w.arch != nil {
		if !has {
			w.archAdd(e.slot, c.id)
		}
		*(*T)(w.arch.ptr(c.id, e.slot)) = v
		w.changes++
		return nil
	}
	tc.data[e.slot] = v
	w.masks[e.slot] |= 1 << c.id
	w.changes++
	return nil
}

// Remove takes the component from e. Errors: ErrMissingComponent, ErrIterating, or the
// handle's error.
func (c Component[T]) Remove(w *World, e Entity) error { return w.Remove(e, c.id) }

// Bundle is a set of inline component values, by copy: up to MaxBundle values packed into
// MaxInline bytes, 56 bytes in all, pointer-free, so it can be passed through interfaces and
// stored in command records without allocating. Each value takes whole 8-byte words: its size
// rounded up to a multiple of 8 (a 4-byte value takes 8 bytes, a 20-byte one 24, a tag of no
// size none). So a 20-byte and a 16-byte value fit (24 + 16 = 40), two 20-byte values do not
// (48), nor six 4-byte ones: MaxBundle values fit only with tags among them. Build one with Component.Value and With. The
// zero Bundle is the empty set. It is the initial component set of World.Create and the
// payload of Add, Set and Upsert (which may carry several components at once).
type Bundle struct {
	// n, used and ids are the first 8 bytes, which Component.Value writes as one word
	// (valueHead): keep them first, in this order.
	n    uint8
	used uint8 // bytes of data used, a multiple of 8
	ids  [MaxBundle]ComponentID
	offs [MaxBundle]uint8 // word offset of each value in data
	data [inlineWords]uint64
}

// MaxBundle is the most values one Bundle holds.
const MaxBundle = 6

// NewBundle merges parts into one Bundle (see With).
func NewBundle(parts ...Bundle) Bundle {
	var b Bundle
	for _, p := range parts {
		b = b.With(p)
	}
	return b
}

// With returns b plus the values of o. It panics when the result would exceed MaxBundle values
// or MaxInline bytes, each value counted in whole words as Bundle says (a programming error:
// the set is fixed where it is written). Duplicate
// components are reported by the World call that receives the bundle, as
// ErrDuplicateComponent.
func (b Bundle) With(o Bundle) Bundle {
	// An inlined call merging in place: the two bundles stay in the caller's frame instead
	// of being copied into and out of a call (Bundle is too large for registers).
	b.merge(&o)
	return b
}

// merge appends the values of o to b, as With says.
//
//go:noinline
func (b *Bundle) merge(o *Bundle) {
	if int(b.n)+int(o.n) > MaxBundle || int(b.used)+int(o.used) > MaxInline {
		panic(fmt.Sprintf("ecs: bundle overflow: %d values taking %d bytes (each value's size rounded up to 8 bytes); a Bundle holds at most %d values in %d bytes: stage the other components with a second Add",
			int(b.n)+int(o.n), int(b.used)+int(o.used), MaxBundle, MaxInline))
	}
	base := b.used / 8
	if bn := int(b.n); o.n == 1 && bn < MaxBundle {
		// The common With(c.Value(v)): one value, copied by whole-word stores when it is
		// 8, 16 or 24 bytes (word by word otherwise); the check above keeps the copy
		// inside data. bn < MaxBundle is that check too, restated for the compiler, which
		// then drops the index checks.
		d := unsafe.Pointer(&b.data)
		switch o.used {
		case 8:
			*(*uint64)(unsafe.Add(d, uintptr(base)*8)) = o.data[0]
		case 16:
			*(*[2]uint64)(unsafe.Add(d, uintptr(base)*8)) = *(*[2]uint64)(unsafe.Pointer(&o.data))
		case 24: // three stores: a [3]uint64 copy is a memmove call
			p := unsafe.Add(d, uintptr(base)*8)
			*(*[2]uint64)(p) = *(*[2]uint64)(unsafe.Pointer(&o.data))
			*(*uint64)(unsafe.Add(p, 16)) = o.data[2]
		default:
			for i := range int(o.used / 8) {
				b.data[int(base)+i] = o.data[i]
			}
		}
		off := o.offs[0] + base
		if off >= inlineWords {
			off = 0 // a value of no size after MaxInline bytes of values, as below
		}
		b.ids[bn], b.offs[bn] = o.ids[0], off
		b.n++
		b.used += o.used
		return
	}
	for i := range int(o.used / 8) { // at most 5 words: a loop, not a memmove call
		b.data[int(base)+i] = o.data[i]
	}
	for i := range int(o.n) {
		off := o.offs[i] + base
		if off >= inlineWords {
			// A value of no size after MaxInline bytes of values: it has no bytes, and an
			// offset past data would index out of it; any word inside serves.
			off = 0
		}
		b.ids[b.n] = o.ids[i]
		b.offs[b.n] = off
		b.n++
	}
	b.used += o.used
}

// Len returns the number of values in b.
func (b Bundle) Len() int { return int(b.n) }

// ID returns the component of the i-th value, 0 ≤ i < Len.
func (b Bundle) ID(i int) ComponentID { return b.ids[i] }

// Mask returns the set of components in b.
func (b Bundle) Mask() Mask {
	var m Mask
	for i := range int(b.n) {
		m |= 1 << b.ids[i]
	}
	return m
}

// maskDup returns the set of components in b, and whether one of them occurs twice.
func (b *Bundle) maskDup() (m Mask, dup bool) {
	if b.n == 1 { // the common single value, without the loop
		return 1 << b.ids[0], false
	}
	var twice Mask
	for i := range int(b.n) {
		bit := Mask(1) << b.ids[i]
		twice |= m & bit
		m |= bit
	}
	return m, twice != 0
}

// ValueOf returns the value of component c in b; ok is false when b does not hold c.
func ValueOf[T any](c Component[T], b Bundle) (T, bool) {
	for i := range int(b.n) {
		if b.ids[i] == c.id {
			return *(*T)(unsafe.Pointer(&b.data[b.offs[i]])), true
		}
	}
	var zero T
	return zero, false
}

// Mask is a set of component ids, one bit per id.
type Mask uint64

// MaskOf returns the set of the given ids.
func MaskOf(ids ...ComponentID) Mask {
	var m Mask
	for _, id := range ids {
		m |= 1 << id
	}
	return m
}

// Has reports whether id is in m.
func (m Mask) Has(id ComponentID) bool { return m&(1<<id) != 0 }

// ComponentName returns the registered name of id, or "component#<id>" when unknown.
func ComponentName(id ComponentID) string {
	if info := lookup(id); info != nil {
		return info.name
	}
	return fmt.Sprintf("component#%d", id)
}
