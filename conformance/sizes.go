package conformance

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"

	"github.com/deferbench/deferbench/ecs"
)

// Components of each size class the world copies differently (1, 2, 12, 20, 24, 32 and 40
// bytes: words, arrays of words, odd sizes), for the sizes row.
var (
	size1  = ecs.NewComponent[uint8]("conformance.Size1", nil)
	size2  = ecs.NewComponent[uint16]("conformance.Size2", nil)
	size12 = ecs.NewComponent[[3]float32]("conformance.Size12", nil)
	size20 = ecs.NewComponent[[5]uint32]("conformance.Size20", nil)
	size24 = ecs.NewComponent[[3]float64]("conformance.Size24", nil)
	size32 = ecs.NewComponent[[4]uint64]("conformance.Size32", nil)
	size40 = ecs.NewComponent[[5]uint64]("conformance.Size40", nil)
)

// sized is one component of the sizes row: how to stage it with value v and check it.
type sized struct {
	name  string
	id    ecs.ComponentID
	value func(v int) ecs.Bundle
	// set and add stage through the typed calls (deferral.Set, deferral.Add).
	set, add func(r *deferral.Recorder, e ecs.Entity, v int)
	check    func(w *ecs.World, e ecs.Entity, v int) (got string, ok bool)
}

func sizedOf[T comparable](name string, c ecs.Component[T], mk func(v int) T) sized {
	return sized{
		name:  name,
		id:    c.ID(),
		value: func(v int) ecs.Bundle { return c.Value(mk(v)) },
		set:   func(r *deferral.Recorder, e ecs.Entity, v int) { deferral.Set(r, e, c, mk(v)) },
		add:   func(r *deferral.Recorder, e ecs.Entity, v int) { deferral.Add(r, e, c, mk(v)) },
		check: func(w *ecs.World, e ecs.Entity, v int) (string, bool) {
			got, err := c.Get(w, e)
			return fmt.Sprintf("%v (%v)", got, err), err == nil && got == mk(v)
		},
	}
}

// sizedComponents fill every byte of their value from v, so that a copy of part of a value
// shows.
var sizedComponents = []sized{
	sizedOf("1 byte", size1, mk1),
	sizedOf("2 bytes", size2, mk2),
	sizedOf("12 bytes", size12, mk12),
	sizedOf("20 bytes", size20, mk20),
	sizedOf("24 bytes", size24, mk24),
	sizedOf("32 bytes", size32, mk32),
	sizedOf("40 bytes", size40, mk40),
}

func mk1(v int) uint8       { return uint8(v) }
func mk2(v int) uint16      { return uint16(v)<<8 | uint16(v+1) }
func mk12(v int) [3]float32 { return [3]float32{float32(v), float32(v + 1), float32(v + 2)} }
func mk20(v int) [5]uint32 {
	return [5]uint32{uint32(v), uint32(v + 1), uint32(v + 2), uint32(v + 3), uint32(v + 4)}
}
func mk24(v int) [3]float64 { return [3]float64{float64(v), float64(v + 1), float64(v + 2)} }
func mk32(v int) [4]uint64  { return [4]uint64{uint64(v), uint64(v + 1), uint64(v + 2), uint64(v + 3)} }
func mk40(v int) [5]uint64 {
	return [5]uint64{uint64(v), uint64(v + 1), uint64(v + 2), uint64(v + 3), uint64(v + 4)}
}

// sizedPair is two of sizedComponents, a and b (indexes), staged together through the typed
// calls: a create with values va and vb (deferral.Create2), and an add of them
// (deferral.Add2).
type sizedPair struct {
	a, b   int
	create func(r *deferral.Recorder, va, vb int) ecs.Entity
	add    func(r *deferral.Recorder, e ecs.Entity, va, vb int)
}

func pairOf[A, B any](a int, ca ecs.Component[A], mka func(int) A, b int, cb ecs.Component[B], mkb func(int) B) sizedPair {
	return sizedPair{a, b,
		func(r *deferral.Recorder, va, vb int) ecs.Entity {
			return deferral.Create2(r, ca, mka(va), cb, mkb(vb))
		},
		func(r *deferral.Recorder, e ecs.Entity, va, vb int) {
			deferral.Add2(r, e, ca, mka(va), cb, mkb(vb))
		}}
}

// sizedPairs are pairs of size classes a Bundle holds together (at most 40 bytes, each value
// in whole words), in both orders, one of them filling all 40.
var sizedPairs = []sizedPair{
	pairOf(0, size1, mk1, 5, size32, mk32),
	pairOf(5, size32, mk32, 0, size1, mk1),
	pairOf(2, size12, mk12, 4, size24, mk24),
	pairOf(4, size24, mk24, 2, size12, mk12),
	pairOf(3, size20, mk20, 1, size2, mk2),
	pairOf(1, size2, mk2, 3, size20, mk20),
}

// checkComponentSizes: components of every size class the world copies differently keep
// their values through a commit's creates with a bundle of several and Adds to their
// placeholders, typed creates of two (deferral.Create2) and Adds to their placeholders, typed
// Adds of two (deferral.Add2) and Adds of the others to new entities, Adds
// of one component at a time entity after entity, Sets two per entity,
// typed Sets and Adds (deferral.Set, deferral.Add), overwriting Adds, and Removes; each
// value is read back, not compared with another world (a fault of the world would be
// shared).
func checkComponentSizes(x *fixture) {
	const n = 5
	cs := sizedComponents
	val := func(i, k, round int) int { return 1 + i*16 + k*3 + round*97 }
	wantAll := func(op string, es []ecs.Entity, round int, has func(k int) bool) {
		x.Helper()
		for i, e := range es {
			for k, c := range cs {
				if !has(k) {
					if _, ok := c.check(x.w, e, 0); ok || x.w.Has(e, c.id) {
						x.Errorf("%s: entity %d has the %s component, want it removed", op, i, c.name)
					}
					continue
				}
				if got, ok := c.check(x.w, e, val(i, k, round)); !ok {
					x.Errorf("%s: entity %d, %s component: got %s, want the value of round %d", op, i, c.name, got, round)
				}
			}
		}
	}
	all := func(int) bool { return true }
	// Creates with a bundle of the three smallest (a bundle holds at most 40 bytes, each value aligned), each
	// followed by Adds of the others to its placeholder.
	r := x.rec()
	ph := make([]ecs.Entity, n)
	for i := range ph {
		b := cs[0].value(val(i, 0, 0))
		for k, c := range cs[1:3] {
			b = b.With(c.value(val(i, k+1, 0)))
		}
		ph[i] = r.Create(b)
		for k, c := range cs[3:] {
			r.Add(ph[i], c.value(val(i, k+3, 0)))
		}
	}
	x.commit("commit of creates with every size", x.s)
	created := make([]ecs.Entity, n)
	for i, p := range ph {
		created[i] = x.resolve("create", x.s, p)
	}
	wantAll("after the creates", created, 0, all)
	// Creates of two components through the typed call (deferral.Create2), pairs of size
	// classes, each followed by Adds of the others to its placeholder.
	ph2 := make([]ecs.Entity, len(sizedPairs))
	for i, p := range sizedPairs {
		ph2[i] = p.create(r, val(i, p.a, 5), val(i, p.b, 5))
		for k, c := range cs {
			if k != p.a && k != p.b {
				r.Add(ph2[i], c.value(val(i, k, 5)))
			}
		}
	}
	x.commit("commit of typed creates (deferral.Create2)", x.s)
	created2 := make([]ecs.Entity, len(ph2))
	for i, p := range ph2 {
		created2[i] = x.resolve("typed create", x.s, p)
	}
	wantAll("after the typed creates", created2, 5, all)
	// Typed Adds of two (deferral.Add2) to entities that have none of the components, pairs
	// of size classes, each followed by Adds of the others.
	es2 := make([]ecs.Entity, len(sizedPairs))
	for i, p := range sizedPairs {
		es2[i] = x.create(x.w, pt(float64(i), 1))
		p.add(r, es2[i], val(i, p.a, 6), val(i, p.b, 6))
		for k, c := range cs {
			if k != p.a && k != p.b {
				r.Add(es2[i], c.value(val(i, k, 6)))
			}
		}
	}
	x.commit("commit of typed Adds of two (deferral.Add2)", x.s)
	wantAll("after the typed Adds of two", es2, 6, all)
	// Adds, one component per command, entity after entity, then Sets two per entity.
	es := make([]ecs.Entity, n)
	for i := range es {
		es[i] = x.create(x.w, pt(float64(i), 0))
	}
	for k, c := range cs {
		for i, e := range es {
			r.Add(e, c.value(val(i, k, 1)))
		}
	}
	x.commit("commit of Adds entity after entity", x.s)
	wantAll("after the Adds", es, 1, all)
	for k := 0; k < len(cs); k += 2 {
		for i, e := range es {
			r.Set(e, cs[k].value(val(i, k, 2)))
			if k+1 < len(cs) {
				r.Set(e, cs[k+1].value(val(i, k+1, 2)))
			}
		}
	}
	x.commit("commit of Sets, two per entity", x.s)
	wantAll("after the Sets", es, 2, all)
	for i, e := range es {
		for k, c := range cs {
			c.set(r, e, val(i, k, 4))
		}
	}
	x.commit("commit of typed Sets (deferral.Set)", x.s)
	wantAll("after the typed Sets", es, 4, all)
	// Adds that overwrite, the first entities' through the typed call (deferral.Add), then
	// Removes of every other component.
	for i, e := range es {
		for k, c := range cs {
			if i < 2 {
				c.add(r, e, val(i, k, 3))
				continue
			}
			r.Add(e, c.value(val(i, k, 3)))
		}
	}
	x.commit("commit of Adds that overwrite", x.s)
	wantAll("after the overwriting Adds", es, 3, all)
	for k := 0; k < len(cs); k += 2 {
		for _, e := range es {
			r.Remove(e, cs[k].id)
		}
	}
	x.commit("commit of Removes", x.s)
	wantAll("after the Removes", es, 3, func(k int) bool { return k%2 == 1 })
	wantAll("created entities after the other commits", created, 0, all)
	wantAll("typed creates after the other commits", created2, 5, all)
}
