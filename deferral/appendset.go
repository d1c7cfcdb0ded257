package deferral

import (
	"errors"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// AppendSet appends to dst the record Set(r, e, c, v) writes into a recorder's stream — the
// same header and value bytes — and returns the extended slice: the floor a benchmark
// compares a strategy's typed staging with (a plain append of the same compact record to a
// preallocated slice). It panics, as Component.Value does, when c is not inline.
func AppendSet[T any](dst []uint64, e ecs.Entity, c ecs.Component[T], v T) []uint64 {
	if !c.Inline() {
		panic(errNotInline)
	}
	n, k := len(dst), headWords+int(unsafe.Sizeof(v)+7)/8
	if n+k > cap(dst) {
		dst = append(dst, make([]uint64, k)...)
	}
	dst = dst[:n+k]
	p := unsafe.Pointer(&dst[n])
	putRecord(p, recordHead{uint32(VerbSet) | uint32(k-headWords)<<11 | uint32(c.ID())<<16, e}, v)
	return dst
}

// PutValueHead writes at p the two words that open the one-value record of verb v (VerbSet,
// VerbAdd or VerbRemove) on e, for component id and a value of size bytes (0 for Remove): the
// header and the entity, as Set, Add and Recorder.Remove write them into a recorder's stream.
// The value's own bytes follow, zero-padded to whole words. With it a benchmark's floor writes
// a record of a concrete type by hand, inlined, where the generic AppendSet is a call.
func PutValueHead(p *[2]uint64, v Verb, e ecs.Entity, id ecs.ComponentID, size uintptr) {
	*(*recordHead)(unsafe.Pointer(p)) = recordHead{uint32(v) | uint32((size+7)/8)<<11 | uint32(id)<<16, e}
}

// recordHead is a record's first two words: the header and the entity.
type recordHead struct {
	h uint32
	e ecs.Entity
}

// errNotInline is the panic value of AppendSet for a component that is not inline.
var errNotInline = errors.New("deferral: AppendSet of a component that is not inline (holds pointers or exceeds ecs.MaxInline bytes): use the closure tier")
