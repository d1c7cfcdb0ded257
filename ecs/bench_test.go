package ecs_test

import (
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// benchStorages are the storages every benchmark runs on, as its first key (storage=…).
var benchStorages = []ecs.Storage{ecs.Slots, ecs.Archetypes}

// BenchmarkCreateDestroy measures one Create and one Destroy on a world holding live
// entities, with bundles of 1…3 components.
func BenchmarkCreateDestroy(b *testing.B) {
	bundles := []ecs.Bundle{
		Pos.Value(vec{1, 2}),
		Pos.Value(vec{1, 2}).With(Vel.Value(vec{3, 4})),
		Pos.Value(vec{1, 2}).With(Vel.Value(vec{3, 4})).With(HP.Value(hp{5})),
	}
	for _, s := range benchStorages {
		for _, live := range []int{1_000, 100_000} {
			for _, bundle := range bundles {
				b.Run(fmt.Sprintf("storage=%v/live=%d/components=%d", s, live, bundle.Len()), func(b *testing.B) {
					w := ecs.NewWorld(ecs.WithStorage(s))
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
}

// BenchmarkCreate2 measures creating entities with two components (Create2) into a world
// that grows to 10,000 of them, per entity (the world's growth included).
func BenchmarkCreate2(b *testing.B) {
	const n = 10_000
	for _, s := range benchStorages {
		b.Run(fmt.Sprintf("storage=%v", s), func(b *testing.B) {
			b.ReportAllocs()
			es := make([]ecs.Entity, n)
			for b.Loop() {
				w := ecs.NewWorld(ecs.WithStorage(s))
				for i := range es {
					e, err := ecs.Create2(w, Pos, vec{1, 2}, Vel, vec{3, 4})
					if err != nil {
						b.Fatal(err)
					}
					es[i] = e
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entity")
		})
	}
}

// BenchmarkQuery measures one pass over a world of n entities with a query that matches all
// of them, half of them, or none, reading a component of each match.
func BenchmarkQuery(b *testing.B) {
	for _, s := range benchStorages {
		for _, n := range []int{1_000, 100_000} {
			w := ecs.NewWorld(ecs.WithStorage(s))
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
				b.Run(fmt.Sprintf("storage=%v/entities=%d/match=%s", s, n, q.name), func(b *testing.B) {
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
}

// BenchmarkQuery2 measures one pass of a typed Query2 over Pos and Vel, writing Pos, on a
// world of 100,000 entities of which every other one has both (the others Pos and HP), per
// matching entity.
func BenchmarkQuery2(b *testing.B) {
	const n = 100_000
	for _, s := range benchStorages {
		w := ecs.NewWorld(ecs.WithStorage(s))
		for i := range n {
			bundle := Pos.Value(vec{float64(i), 0}).With(HP.Value(hp{1}))
			if i%2 == 0 {
				bundle = Pos.Value(vec{float64(i), 0}).With(Vel.Value(vec{1, 1}))
			}
			mustCreate(b, w, bundle)
		}
		b.Run(fmt.Sprintf("storage=%v", s), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				q := ecs.NewQuery2(w, Pos, Vel)
				for q.Next() {
					p, v := q.Get()
					p.X += v.X
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n/2), "ns/entity")
		})
	}
}

// BenchmarkAddRemove measures one Add and one Remove of a component on live entities that
// keep two others, through the World calls (on archetype storage each is a row move).
func BenchmarkAddRemove(b *testing.B) {
	const live = 1_000
	for _, s := range benchStorages {
		w := ecs.NewWorld(ecs.WithStorage(s))
		es := make([]ecs.Entity, live)
		for i := range es {
			es[i] = mustCreate(b, w, Pos.Value(vec{1, 2}).With(Vel.Value(vec{3, 4})))
		}
		add := HP.Value(hp{7})
		b.Run(fmt.Sprintf("storage=%v/via=world", s), func(b *testing.B) {
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
}

// BenchmarkAdd2Remove2 measures adding two components to an entity and removing them again,
// by four calls (via=calls: two Upserts, two Removes) and by two TryChange calls (via=change),
// reporting the archetype row moves per op (moves/op: 4 and 2 on archetype storage, 0 on
// slots).
func BenchmarkAdd2Remove2(b *testing.B) {
	const live = 1_000
	for _, s := range benchStorages {
		for _, via := range []string{"calls", "change"} {
			b.Run(fmt.Sprintf("storage=%v/via=%s", s, via), func(b *testing.B) {
				w := ecs.NewWorld(ecs.WithStorage(s))
				es := make([]ecs.Entity, live)
				for i := range es {
					es[i] = mustCreate(b, w, Pos.Value(vec{1, 2}))
				}
				vel, small := Vel.Value(vec{3, 4}), Small.Value(small{5})
				both, none := vel.With(small), ecs.Bundle{}
				gone := ecs.MaskOf(Vel.ID(), Small.ID())
				b.ReportAllocs()
				moves, i := w.Moves(), 0
				for b.Loop() {
					e := es[i%live]
					i++
					if via == "calls" {
						_, _ = w.TryUpsert(e, &vel)
						_, _ = w.TryUpsert(e, &small)
						_, _, _ = w.TryRemove(e, Vel.ID())
						_, _, _ = w.TryRemove(e, Small.ID())
					} else {
						_, _ = w.TryChange(e, &both, 0)
						_, _ = w.TryChange(e, &none, gone)
					}
				}
				if w.Len() != live || w.MaskOf(es[0]) != ecs.MaskOf(Pos.ID()) {
					b.Fatalf("the entities did not return to Pos alone")
				}
				b.ReportMetric(float64(w.Moves()-moves)/float64(b.N), "moves/op")
			})
		}
	}
}
