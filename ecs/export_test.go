package ecs

import (
	"reflect"
	"unsafe"
)

// MaxGeneration exports maxGeneration to the tests.
const MaxGeneration = maxGeneration

// SetNextGeneration sets the generation that free slot's next entity will carry, so the
// tests can reach generation retirement without 2^31 create/destroy cycles. It panics when
// slot is alive.
func SetNextGeneration(w *World, slot, gen uint32) {
	if w.liveGen[slot] != 0 {
		panic("SetNextGeneration on a live slot")
	}
	w.gens[slot] = gen
}

// OrderLen returns the length of w's live order, tombstones included.
func OrderLen(w *World) int { return len(w.order) }

// AppendDestroyRecord appends DestroyRecords's record for target e to words.
func AppendDestroyRecord(words []uint64, e Entity) []uint64 {
	rec := [2]uint64{}
	p := unsafe.Pointer(&rec[0])
	*(*uint32)(p) = RecordDestroy
	*(*Entity)(unsafe.Add(p, 4)) = e
	return append(words, rec[:]...)
}

// BundleFields returns b's fields, so the tests can check the header Component.Value writes
// as one word against the fields the rest of the package reads one by one.
func BundleFields(b Bundle) (n, used uint8, ids [MaxBundle]ComponentID, offs [MaxBundle]uint8) {
	return b.n, b.used, b.ids, b.offs
}

// PaddingMask exports paddingMask to the tests.
func PaddingMask(t reflect.Type) []byte { return paddingMask(t) }

// FillPadding sets every padding byte of e's value of component id to b, as a copy of a value
// built where those bytes held something does, and reports whether the value has padding.
func FillPadding(w *World, e Entity, id ComponentID, b byte) bool {
	info := lookup(id)
	if info == nil || info.pad == nil || !w.Has(e, id) {
		return false
	}
	base := w.raw[id].base
	row := e.slot
	if w.arch != nil {
		l := w.arch.loc[e.slot]
		base, row = w.arch.tables[l.t].raw[id].base, l.row
	}
	v := unsafe.Slice((*byte)(unsafe.Add(base, uintptr(row)*info.size)), info.size)
	for i := range v {
		if info.pad[i] == 0 {
			v[i] = b
		}
	}
	return true
}
