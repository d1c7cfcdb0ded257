package ecs_test

import (
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// BenchmarkCreateDestroy measures one Create and one Destroy on a world holding live
// entities, with bundles of 1…3 components.
func BenchmarkCreateDestroy(b *testing.B) {
	bundles := []ecs.Bundle{
		Pos.Value(vec{1, 2}),
		Pos.Value(vec{1, 2}).With(Vel.Value(vec{3, 4})),
		Pos.Value(vec{1, 2}).With(Vel.Value(vec{3, 4})).With(HP.Value(hp{5})),
	}
	for _, live := range []int{1_000, 100_000} {
		for _, bundle := range bundles {
			b.Run(fmt.Sprintf("live=%d/components=%d", live, bundle.Len()), func(b *testing.B) {
				w := ecs.NewWorld()
				for range live {
					mustCreate(b, w, bundle)
				}
				b.ReportAllocs()
				for b.Loop() {
					e, err := w.Create(bundle)
					if err != nil {
						b.Fatal(err)
					}
					if err := w.Destroy(e); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkQuery measures one pass over a world of n entities with a query that matches all
// of them, half of them, or none, reading a component of each match.
func BenchmarkQuery(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		w := ecs.NewWorld()
		for i := range n {
			bundle := Pos.Value(vec{float64(i), 0})
			if i%2 == 0 {
				bundle = bundle.With(Vel.Value(vec{1, 1}))
			}
			mustCreate(b, w, bundle)
		}
		for _, q := range []struct {
			name string
			mask ecs.Mask
		}{
			{"all", ecs.MaskOf(Pos.ID())},
			{"half", ecs.MaskOf(Pos.ID(), Vel.ID())},
			{"none", ecs.MaskOf(HP.ID())},
		} {
			b.Run(fmt.Sprintf("entities=%d/match=%s", n, q.name), func(b *testing.B) {
				b.ReportAllocs()
				var sum float64
				for b.Loop() {
					for e := range w.Query(q.mask) {
						sum += Pos.Ptr(w, e).X
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
				_ = sum
			})
		}
	}
}

// BenchmarkAddRemove measures one Add and one Remove of a component on live entities that
// keep two others, through the World calls and through a component's Writer.
func BenchmarkAddRemove(b *testing.B) {
	const live = 1_000
	w := ecs.NewWorld()
	es := make([]ecs.Entity, live)
	for i := range es {
		es[i] = mustCreate(b, w, Pos.Value(vec{1, 2}).With(Vel.Value(vec{3, 4})))
	}
	add := HP.Value(hp{7})
	b.Run("via=world", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			e := es[i%live]
			i++
			if err := w.Add(e, add); err != nil {
				b.Fatal(err)
			}
			if err := w.Remove(e, HP.ID()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
