package ecs_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// padded6 has padding after A, C and E, and no pointer; with six fields the compiler copies
// it as a block of memory, padding and all.
type padded6 struct {
	A uint8
	B uint64
	C uint16
	D uint64
	E uint8
	F uint32
}

type padPair struct {
	A uint8
	B uint16
}

var padded6C = ecs.NewComponent[padded6]("hashpad.padded6", nil)

// TestPaddingMask: the mask marks the bytes of fields and leaves padding out — between
// fields, after the last, after a final field of no size, inside array elements — and is nil
// for a type with no padding.
func TestPaddingMask(t *testing.T) {
	ff := byte(0xff)
	trailing := reflect.TypeFor[struct {
		A uint64
		B struct{}
	}]()
	cases := []struct {
		name string
		t    reflect.Type
		want []byte
	}{
		{"uint64", reflect.TypeFor[uint64](), nil},
		{"[3]float32", reflect.TypeFor[[3]float32](), nil},
		{"struct{X, Y float64}", reflect.TypeFor[struct{ X, Y float64 }](), nil},
		{"struct{}", reflect.TypeFor[struct{}](), nil},
		{"struct{A uint8; B uint32}", reflect.TypeFor[struct {
			A uint8
			B uint32
		}](), []byte{ff, 0, 0, 0, ff, ff, ff, ff}},
		{"struct{A uint32; B uint8}", reflect.TypeFor[struct {
			A uint32
			B uint8
		}](), []byte{ff, ff, ff, ff, ff, 0, 0, 0}},
		{"[2]padPair", reflect.TypeFor[[2]padPair](), []byte{ff, 0, ff, ff, ff, 0, ff, ff}},
		// Padding after a final field of no size: 8 bytes on 64-bit machines, 4 on 32-bit
		// ones, where a uint64 is aligned to 4.
		{"struct{A uint64; B struct{}}", trailing, append(bytes.Repeat([]byte{ff}, 8), make([]byte, trailing.Size()-8)...)},
		{"struct{P padPair; Q [2]uint8}", reflect.TypeFor[struct {
			P padPair
			Q [2]uint8
		}](), []byte{ff, 0, ff, ff, ff, ff}},
	}
	for _, c := range cases {
		if got := ecs.PaddingMask(c.t); !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%s (%d bytes): mask %x, want %x", c.name, c.t.Size(), got, c.want)
		}
	}
}

// TestHashLeavesPaddingOut: two worlds with the same values, one whose values' padding holds
// other bytes (as a copy of a value built in registers and spilled to a stack slot that held
// something carries them), hash alike on both storages; a field's byte still counts.
func TestHashLeavesPaddingOut(t *testing.T) {
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		mk := func(fill byte) (*ecs.World, []ecs.Entity) {
			w := ecs.NewWorld(ecs.WithStorage(st))
			var es []ecs.Entity
			for i := range 5 {
				e, err := w.Create(padded6C.Value(padded6{A: uint8(i), B: 2, C: 3, D: 4, E: 5, F: uint32(i)}))
				if err != nil {
					t.Fatal(err)
				}
				if !ecs.FillPadding(w, e, padded6C.ID(), fill) {
					t.Fatalf("%v: FillPadding found no padding", st)
				}
				es = append(es, e)
			}
			return w, es
		}
		clean, _ := mk(0)
		dirty, es := mk(0xab)
		if clean.Hash() != dirty.Hash() {
			t.Errorf("%v: padding bytes change Hash", st)
		}
		if err := padded6C.Set(dirty, es[2], padded6{A: 2, B: 2, C: 3, D: 4, E: 5, F: 3}); err != nil {
			t.Fatal(err)
		}
		if clean.Hash() == dirty.Hash() {
			t.Errorf("%v: a field's change leaves Hash as it was", st)
		}
	}
}
