package peerload

import (
	"fmt"

	"github.com/deferbench/deferbench/workload"
	ark "github.com/mlange-42/ark/ecs"
)

// Ark's component types: Ark identifies components by Go type.
type (
	arkPos    workload.Vec2
	arkVel    workload.Vec2
	arkHealth struct{ V int64 }
	arkTag    struct{ V uint32 }
)

// arkWorld is an Ark world with the maps and filters the workloads use.
type arkWorld struct {
	w      ark.World
	pos    *ark.Map1[arkPos]
	both   *ark.Map2[arkPos, arkVel]
	extra  *ark.Map2[arkHealth, arkTag]
	plain  *ark.Filter1[arkPos]            // entities with Position and neither of extra's
	extras *ark.Filter2[arkHealth, arkTag] // entities with both of extra's
	moving *ark.Filter2[arkPos, arkVel]
}

func newArkWorld() *arkWorld {
	a := &arkWorld{w: ark.NewWorld(1024)}
	a.pos = ark.NewMap1[arkPos](&a.w)
	a.both = ark.NewMap2[arkPos, arkVel](&a.w)
	a.extra = ark.NewMap2[arkHealth, arkTag](&a.w)
	a.plain = ark.NewFilter1[arkPos](&a.w).Without(ark.C[arkHealth](), ark.C[arkTag]()).Register()
	a.extras = ark.NewFilter2[arkHealth, arkTag](&a.w).Register()
	a.moving = ark.NewFilter2[arkPos, arkVel](&a.w).Register()
	return a
}

func (a *arkWorld) created(n int) []ark.Entity {
	ents := make([]ark.Entity, n)
	for i := range ents {
		ents[i] = a.pos.NewEntity(&arkPos{X: float64(i)})
	}
	return ents
}

// ArkCollect prepares workload name as Ark's collect-then-apply: the changes appended to a
// reused slice, then applied with Ark's immediate calls.
func ArkCollect(name string) (Load, error) {
	a := newArkWorld()
	switch name {
	case W1:
		ents := a.created(setN)
		type set struct {
			e ark.Entity
			v arkPos
		}
		sets := make([]set, 0, setN)
		k := 0
		round := func() error {
			k++
			for i, e := range ents {
				sets = append(sets, set{e, arkPos(setValue(k, i))})
			}
			for _, s := range sets {
				*a.pos.Get(s.e) = s.v
			}
			sets = sets[:0]
			return nil
		}
		return Load{Ops: setN, Round: round, Check: func() error {
			round()
			return checkSets(k, len(ents), func(i int) (workload.Vec2, error) { return workload.Vec2(*a.pos.Get(ents[i])), nil })
		}}, nil
	case W2:
		ents := a.created(addN)
		type add struct {
			e ark.Entity
			h arkHealth
			t arkTag
		}
		adds := make([]add, 0, addN)
		dels := make([]ark.Entity, 0, addN)
		first := func() error {
			for i, e := range ents {
				adds = append(adds, add{e, arkHealth{int64(i)}, arkTag{uint32(i)}})
			}
			for i := range adds {
				a.extra.Add(adds[i].e, &adds[i].h, &adds[i].t)
			}
			adds = adds[:0]
			return nil
		}
		second := func() error {
			dels = append(dels, ents...)
			for _, e := range dels {
				a.extra.Remove(e)
			}
			dels = dels[:0]
			return nil
		}
		return halves(4*addN, first, second, a.checkAdds(ents)), nil
	case W3:
		vals := make([][2]arkPos, 0, createN)
		made := make([]ark.Entity, 0, createN)
		first := func() error {
			for i := range createN {
				vals = append(vals, [2]arkPos{{X: float64(i)}, {Y: 1}})
			}
			made = made[:0]
			for i := range vals {
				v := arkVel(vals[i][1])
				made = append(made, a.both.NewEntity(&vals[i][0], &v))
			}
			vals = vals[:0]
			return nil
		}
		second := func() error {
			for _, e := range made {
				a.w.RemoveEntity(e)
			}
			return nil
		}
		return halves(createN, first, second, a.checkCreates(func() []ark.Entity { return made })), nil
	}
	return Load{}, fmt.Errorf("peerload: unknown workload %q (want one of %v)", name, Names)
}

// ArkBatch prepares workload name as Ark's batch operations; ok is false for W1, which Ark
// has no batch for.
func ArkBatch(name string) (l Load, ok bool, err error) {
	a := newArkWorld()
	switch name {
	case W1:
		return Load{}, false, nil
	case W2:
		ents := a.created(addN)
		i := 0
		fill := func(_ ark.Entity, h *arkHealth, t *arkTag) {
			h.V, t.V = int64(i), uint32(i)
			i++
		}
		first := func() error {
			i = 0
			a.extra.AddBatchFn(a.plain.Batch(), fill)
			return nil
		}
		second := func() error {
			a.extra.RemoveBatch(a.extras.Batch(), nil)
			return nil
		}
		return halves(4*addN, first, second, a.checkAdds(ents)), true, nil
	case W3:
		var made []ark.Entity
		first := func() error {
			made = made[:0]
			a.both.NewBatchFn(createN, func(e ark.Entity, p *arkPos, v *arkVel) {
				*p, *v = arkPos{X: float64(len(made))}, arkVel{Y: 1}
				made = append(made, e)
			})
			return nil
		}
		second := func() error {
			a.w.RemoveEntities(a.moving.Batch(), nil)
			return nil
		}
		return halves(createN, first, second, a.checkCreates(func() []ark.Entity { return made })), true, nil
	}
	return Load{}, false, fmt.Errorf("peerload: unknown workload %q (want one of %v)", name, Names)
}

// checkAdds is W2's check of Ark's world: ents in creation order, entity i's values i.
func (a *arkWorld) checkAdds(ents []ark.Entity) func(bool) error {
	return func(added bool) error {
		return checkAdds(added, len(ents), func(i int) (int64, uint32, bool, error) {
			if !a.extra.HasAll(ents[i]) {
				return 0, 0, false, nil
			}
			h, t := a.extra.Get(ents[i])
			return h.V, t.V, true, nil
		})
	}
}

// checkCreates is W3's check of Ark's world: made() the entities created, in order.
func (a *arkWorld) checkCreates(made func() []ark.Entity) func(bool) error {
	return func(alive bool) error {
		q := a.moving.Query()
		live := q.Count()
		q.Close()
		es := made()
		return checkCreates(alive, live, len(es), func(i int) (workload.Vec2, workload.Vec2, error) {
			p, v := a.both.Get(es[i])
			return workload.Vec2(*p), workload.Vec2(*v), nil
		})
	}
}
