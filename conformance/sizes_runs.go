package conformance

import (
	"fmt"

	"github.com/deferbench/deferbench/ecs"
)

// Two components of each value size a world may apply in typed loops (4, 8 and 16 bytes), for
// the runs row.
var (
	run4a  = ecs.NewComponent[uint32]("conformance.Run4a", nil)
	run4b  = ecs.NewComponent[[2]uint16]("conformance.Run4b", nil)
	run8a  = ecs.NewComponent[uint64]("conformance.Run8a", nil)
	run8b  = ecs.NewComponent[[2]float32]("conformance.Run8b", nil)
	run16a = ecs.NewComponent[[2]uint64]("conformance.Run16a", nil)
	run16b = ecs.NewComponent[[4]uint32]("conformance.Run16b", nil)
)

// runComponents fill every byte of their value from v.
var runComponents = []sized{
	sizedOf("4 bytes (a)", run4a, func(v int) uint32 { return uint32(v)<<16 | uint32(v+1) }),
	sizedOf("4 bytes (b)", run4b, func(v int) [2]uint16 { return [2]uint16{uint16(v), uint16(v + 1)} }),
	sizedOf("8 bytes (a)", run8a, func(v int) uint64 { return uint64(v)<<32 | uint64(v+1) }),
	sizedOf("8 bytes (b)", run8b, func(v int) [2]float32 { return [2]float32{float32(v), float32(v + 1)} }),
	sizedOf("16 bytes (a)", run16a, func(v int) [2]uint64 { return [2]uint64{uint64(v), uint64(v + 1)} }),
	sizedOf("16 bytes (b)", run16b, func(v int) [4]uint32 {
		return [4]uint32{uint32(v), uint32(v + 1), uint32(v + 2), uint32(v + 3)}
	}),
}

// checkTypedRuns: typed Sets and Adds (deferral.Set, deferral.Add) and Removes staged as runs
// keep every value: one component entity after entity (a run of one header), and two
// components per entity, entity after entity (a run of pairs), for every pair of value sizes
// (4, 8 and 16 bytes, two components of each), Adds growing the entities that lack the
// component. A strategy may apply such runs in typed loops; each value is read back, not
// compared with another world (a fault of the world would be shared).
func checkTypedRuns(x *fixture) {
	const n = 6
	cs := runComponents
	round := make([][]int, n) // round[i][k]: the round whose value entity i's component k holds; -1: none
	es := make([]ecs.Entity, n)
	// Bystanders, created between the entities of the runs, hold every component and are in
	// no run: a loop that writes at another slot's place shows on them.
	keep := make([]ecs.Entity, n)
	val := func(i, k, r int) int { return 1 + i*16 + k*3 + r*97 }
	const kept = 1000 // the bystanders' round
	for i := range es {
		es[i] = x.create(x.w, pt(float64(i), 0))
		round[i] = make([]int, len(cs))
		for k := range cs {
			round[i][k] = -1
		}
		keep[i] = x.create(x.w, pt(float64(i), 1))
		for k, c := range cs {
			if err := x.w.Add(keep[i], c.value(val(i, k, kept))); err != nil {
				x.Fatalf("setup: add %s to a bystander: %v", c.name, err)
			}
		}
	}
	check := func(op string) {
		x.Helper()
		for i, e := range keep {
			for k, c := range cs {
				if got, ok := c.check(x.w, e, val(i, k, kept)); !ok {
					x.Errorf("%s: bystander %d (in no run), %s component: got %s, want its own value", op, i, c.name, got)
				}
			}
		}
		for i, e := range es {
			for k, c := range cs {
				if round[i][k] < 0 {
					if x.w.Has(e, c.id) {
						x.Errorf("%s: entity %d has the %s component, want it removed", op, i, c.name)
					}
					continue
				}
				if got, ok := c.check(x.w, e, val(i, k, round[i][k])); !ok {
					x.Errorf("%s: entity %d, %s component: got %s, want the value of round %d", op, i, c.name, got, round[i][k])
				}
			}
		}
	}
	r := x.rec()
	rnd := 0
	stage := func(k int, add bool) {
		for i, e := range es {
			if add {
				cs[k].add(r, e, val(i, k, rnd))
			} else {
				cs[k].set(r, e, val(i, k, rnd))
			}
			round[i][k] = rnd
		}
	}
	// Runs of one header: Adds (growing every entity), then Sets.
	for _, add := range []bool{true, false} {
		for k := range cs {
			stage(k, add)
			rnd++
		}
		x.commit(fmt.Sprintf("commit of typed runs of one component (add %v)", add), x.s)
		check(fmt.Sprintf("after typed runs of one component (add %v)", add))
	}
	// Runs of pairs, every ordered pair of sizes: Sets, then Removes and the Adds that grow
	// the pair back.
	for a := range cs {
		for b := range cs {
			if a == b || (a%2 == 1 && b%2 == 1) { // each ordered pair of sizes, both components of a size
				continue
			}
			// One commit of a run of pairs staged by stage, entity after entity, leaving
			// round r (-1: removed) in both components.
			pairs := func(what string, r int, stage func(i int, e ecs.Entity)) {
				for i, e := range es {
					stage(i, e)
					round[i][a], round[i][b] = r, r
				}
				op := fmt.Sprintf("a run of %s pairs (%s, %s)", what, cs[a].name, cs[b].name)
				x.commit("commit of "+op, x.s)
				check("after " + op)
			}
			pairs("typed Set", rnd, func(i int, e ecs.Entity) { cs[a].set(r, e, val(i, a, rnd)); cs[b].set(r, e, val(i, b, rnd)) })
			rnd++
			pairs("Remove", -1, func(_ int, e ecs.Entity) { r.Remove(e, cs[a].id); r.Remove(e, cs[b].id) })
			pairs("typed Add", rnd, func(i int, e ecs.Entity) { cs[a].add(r, e, val(i, a, rnd)); cs[b].add(r, e, val(i, b, rnd)) })
			rnd++
		}
	}
}
