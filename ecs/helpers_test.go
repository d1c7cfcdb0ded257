package ecs_test

import (
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// Test components. They are registered once per test binary, like a game's components.
type (
	vec   struct{ X, Y float64 }
	hp    struct{ N int32 }
	label struct{ S string }         // holds a pointer: not inline
	huge  [ecs.MaxInline/8 + 1]int64 // pointer-free but larger than MaxInline: not inline
	small struct{ B uint8 }          // 1 byte, padded to a word inside bundles
)

var (
	Pos   = ecs.NewComponent[vec]("ecs_test.Pos", nil)
	Vel   = ecs.NewComponent[vec]("ecs_test.Vel", nil)
	HP    = ecs.NewComponent[hp]("ecs_test.HP", func(h hp) bool { return h.N >= 0 })
	Label = ecs.NewComponent[label]("ecs_test.Label", nil)
	Huge  = ecs.NewComponent[huge]("ecs_test.Huge", nil)
	Small = ecs.NewComponent[small]("ecs_test.Small", nil)
)

// unknownID is a component id no NewComponent call returned in this test binary.
const unknownID = ecs.ComponentID(ecs.MaxComponents - 1)

func mustCreate(t testing.TB, w *ecs.World, b ecs.Bundle) ecs.Entity {
	t.Helper()
	e, err := w.Create(b)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return e
}

// snapshot is what "changes nothing" compares.
type snapshot struct {
	hash        uint64
	live, slots int
}

func snap(w *ecs.World) snapshot { return snapshot{w.Hash(), w.Len(), w.Slots()} }

// recordByRecord applies the records of words to w one ApplyValues call per record (runs of
// one record: no batching), up to n records or the first record a call does not apply, and
// returns the sum of what the calls applied: what ApplyValues(words, n) must return.
func recordByRecord(w *ecs.World, words []uint64, n int) (sum ecs.ValueRun) {
	for sum.Records < n {
		r := w.ApplyValues(words[sum.Words:], 1)
		if r.Records == 0 {
			break
		}
		sum.Records, sum.Words = sum.Records+r.Records, sum.Words+r.Words
		sum.Dead, sum.NoopRemoves = sum.Dead+r.Dead, sum.NoopRemoves+r.NoopRemoves
	}
	return sum
}
