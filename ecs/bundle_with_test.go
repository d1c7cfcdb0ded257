package ecs_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// Values of every size a Bundle holds: 0, 8 (a 1-byte value padded), 16, 24, 32 and 40 bytes.
type (
	wsE  struct{}
	ws1  struct{ A uint8 }
	ws16 struct{ A, B uint64 }
	ws24 struct{ A, B, C uint64 }
	ws32 struct{ A, B, C, D uint64 }
	ws40 struct{ A, B, C, D, E uint64 }
)

var (
	wsCE  = ecs.NewComponent[wsE]("ws.E", nil)
	wsC1  = ecs.NewComponent[ws1]("ws.1", nil)
	wsC16 = ecs.NewComponent[ws16]("ws.16", nil)
	wsC24 = ecs.NewComponent[ws24]("ws.24", nil)
	wsC32 = ecs.NewComponent[ws32]("ws.32", nil)
	wsC40 = ecs.NewComponent[ws40]("ws.40", nil)
)

// TestBundleWithEverySize builds bundles by With, one value at a time, in every order of up
// to four of the six sizes that fits MaxInline bytes (also after a value of no size, which
// takes no word), creates an entity from each on both storages, and reads every value back:
// With copies each value whole, to its own words, whatever its size and position.
func TestBundleWithEverySize(t *testing.T) {
	sizes := []int{0, 8, 16, 24, 32, 40}
	value := func(k, seq int) ecs.Bundle {
		v := uint64(seq*100 + 1)
		switch k {
		case 0:
			return wsCE.Value(wsE{})
		case 1:
			return wsC1.Value(ws1{uint8(v)})
		case 2:
			return wsC16.Value(ws16{v, v + 1})
		case 3:
			return wsC24.Value(ws24{v, v + 1, v + 2})
		case 4:
			return wsC32.Value(ws32{v, v + 1, v + 2, v + 3})
		}
		return wsC40.Value(ws40{v, v + 1, v + 2, v + 3, v + 4})
	}
	check := func(w *ecs.World, e ecs.Entity, k, seq int) error {
		v := uint64(seq*100 + 1)
		var got, want any
		var err error
		switch k {
		case 0:
			if !w.Has(e, wsCE.ID()) {
				return fmt.Errorf("the value of no size is missing")
			}
			return nil
		case 1:
			got, err = wsC1.Get(w, e)
			want = ws1{uint8(v)}
		case 2:
			got, err = wsC16.Get(w, e)
			want = ws16{v, v + 1}
		case 3:
			got, err = wsC24.Get(w, e)
			want = ws24{v, v + 1, v + 2}
		case 4:
			got, err = wsC32.Get(w, e)
			want = ws32{v, v + 1, v + 2, v + 3}
		default:
			got, err = wsC40.Get(w, e)
			want = ws40{v, v + 1, v + 2, v + 3, v + 4}
		}
		if err != nil || got != want {
			return fmt.Errorf("%d-byte value: got %v (%v), want %v", sizes[k], got, err, want)
		}
		return nil
	}
	var walk func(order []int, used int)
	tried := 0
	walk = func(order []int, used int) {
		if len(order) > 0 {
			tried++
			for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
				var b ecs.Bundle
				for seq, k := range order {
					b = b.With(value(k, seq))
				}
				if b.Len() != len(order) {
					t.Fatalf("%v: Len %d, want %d", order, b.Len(), len(order))
				}
				w := ecs.NewWorld(ecs.WithStorage(st))
				e := mustCreate(t, w, b)
				for seq, k := range order {
					if err := check(w, e, k, seq); err != nil {
						t.Errorf("%s: bundle of sizes %v: value %d: %v", st, order, seq, err)
					}
				}
			}
		}
		if len(order) == 4 {
			return
		}
		for k, size := range sizes {
			if used+size > ecs.MaxInline || slices.Contains(order, k) {
				continue
			}
			walk(append(order[:len(order):len(order)], k), used+size)
		}
	}
	walk(nil, 0)
	if tried < 40 {
		t.Fatalf("only %d bundles built", tried)
	}
}
