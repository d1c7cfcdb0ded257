package ecs_test

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/ecs"
)

// Health is an example component with a validator.
type Health struct{ HP int }

var health = ecs.NewComponent[Health]("example.Health", func(h Health) bool { return h.HP >= 0 })

// A world refuses structural changes while a query iterates, which is why changes decided
// during iteration are deferred (see package deferral). Set stays allowed.
func Example() {
	w := ecs.NewWorld()
	for _, hp := range []int{3, 0, 7} {
		if _, err := w.Create(health.Value(Health{hp})); err != nil {
			panic(err)
		}
	}
	var doomed []ecs.Entity
	for e := range w.Query(ecs.MaskOf(health.ID())) {
		h, _ := health.Get(w, e)
		if h.HP == 0 {
			err := w.Destroy(e)
			fmt.Println("destroy while iterating:", errors.Is(err, ecs.ErrIterating))
			doomed = append(doomed, e) // decide now, apply after the loop
			continue
		}
		_ = health.Set(w, e, Health{h.HP - 1}) // not structural: allowed
	}
	for _, e := range doomed {
		if err := w.Destroy(e); err != nil {
			panic(err)
		}
	}
	for e := range w.Entities() {
		h, _ := health.Get(w, e)
		fmt.Println(h.HP)
	}
	err := w.Destroy(doomed[0])
	fmt.Println("destroy again:", errors.Is(err, ecs.ErrDead))
	_, err = w.Create(health.Value(Health{-1}))
	fmt.Println("invalid value:", errors.Is(err, ecs.ErrInvalidValue))
	// Output:
	// destroy while iterating: true
	// 2
	// 6
	// destroy again: true
	// invalid value: true
}

// Bundles carry several inline component values by copy; ValueOf reads one back.
func ExampleNewBundle() {
	b := ecs.NewBundle(Pos.Value(vec{1, 2}), health.Value(Health{5}))
	h, ok := ecs.ValueOf(health, b)
	fmt.Println(b.Len(), h.HP, ok)
	_, ok = ecs.ValueOf(Vel, b)
	fmt.Println(ok)
	// Output:
	// 2 5 true
	// false
}

// On archetype storage an entity's row lives in the table of its component set: a change of
// the set moves the row, once per call, and Moves counts the moves. Results and Hash are
// those of slot storage.
func ExampleWithStorage() {
	slots, arch := ecs.NewWorld(), ecs.NewWorld(ecs.WithStorage(ecs.Archetypes))
	for _, w := range []*ecs.World{slots, arch} {
		e, _ := w.Create(health.Value(Health{5})) // placed in its table: no move
		_ = w.Add(e, Pos.Value(vec{1, 2}))        // one move
		both := Vel.Value(vec{3, 4}).With(Small.Value(small{1}))
		_, _ = w.TryChange(e, &both, ecs.MaskOf(Pos.ID())) // one move for the net change
		fmt.Println(w.Storage(), w.Moves(), w.MaskOf(e) == ecs.MaskOf(health.ID(), Vel.ID(), Small.ID()))
	}
	fmt.Println(slots.Hash() == arch.Hash())
	// Output:
	// slots 0 true
	// archetypes 2 true
	// true
}
