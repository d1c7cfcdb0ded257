package ecs_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// TestTypedQueryMatchesQuery: Query1 and Query2 visit exactly World.Query's entities, in
// creation order, skipping destroyed ones and entities lacking a component, and their
// pointers read and write the entity's values.
func TestTypedQueryMatchesQuery(t *testing.T) {
	w := ecs.NewWorld()
	var all []ecs.Entity
	for i := range 300 {
		b := Pos.Value(vec{X: float64(i)})
		if i%3 != 0 {
			b = b.With(Vel.Value(vec{Y: float64(i)}))
		}
		if i%5 == 0 {
			b = b.With(HP.Value(hp{int32(i)}))
		}
		all = append(all, mustCreate(t, w, b))
	}
	for i := 0; i < len(all); i += 7 {
		if err := w.Destroy(all[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 { // reuse freed slots: creation order is no longer slot order
		mustCreate(t, w, Pos.Value(vec{X: float64(1000 + i)}).With(Vel.Value(vec{Y: 1})))
	}
	want2 := slices.Collect(w.Query(ecs.MaskOf(Pos.ID(), Vel.ID())))
	var got2 []ecs.Entity
	for q := ecs.NewQuery2(w, Pos, Vel); q.Next(); {
		p, v := q.Get()
		e := q.Entity()
		got2 = append(got2, e)
		if pp := Pos.Ptr(w, e); pp != p || Vel.Ptr(w, e) != v {
			t.Fatalf("Query2.Get for %v does not point at its values", e)
		}
		p.Y = 9 // writes are allowed while iterating
	}
	if !slices.Equal(got2, want2) || len(got2) == 0 {
		t.Fatalf("Query2 visited %d entities, World.Query %d (or a different order)", len(got2), len(want2))
	}
	for _, e := range want2 {
		if v, _ := Pos.Get(w, e); v.Y != 9 {
			t.Fatalf("write through Query2.Get lost for %v", e)
		}
	}
	want1 := slices.Collect(w.Query(ecs.MaskOf(Pos.ID(), HP.ID())))
	var got1 []ecs.Entity
	for q := ecs.NewQuery1(w, Pos, HP.ID()); q.Next(); {
		got1 = append(got1, q.Entity())
	}
	if !slices.Equal(got1, want1) || len(got1) == 0 {
		t.Fatalf("Query1 with an extra component visited %v, want %v", got1, want1)
	}
	// A component no entity ever had: nothing matches.
	if q := ecs.NewQuery1(w, Small); q.Next() {
		t.Fatalf("Query1 over a never-used component matched %v", q.Entity())
	}
}

// TestTypedQueryFreezes: while a typed query iterates, structural calls fail with
// ErrIterating; after Next returns false, or after Close, they work again.
func TestTypedQueryFreezes(t *testing.T) {
	w := ecs.NewWorld()
	e := mustCreate(t, w, Pos.Value(vec{}).With(Vel.Value(vec{})))
	mustCreate(t, w, Pos.Value(vec{}).With(Vel.Value(vec{})))
	q := ecs.NewQuery2(w, Pos, Vel)
	if !q.Next() {
		t.Fatal("no match")
	}
	if _, err := w.Create(Pos.Value(vec{})); !errors.Is(err, ecs.ErrIterating) {
		t.Fatalf("Create during a typed query: %v, want ErrIterating", err)
	}
	q.Close()
	q.Close() // twice is fine
	if q.Next() {
		t.Fatal("Next after Close reported an entity")
	}
	if err := w.Destroy(e); err != nil {
		t.Fatalf("Destroy after Close: %v", err)
	}
	q = ecs.NewQuery2(w, Pos, Vel)
	for q.Next() {
	}
	if _, err := w.Create(Pos.Value(vec{})); err != nil {
		t.Fatalf("Create after a finished typed query: %v", err)
	}
}

// TestTypedQueryAllocs: iterating a typed query allocates nothing but the query itself.
func TestTypedQueryAllocs(t *testing.T) {
	w := ecs.NewWorld()
	for range 100 {
		mustCreate(t, w, Pos.Value(vec{1, 1}).With(Vel.Value(vec{1, 1})))
	}
	var sum float64
	q := ecs.NewQuery2(w, Pos, Vel)
	a := testing.AllocsPerRun(50, func() {
		q.Close()
		*q = *ecs.NewQuery2(w, Pos, Vel)
		for q.Next() {
			p, v := q.Get()
			sum += p.X + v.Y
		}
	})
	if a > 1 {
		t.Errorf("allocs per typed query pass = %v, want at most 1 (the query)", a)
	}
}

// TestTypedQueryDensePrefix: a typed query walks the leading stretch of creation order where
// entry i is slot i by mask alone; it visits what World.Query visits while that stretch
// grows, is cut by a destroy, is rebuilt by the compaction of tombstones, and is followed by
// reused slots.
func TestTypedQueryDensePrefix(t *testing.T) {
	w := ecs.NewWorld()
	var all []ecs.Entity
	check := func(phase string) {
		t.Helper()
		want := slices.Collect(w.Query(ecs.MaskOf(Pos.ID(), Vel.ID())))
		var got []ecs.Entity
		for q := ecs.NewQuery2(w, Pos, Vel); q.Next(); {
			got = append(got, q.Entity())
		}
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Fatalf("%s: Query2 visited %d entities, World.Query %d (or a different order)", phase, len(got), len(want))
		}
	}
	for i := range 600 {
		b := Pos.Value(vec{X: float64(i)})
		if i%11 != 4 {
			b = b.With(Vel.Value(vec{Y: 1}))
		}
		all = append(all, mustCreate(t, w, b))
	}
	check("fresh")
	if err := w.Destroy(all[450]); err != nil {
		t.Fatal(err)
	}
	check("one destroy at 450")
	for i := 0; i < 600; i += 2 { // more than half tombstones: the order is compacted
		if i != 450 {
			if err := w.Destroy(all[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("compacted")
	for i := range 40 {
		mustCreate(t, w, Pos.Value(vec{X: float64(1000 + i)}).With(Vel.Value(vec{Y: 2})))
	}
	check("reused slots")
}
