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
// 1–3 as they were), so every word is cleared first: for a value without padding the
// compiler drops the clearing stores, which the value's own stores overwrite. A value of no
// size writes nothing, and p+16 is not formed: it may be the end of the array.
func putRecord[T any](p unsafe.Pointer, h recordHead, v T) {
	*(*recordHead)(p) = h
	if unsafe.Sizeof(v) == 0 {
		return
	}
	q := unsafe.Add(p, 16)
	switch (unsafe.Sizeof(v) + 7) / 8 {
	case 1:
		*(*[1]uint64)(q) = [1]uint64{}
	case 2:
		*(*[2]uint64)(q) = [2]uint64{}
	case 3:
		*(*[3]uint64)(q) = [3]uint64{}
	case 4:
		*(*[4]uint64)(q) = [4]uint64{}
	default:
		*(*[5]uint64)(q) = [5]uint64{} // at most MaxInline (40) bytes: Set and Add test Inline first
	}
	*(*T)(q) = v
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
