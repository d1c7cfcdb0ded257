package deferral

import (
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

type layoutA struct{ X, Y float64 }
type layoutB struct{ V uint32 }
type layoutW4 struct{ A, B, C, D uint64 }

var (
	layoutAC  = ecs.NewComponent[layoutA]("deferral.layoutA", nil)
	layoutBC  = ecs.NewComponent[layoutB]("deferral.layoutB", nil)
	layoutW4C = ecs.NewComponent[layoutW4]("deferral.layoutW4", nil)
	layoutTag = ecs.NewComponent[struct{}]("deferral.layoutTag", nil)
)

// TestBundleLayout holds the stream's reads of an ecs.Bundle through a pointer to the
// Bundle's layout: the count in byte 0 (bundleLen), the bytes of values used in byte 1
// (bundleUsed), the first component in byte 2 (bundleFirst, and the header word ApplyRun
// reads: count | bytes used<<8 | first id<<16), and the values from byte 16 on.
func TestBundleLayout(t *testing.T) {
	cases := []struct {
		name  string
		b     ecs.Bundle
		used  int
		first uint64 // the first word of values
	}{
		{"empty", ecs.Bundle{}, 0, 0},
		{"one value of 16 bytes", layoutAC.Value(layoutA{X: 1.5}), 16, 0x3ff8000000000000},
		{"one value of 4 bytes", layoutBC.Value(layoutB{V: 7}), 8, 7},
		{"two values", layoutBC.Value(layoutB{V: 9}).With(layoutAC.Value(layoutA{Y: 2})), 24, 9},
		{"one value of 32 bytes", layoutW4C.Value(layoutW4{A: 3}), 32, 3},
		{"one tag", layoutTag.Value(struct{}{}), 0, 0},
		{"tag and 16 bytes", layoutTag.Value(struct{}{}).With(layoutAC.Value(layoutA{})), 16, 0},
	}
	for _, c := range cases {
		b := c.b
		if got := bundleLen(&b); got != b.Len() {
			t.Errorf("%s: bundleLen: got %d, want Len() %d", c.name, got, b.Len())
		}
		if got := bundleUsed(&b); got != c.used {
			t.Errorf("%s: bundleUsed: got %d, want %d", c.name, got, c.used)
		}
		// The values from byte 16 on, in memory order: a 4-byte value fills the word's first
		// 4 bytes and zeros the rest (the word reads c.first on a little-endian machine).
		var want [8]byte
		if c.used%16 == 0 { // the first value is 8 bytes or more (or there is none)
			*(*uint64)(unsafe.Pointer(&want)) = c.first
		} else {
			*(*uint32)(unsafe.Pointer(&want)) = uint32(c.first)
		}
		if got := *(*[8]byte)(unsafe.Add(unsafe.Pointer(&b), 16)); got != want {
			t.Errorf("%s: first word of values: got % x, want % x", c.name, got, want)
		}
		// The first word as stageValue tests it and writeValue turns it into a record header.
		w := *(*uint64)(unsafe.Pointer(&b))
		if got, want := w&oneValueMask == oneValue, b.Len() == 1 && c.used <= 24; got != want {
			t.Errorf("%s: one value of at most 24 bytes: got %v, want %v", c.name, got, want)
		}
		if b.Len() == 0 {
			continue
		}
		second := uint32(0)
		if b.Len() > 1 {
			second = uint32(b.ID(1))
		}
		if got, want := valueHeader(w), uint32(b.Len())|uint32(c.used)<<8|uint32(b.ID(0))<<16|second<<24; got != want {
			t.Errorf("%s: valueHeader: got %#x, want %#x", c.name, got, want)
		}
		if got := bundleFirst(&b); got != b.ID(0) {
			t.Errorf("%s: bundleFirst: got %d, want ID(0) %d", c.name, got, b.ID(0))
		}
		// Bytes 0, 1 and 2: count, bytes used, first id, in memory order on either byte order.
		if h, want := *(*[3]byte)(unsafe.Pointer(&b)), [3]byte{uint8(b.Len()), uint8(c.used), uint8(b.ID(0))}; h != want {
			t.Errorf("%s: header bytes: got % x, want % x", c.name, h, want)
		}
	}
}
