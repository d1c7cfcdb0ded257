package ecs_test

import (
	"errors"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// TestCreate2MatchesCreate: Create2 gives the same entities, values, errors and panics as
// Create of the two-value bundle, on the typed path (columns exist, no validator) and on every
// path it hands to Create (a first use that makes a column, a validator, a duplicate, a query
// iterating, a component that is not inline).
func TestCreate2MatchesCreate(t *testing.T) {
	w1, w2 := ecs.NewWorld(), ecs.NewWorld()
	both := func(a vec, b small) (ecs.Entity, ecs.Entity, error, error) {
		e1, err1 := w1.Create(ecs.NewBundle(Pos.Value(a), Small.Value(b)))
		e2, err2 := ecs.Create2(w2, Pos, a, Small, b)
		return e1, e2, err1, err2
	}
	for i := range 300 { // the first call makes Small's column; later ones take the typed path
		e1, e2, err1, err2 := both(vec{float64(i), -1}, small{uint8(i)})
		if err1 != nil || err2 != nil || e1.Slot() != e2.Slot() {
			t.Fatalf("create %d: %v %v, %v %v", i, e1, err1, e2, err2)
		}
		if i%7 == 0 { // freed slots are reused alike
			if err := w1.Destroy(e1); err != nil {
				t.Fatal(err)
			}
			if err := w2.Destroy(e2); err != nil {
				t.Fatal(err)
			}
		}
	}
	if w1.Hash() != w2.Hash() {
		t.Fatal("Create2 and Create built different worlds")
	}
	// A validator refuses a value on both paths alike.
	if _, err := ecs.Create2(w2, Pos, vec{}, HP, hp{-1}); !errors.Is(err, ecs.ErrInvalidValue) {
		t.Errorf("Create2 with an invalid HP: %v, want ErrInvalidValue", err)
	}
	if _, err := ecs.Create2(w2, Pos, vec{}, Pos, vec{}); !errors.Is(err, ecs.ErrDuplicateComponent) {
		t.Errorf("Create2 of Pos twice: %v, want ErrDuplicateComponent", err)
	}
	for range w2.Query(0) {
		if _, err := ecs.Create2(w2, Pos, vec{}, Small, small{}); !errors.Is(err, ecs.ErrIterating) {
			t.Errorf("Create2 while iterating: %v, want ErrIterating", err)
		}
		break
	}
	if w1.Hash() != w2.Hash() {
		t.Error("a refused Create2 changed the world")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Create2 of a component that is not inline did not panic, as Value does")
			}
		}()
		ecs.Create2(w2, Pos, vec{}, Label, label{"x"})
	}()
	e, err := ecs.Create2(w2, Pos, vec{1, 2}, Small, small{9})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := Pos.Get(w2, e); p != (vec{1, 2}) {
		t.Errorf("Pos of a Create2 entity = %v, want {1 2}", p)
	}
	if v, _ := Small.Get(w2, e); v != (small{9}) {
		t.Errorf("Small of a Create2 entity = %v, want {9}", v)
	}
}

func TestCreate2Allocs(t *testing.T) {
	w := ecs.NewWorld()
	es := make([]ecs.Entity, 0, 64)
	for range 64 { // columns and slots grown
		e, _ := ecs.Create2(w, Pos, vec{}, Vel, vec{})
		es = append(es, e)
	}
	for _, e := range es {
		w.Destroy(e)
	}
	if n := testing.AllocsPerRun(100, func() {
		e, err := ecs.Create2(w, Pos, vec{1, 2}, Vel, vec{3, 4})
		if err != nil {
			t.Fatal(err)
		}
		w.Destroy(e)
	}); n != 0 {
		t.Errorf("Create2 + Destroy on a warm world: %v allocations, want 0", n)
	}
}
