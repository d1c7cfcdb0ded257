package deferral

import (
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

type layoutA struct{ X, Y float64 }
type layoutB struct{ V uint32 }

var (
	layoutAC = ecs.NewComponent[layoutA]("deferral.layoutA", nil)
	layoutBC = ecs.NewComponent[layoutB]("deferral.layoutB", nil)
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
	}
	for _, c := range cases {
		b := c.b
		if got := bundleLen(&b); got != b.Len() {
			t.Errorf("%s: bundleLen: got %d, want Len() %d", c.name, got, b.Len())
		}
		if got := bundleUsed(&b); got != c.used {
			t.Errorf("%s: bundleUsed: got %d, want %d", c.name, got, c.used)
		}
		if got := *(*uint64)(unsafe.Add(unsafe.Pointer(&b), 16)); got != c.first {
			t.Errorf("%s: first word of values: got %#x, want %#x", c.name, got, c.first)
		}
		if b.Len() == 0 {
			continue
		}
		if got := bundleFirst(&b); got != b.ID(0) {
			t.Errorf("%s: bundleFirst: got %d, want ID(0) %d", c.name, got, b.ID(0))
		}
		h := *(*uint32)(unsafe.Pointer(&b))
		if want := uint32(b.Len()) | uint32(c.used)<<8 | uint32(b.ID(0))<<16; h&0xffffff != want {
			t.Errorf("%s: header word: got %#x, want %#x", c.name, h&0xffffff, want)
		}
	}
}
