package ecs_test

import (
	"fmt"
	"slices"
	"strings"
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

type words20 [5]int32 // 20 bytes: 24 in a Bundle
type words16 [2]int64 // 16 bytes
type small4 int32     // 4 bytes: 8 in a Bundle
type tag0 struct{}    // no size

var (
	w20a, w20b = ecs.NewComponent[words20]("w20a", nil), ecs.NewComponent[words20]("w20b", nil)
	w16        = ecs.NewComponent[words16]("w16", nil)
	small4s    = [5]ecs.Component[small4]{
		ecs.NewComponent[small4]("small0", nil), ecs.NewComponent[small4]("small1", nil),
		ecs.NewComponent[small4]("small2", nil), ecs.NewComponent[small4]("small3", nil),
		ecs.NewComponent[small4]("small4", nil),
	}
	tagged = ecs.NewComponent[tag0]("tag0", nil)
)

// TestBundleCountsWholeWords: a Bundle holds MaxInline bytes with each value rounded up to
// whole words, as its doc says. 20 + 16 bytes (24 + 16) fits, 20 + 20 (48) panics naming the
// bytes taken, on With and on ecs.Create2 alike, whether or not the world has the columns
// yet (Create2's direct path took two 20-byte values once the columns existed and panicked
// on a fresh world); five 4-byte values and a tag (MaxBundle values, 40 bytes) fit.
func TestBundleCountsWholeWords(t *testing.T) {
	panics := func(what string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if s, _ := r.(string); !strings.Contains(s, "2 values taking 48 bytes") {
				t.Errorf("%s: panic %v, want a bundle overflow naming 2 values taking 48 bytes", what, r)
			}
		}()
		f()
	}
	w := ecs.NewWorld()
	if _, err := ecs.Create2(w, w20a, words20{1}, w16, words16{2}); err != nil {
		t.Fatal(err)
	}
	panics("With of two 20-byte values", func() { _ = w20a.Value(words20{1}).With(w20b.Value(words20{2})) })
	panics("ecs.Create2 of two 20-byte values on a fresh world", func() { _, _ = ecs.Create2(ecs.NewWorld(), w20a, words20{1}, w20b, words20{2}) })
	full := ecs.NewWorld()
	if _, err := full.Create(w20a.Value(words20{1})); err != nil {
		t.Fatal(err)
	}
	if _, err := full.Create(w20b.Value(words20{1})); err != nil {
		t.Fatal(err)
	}
	panics("ecs.Create2 of two 20-byte values once both columns exist", func() { _, _ = ecs.Create2(full, w20a, words20{1}, w20b, words20{2}) })
	b := tagged.Value(tag0{})
	for i, c := range small4s {
		b = b.With(c.Value(small4(i)))
	}
	e, err := w.Create(b)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := small4s[4].Get(w, e); err != nil || v != 4 || !w.Has(e, tagged.ID()) {
		t.Errorf("six values (five of 4 bytes and a tag): small4 = %v, %v, tag %v", v, err, w.Has(e, tagged.ID()))
	}
}
