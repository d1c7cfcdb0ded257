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
	n, k := len(dst), (unsafe.Sizeof(v)+7)/8
	dst = append(dst, make([]uint64, headWords+k)...)
	*(*recordHead)(unsafe.Pointer(&dst[n])) = recordHead{uint32(VerbSet) | uint32(k)<<11 | uint32(c.ID())<<16, e}
	if k > 0 { // a value of no size has no word of its own: &dst[n+2] is past the end
		*(*T)(unsafe.Pointer(&dst[n+2])) = v
	}
	return dst
}

// recordHead is a record's first two words: the header and the entity.
type recordHead struct {
	h uint32
	e ecs.Entity
}

// errNotInline is the panic value of AppendSet for a component that is not inline.
var errNotInline = errors.New("deferral: AppendSet of a component that is not inline (holds pointers or exceeds ecs.MaxInline bytes): use the closure tier")
