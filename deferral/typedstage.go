package deferral

import (
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// Set stages overwriting e's value of component c with v: Recorder.Set(e, c.Value(v)),
// written into the recorder's stream as a record of the value's own size, with no Bundle
// built. It is a function, not a method, because Go methods take no type parameters. Per
// value shape it is one small function, called with v in registers: a room test, the
// record's stores and two counter updates; growth, a held stream and a component that is not
// inline go further out of line. It is not inlined: the room test, stores and counters alone
// exceed the compiler's inlining budget, before any call to the out-of-line path. It panics,
// as Component.Value does, when the component is not inline.
func Set[T any](r *Recorder, e ecs.Entity, c ecs.Component[T], v T) {
	s := r.st
	k := headWords + int((unsafe.Sizeof(v)+7)/8)
	if n := s.n; n+k <= s.lim && c.Inline() {
		s.n = n + k
		s.count++ // one read-modify-write
		p := unsafe.Add(s.base, uintptr(n)*8)
		putRecord(p, recordHead{uint32(VerbSet) | uint32(k-headWords)<<11 | uint32(c.ID())<<16, e}, v)
		return
	}
	stageSlowSet(r, e, c, v)
}

// Add stages adding component c with value v to e, overwriting a value e has:
// Recorder.Add(e, c.Value(v)) as Set is Recorder.Set.
func Add[T any](r *Recorder, e ecs.Entity, c ecs.Component[T], v T) {
	s := r.st
	k := headWords + int((unsafe.Sizeof(v)+7)/8)
	if n := s.n; n+k <= s.lim && c.Inline() {
		s.n = n + k
		s.count++ // one read-modify-write
		p := unsafe.Add(s.base, uintptr(n)*8)
		putRecord(p, recordHead{uint32(VerbAdd) | uint32(k-headWords)<<11 | uint32(c.ID())<<16, e}, v)
		return
	}
	stageSlowAdd(r, e, c, v)
}

// putRecord writes the record of head h and value v at p: h, then v zero-padded to whole
// words as Component.Value pads it. The words may still hold a dropped record's bytes, and a store of
// v writes its fields, not the padding between them (struct{ A uint8; B uint32 } leaves bytes
// 1–3 as they were), so every word is cleared first (clearWords): for a value without padding
// the compiler drops the clearing stores, which the value's own stores overwrite. (A value the
// compiler copies as a block of memory — a struct of more than four fields, an array of
// structs — brings its own padding bytes, as it does into a Bundle; World.Hash leaves padding
// out.) A value of no size writes nothing, and p+16 is not formed: it may be the end of the
// array.
func putRecord[T any](p unsafe.Pointer, h recordHead, v T) {
	*(*recordHead)(p) = h
	if unsafe.Sizeof(v) == 0 {
		return
	}
	q := unsafe.Add(p, 16)
	clearWords(q, (unsafe.Sizeof(v)+7)/8)
	*(*T)(q) = v
}

// putValue writes v at p+off as putRecord writes its value: zero-padded to whole words, and
// nothing (p+off not formed) for a value of no size.
func putValue[T any](p unsafe.Pointer, off uintptr, v T) {
	if unsafe.Sizeof(v) == 0 {
		return
	}
	q := unsafe.Add(p, off)
	clearWords(q, (unsafe.Sizeof(v)+7)/8)
	*(*T)(q) = v
}

// clearWords clears the n words at q, 1 ≤ n ≤ 5 (a value of at most MaxInline bytes: the
// callers test Inline first), as stores of a constant count once inlined.
func clearWords(q unsafe.Pointer, n uintptr) {
	switch n {
	case 1:
		*(*[1]uint64)(q) = [1]uint64{}
	case 2:
		*(*[2]uint64)(q) = [2]uint64{}
	case 3:
		*(*[3]uint64)(q) = [3]uint64{}
	case 4:
		*(*[4]uint64)(q) = [4]uint64{}
	default:
		*(*[5]uint64)(q) = [5]uint64{}
	}
}

// stageSlowSet is Set out of line: the stream is full or held, or c is not inline (Value
// panics).
//
//go:noinline
func stageSlowSet[T any](r *Recorder, e ecs.Entity, c ecs.Component[T], v T) {
	r.Set(e, c.Value(v))
}

// stageSlowAdd is Add out of line, as stageSlowSet.
//
//go:noinline
func stageSlowAdd[T any](r *Recorder, e ecs.Entity, c ecs.Component[T], v T) {
	r.Add(e, c.Value(v))
}

// Create2 stages the creation of an entity with components a and b, of values va and vb, and
// returns its placeholder: r.Create(a.Value(va).With(b.Value(vb))), the same record (word for
// word, but for padding inside a value that the compiler copies as a block: putRecord) and the
// same placeholder, written into the recorder's stream with no Bundle built (the deferred
// counterpart of ecs.Create2, as Ark's Map2.NewEntity is of its NewEntity). It is a function,
// not a method, because Go methods take no type parameters. It panics as Value and With do:
// for a component that is not inline, or values over ecs.MaxInline bytes together, each
// rounded up to whole 8-byte words (ecs.Bundle: two 20-byte values do not fit).
func Create2[A, B any](r *Recorder, a ecs.Component[A], va A, b ecs.Component[B], vb B) ecs.Entity {
	wa, wb := int((unsafe.Sizeof(va)+7)/8), int((unsafe.Sizeof(vb)+7)/8)
	k := 2 + wa + wb // the payload: the Bundle's 16-byte head and the values
	if s := r.st; s.n+headWords+k <= s.lim && a.Inline() && b.Inline() && (wa+wb)*8 <= ecs.MaxInline {
		n := s.n
		s.n = n + headWords + k
		s.count++
		q := unsafe.Add(s.base, uintptr(n)*8)
		// The Bundle's head, as With leaves it: b's value at word wa, or at 0 when a fills all
		// MaxInline bytes and b has no size. Then the values, and last the header and the
		// placeholder, minted after the stores so that the values need not outlive a call.
		offB := uint8(wa)
		if wa*8 >= ecs.MaxInline {
			offB = 0
		}
		h := (*[2]uint64)(unsafe.Add(q, headWords*8))
		h[0], h[1] = bundleHead2(uint8((wa+wb)*8), uint8(a.ID()), uint8(b.ID()), offB)
		putValue(q, (headWords+2)*8, va)
		putValue(q, uintptr(headWords+2+wa)*8, vb)
		p, ok := r.mintFast()
		if !ok {
			p = r.mintSlow()
		}
		*(*recordHead)(q) = recordHead{header(VerbCreate, 0, k, formBundle), p}
		return p
	}
	return createSlow2(r, a, va, b, vb)
}

// Add2 stages adding components a and b, of values va and vb, to e, overwriting values e has:
// r.Add(e, a.Value(va).With(b.Value(vb))), the same record (as Create2 is Create's), written
// with no Bundle built. It panics as Create2 does.
func Add2[A, B any](r *Recorder, e ecs.Entity, a ecs.Component[A], va A, b ecs.Component[B], vb B) {
	wa, wb := int((unsafe.Sizeof(va)+7)/8), int((unsafe.Sizeof(vb)+7)/8)
	k := 2 + wa + wb
	if s := r.st; s.n+headWords+k <= s.lim && a.Inline() && b.Inline() && (wa+wb)*8 <= ecs.MaxInline {
		n := s.n
		s.n = n + headWords + k
		s.count++
		q := unsafe.Add(s.base, uintptr(n)*8)
		*(*recordHead)(q) = recordHead{header(VerbAdd, 0, k, formBundle), e}
		h := (*[2]uint64)(unsafe.Add(q, headWords*8))
		h[0], h[1] = bundle2Head(wa, wb, a.ID(), b.ID())
		putValue(q, (headWords+2)*8, va)
		putValue(q, uintptr(headWords+2+wa)*8, vb)
		return
	}
	addSlow2(r, e, a, va, b, vb)
}

// bundle2Head returns the two words of the head of a Bundle of two values of wa and wb words,
// of components ida and idb, as With leaves it: b's value at word wa, or at 0 when a fills all
// MaxInline bytes and b has no size.
func bundle2Head(wa, wb int, ida, idb ecs.ComponentID) (uint64, uint64) {
	offB := uint8(wa)
	if wa*8 >= ecs.MaxInline {
		offB = 0
	}
	return bundleHead2(uint8((wa+wb)*8), uint8(ida), uint8(idb), offB)
}

// createSlow2 is Create2 out of line: the stream is full or held, a component is not inline
// (Value panics), or the values exceed MaxInline bytes (With panics).
//
//go:noinline
func createSlow2[A, B any](r *Recorder, a ecs.Component[A], va A, b ecs.Component[B], vb B) ecs.Entity {
	return r.Create(a.Value(va).With(b.Value(vb)))
}

// addSlow2 is Add2 out of line, as createSlow2 is Create2.
//
//go:noinline
func addSlow2[A, B any](r *Recorder, e ecs.Entity, a ecs.Component[A], va A, b ecs.Component[B], vb B) {
	r.Add(e, a.Value(va).With(b.Value(vb)))
}
