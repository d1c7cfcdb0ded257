package ecs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

func TestComponentRegistry(t *testing.T) {
	if Pos.ID() == Vel.ID() || Pos.Name() != "ecs_test.Pos" || ecs.ComponentName(Vel.ID()) != "ecs_test.Vel" {
		t.Errorf("ids %d %d names %q %q", Pos.ID(), Vel.ID(), Pos.Name(), ecs.ComponentName(Vel.ID()))
	}
	if got := ecs.ComponentName(unknownID); got != "component#63" {
		t.Errorf("ComponentName(unknown) = %q", got)
	}
	for _, c := range []struct {
		name   string
		inline bool
		want   bool
	}{{"Pos", Pos.Inline(), true}, {"Small", Small.Inline(), true}, {"Label", Label.Inline(), false}, {"Huge", Huge.Inline(), false}} {
		if c.inline != c.want {
			t.Errorf("%s.Inline() = %v, want %v", c.name, c.inline, c.want)
		}
	}
}

func TestValueNotInlinePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Label": func() { Label.Value(label{"x"}) },
		"Huge":  func() { Huge.Value(huge{}) },
	} {
		func() {
			defer func() {
				v := recover()
				err, ok := v.(error)
				if !ok || !strings.Contains(err.Error(), "not inline") || !strings.Contains(err.Error(), "closure tier") {
					t.Errorf("%s.Value panicked with %v, want an error saying it is not inline and to use the closure tier", name, v)
				}
			}()
			f()
		}()
	}
}

func TestBundlePacking(t *testing.T) {
	b := ecs.NewBundle(Small.Value(small{7}), Pos.Value(vec{1.5, -2}), HP.Value(hp{42}))
	if b.Len() != 3 || b.ID(0) != Small.ID() || b.ID(1) != Pos.ID() || b.ID(2) != HP.ID() {
		t.Fatalf("bundle ids/len wrong: len %d", b.Len())
	}
	if b.Mask() != ecs.MaskOf(Small.ID(), Pos.ID(), HP.ID()) {
		t.Errorf("Mask = %b", b.Mask())
	}
	if v, ok := ecs.ValueOf(Small, b); !ok || v != (small{7}) {
		t.Errorf("ValueOf(Small) = %v, %v", v, ok)
	}
	if v, ok := ecs.ValueOf(Pos, b); !ok || v != (vec{1.5, -2}) {
		t.Errorf("ValueOf(Pos) = %v, %v", v, ok)
	}
	if v, ok := ecs.ValueOf(HP, b); !ok || v != (hp{42}) {
		t.Errorf("ValueOf(HP) = %v, %v", v, ok)
	}
	if _, ok := ecs.ValueOf(Vel, b); ok {
		t.Error("ValueOf(Vel) found a value not in the bundle")
	}
	// With and NewBundle agree, and a bundle survives a World round trip.
	w := Small.Value(small{7}).With(Pos.Value(vec{1.5, -2}).With(HP.Value(hp{42})))
	if w != b {
		t.Error("With and NewBundle pack differently")
	}
	world := ecs.NewWorld()
	e := mustCreate(t, world, b)
	if p, _ := Pos.Get(world, e); p != (vec{1.5, -2}) {
		t.Errorf("created Pos = %v", p)
	}
	if s, _ := Small.Get(world, e); s != (small{7}) {
		t.Errorf("created Small = %v", s)
	}
	var empty ecs.Bundle
	if empty.Len() != 0 || empty.Mask() != 0 || ecs.NewBundle() != empty {
		t.Error("zero Bundle is not empty")
	}
}

func TestBundleOverflowPanics(t *testing.T) {
	words := ecs.MaxInline / 8
	cases := map[string]func() ecs.Bundle{
		"values": func() ecs.Bundle {
			var b ecs.Bundle
			for range ecs.MaxBundle + 1 {
				b = b.With(Small.Value(small{}))
			}
			return b
		},
		"bytes": func() ecs.Bundle {
			var b ecs.Bundle
			for range words/2 + 1 { // Pos is two words
				b = b.With(Pos.Value(vec{}))
			}
			return b
		},
	}
	if ecs.MaxBundle+1 > words {
		// The "values" case would overflow bytes first; keep the two cases distinct.
		delete(cases, "values")
	}
	for name, build := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s overflow did not panic", name)
				}
			}()
			build()
		}()
	}
	// Exactly full is fine.
	var full ecs.Bundle
	for range min(ecs.MaxBundle, words) {
		full = full.With(Small.Value(small{}))
	}
	if full.Len() != min(ecs.MaxBundle, words) {
		t.Errorf("full bundle Len = %d", full.Len())
	}
	// A bundle naming one component twice packs, and the World refuses it.
	dup := Small.Value(small{1}).With(Small.Value(small{2}))
	if _, err := ecs.NewWorld().Create(dup); !errors.Is(err, ecs.ErrDuplicateComponent) {
		t.Errorf("Create(duplicate) = %v", err)
	}
}

func TestMask(t *testing.T) {
	m := ecs.MaskOf(1, 5, 63)
	for id := range ecs.ComponentID(ecs.MaxComponents) {
		if m.Has(id) != (id == 1 || id == 5 || id == 63) {
			t.Errorf("MaskOf(1,5,63).Has(%d) = %v", id, m.Has(id))
		}
	}
}

// TestZeroAllocs: the typed hot paths do not allocate.
func TestZeroAllocs(t *testing.T) {
	w := ecs.NewWorld()
	e := mustCreate(t, w, Pos.Value(vec{1, 2}).With(HP.Value(hp{3})))
	var sink ecs.Bundle
	var sv vec
	cases := map[string]func(){
		"Value":     func() { sink = Pos.Value(vec{3, 4}) },
		"With":      func() { sink = Pos.Value(vec{3, 4}).With(HP.Value(hp{1})) },
		"ValueOf":   func() { sv, _ = ecs.ValueOf(Pos, sink) },
		"Get":       func() { sv, _ = Pos.Get(w, e) },
		"Ptr":       func() { Pos.Ptr(w, e).X++ },
		"Set":       func() { _ = Pos.Set(w, e, vec{5, 6}) },
		"World.Set": func() { _ = w.Set(e, HP.Value(hp{4})) },
		"Has":       func() { _ = Pos.Has(w, e) && w.Alive(e) },
		"Query": func() {
			for q := range w.Query(ecs.MaskOf(Pos.ID())) {
				sv = *Pos.Ptr(w, q)
			}
		},
		"Remove+Add": func() { _ = HP.Remove(w, e); _ = HP.Add(w, e, hp{1}) },
		"World.Remove+Upsert": func() {
			_ = w.Remove(e, Vel.ID())
			_ = w.Upsert(e, Vel.Value(vec{1, 1}).With(HP.Value(hp{2})))
		},
		"Create+Destroy": func() { // warm: the freed slot is reused
			x, _ := w.Create(Pos.Value(vec{}).With(HP.Value(hp{1})))
			_ = w.Destroy(x)
		},
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocs/op, want 0", name, n)
		}
	}
	_, _ = sink, sv
}

// TestBundleFullThenTag: a value of no size after MaxInline bytes of values (a tag added to
// a full bundle, before or after the values) is a bundle like any other: Create, Add, Set,
// Upsert and ValueOf take it on both storages. Its offset pointed one word past the values,
// and every call that reads a value by its offset panicked with an index out of range.
func TestBundleFullThenTag(t *testing.T) {
	full := ecs.NewComponent[[ecs.MaxInline / 8]uint64]("ecs_test.fullW5", nil)
	v := [ecs.MaxInline / 8]uint64{1, 2, 3, 4, 5}
	for _, b := range []ecs.Bundle{
		full.Value(v).With(avTag.Value(struct{}{})),
		avTag.Value(struct{}{}).With(full.Value(v)),
	} {
		if got, ok := ecs.ValueOf(avTag, b); !ok || got != (struct{}{}) {
			t.Errorf("ValueOf(tag) = %v, %v", got, ok)
		}
		if got, ok := ecs.ValueOf(full, b); !ok || got != v {
			t.Errorf("ValueOf(full) = %v, %v", got, ok)
		}
		for _, s := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
			w := ecs.NewWorld(ecs.WithStorage(s))
			e := mustCreate(t, w, b)
			if got, _ := full.Get(w, e); got != v || !avTag.Has(w, e) {
				t.Errorf("%v: created %v, tag %v", s, got, avTag.Has(w, e))
			}
			if err := w.Set(e, b); err != nil {
				t.Errorf("%v: Set: %v", s, err)
			}
			if err := w.Upsert(e, b); err != nil {
				t.Errorf("%v: Upsert: %v", s, err)
			}
			e2 := mustCreate(t, w, ecs.Bundle{})
			if err := w.Add(e2, b); err != nil {
				t.Errorf("%v: Add: %v", s, err)
			}
			if got, _ := full.Get(w, e2); got != v || !avTag.Has(w, e2) {
				t.Errorf("%v: added %v, tag %v", s, got, avTag.Has(w, e2))
			}
		}
	}
}

// TestValueHeader checks the one-value Bundle Component.Value builds, field by field: its
// count, bytes used and id are written as one word (valueHead, one variant per byte order),
// which must land on the fields the rest of the package reads.
func TestValueHeader(t *testing.T) {
	type v12 struct{ A, B, C uint32 }
	c1 := ecs.NewComponent[uint8]("ecs_test.hdr1", nil)
	c12 := ecs.NewComponent[v12]("ecs_test.hdr12", nil)
	c0 := ecs.NewComponent[struct{}]("ecs_test.hdr0", nil)
	for _, tc := range []struct {
		name string
		b    ecs.Bundle
		id   ecs.ComponentID
		used uint8
	}{
		{"1 byte", c1.Value(7), c1.ID(), 8},
		{"12 bytes", c12.Value(v12{1, 2, 3}), c12.ID(), 16},
		{"no size", c0.Value(struct{}{}), c0.ID(), 0},
	} {
		n, used, ids, offs := ecs.BundleFields(tc.b)
		want := [ecs.MaxBundle]ecs.ComponentID{tc.id}
		if n != 1 || used != tc.used || ids != want || offs != [ecs.MaxBundle]uint8{} {
			t.Errorf("%s: n %d used %d ids %v offs %v; want 1, %d, %v, zero offsets", tc.name, n, used, ids, offs, tc.used, want)
		}
		if tc.b != ecs.NewBundle(tc.b) {
			t.Errorf("%s: Value's bundle differs from its copy through NewBundle", tc.name)
		}
	}
	if v, ok := ecs.ValueOf(c12, c12.Value(v12{4, 5, 6})); !ok || v != (v12{4, 5, 6}) {
		t.Errorf("ValueOf(Value(v)) = %v, %v", v, ok)
	}
}
