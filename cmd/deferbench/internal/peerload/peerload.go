// Package peerload holds the workloads that set deferred structural changes against the
// best Go alternative, collecting by hand with Ark (github.com/mlange-42/ark): the same ops
// through the calls a strategy's documentation shows (deferral.Set of one value, as the
// README's example stages it; deferral.Add2 and deferral.Create2 of two values, as
// docs/library.md adds two components and creates an entity of two; Recorder.Remove2 of two
// components, as it removes them; Recorder.Destroy; a commit), through
// Ark's collect-then-apply
// (a reused slice filled, then applied with Ark's immediate calls) and through Ark's batch
// operations. The Peer scenario times them and instrcount counts them; every path checks
// the world it leaves against the same expected state.
//
//   - W1: 256 Sets of a 16-byte value (Position) on existing entities, then a commit; one op
//     is one Set.
//   - W2: on 128 entities add two components (an int64 and a uint32) in one command
//     (deferral.Add2), commit, remove both (Recorder.Remove2, as Ark's Map2.Remove), commit;
//     one op is one component added or removed (512 a round).
//   - W3: 256 creates with Position and Velocity (deferral.Create2, as Ark's Map2.NewEntity
//     in its collect-then-apply), commit, the 256 destroyed, commit; one op is one entity.
//
// Ark's collect-then-apply is what Ark documents and its maintainer recommends for changes
// made while iterating: the entities (and values) are appended to a slice during the loop
// and applied after it. Its batches (Map2.AddBatchFn, Map2.RemoveBatch, Map2.NewBatchFn,
// World.RemoveEntities) have no W1: Ark has no batch Set.
package peerload

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Names of the workloads, as the Peer scenario's op parameter and instrcount's names spell
// them.
const (
	W1 = "w1-set"
	W2 = "w2-add-remove"
	W3 = "w3-create-destroy"
)

// Names lists the workloads in order.
var Names = []string{W1, W2, W3}

// Sizes: W1's Sets and W3's entities per round, W2's entities.
const (
	setN    = 256
	addN    = 128
	createN = 256
)

// Load is one workload on one path, prepared: Round runs Ops ops; Check runs one more round
// (or its halves) verifying the world after each commit, and returns an error naming what
// differs from the expected state.
type Load struct {
	Ops   int
	Round func() error
	Check func() error
}

// Run runs rounds until n ops are done (a whole round at a time: n rounded up to whole
// rounds).
func (l Load) Run(n int) error {
	for k := 0; k < n; k += l.Ops {
		if err := l.Round(); err != nil {
			return err
		}
	}
	return nil
}

var (
	health = ecs.NewComponent[int64]("peer.Health", nil)
	tag    = ecs.NewComponent[uint32]("peer.Tag", nil)
)

// Strategy prepares workload name through the strategy mk makes over a world of storage s.
func Strategy(name string, mk deferral.Factory, s ecs.Storage) (Load, error) {
	w := ecs.NewWorld(ecs.WithStorage(s))
	st := mk(w)
	r := st.NewRecorder()
	commit := func() (deferral.Report, error) {
		if err := st.Commit(); err != nil {
			return deferral.Report{}, err
		}
		return st.TakeReport()
	}
	switch name {
	case W1:
		ents := created(w, setN)
		k := 0
		round := func() error {
			k++
			for i, e := range ents {
				deferral.Set(r, e, workload.Position, setValue(k, i))
			}
			_, err := commit()
			return err
		}
		return Load{Ops: setN, Round: round, Check: func() error {
			if err := round(); err != nil {
				return err
			}
			return checkSets(k, len(ents), func(i int) (workload.Vec2, error) { return workload.Position.Get(w, ents[i]) })
		}}, nil
	case W2:
		ents := created(w, addN)
		add := func() error {
			for i, e := range ents {
				deferral.Add2(r, e, health, int64(i), tag, uint32(i))
			}
			_, err := commit()
			return err
		}
		remove := func() error {
			for _, e := range ents {
				r.Remove2(e, health.ID(), tag.ID())
			}
			_, err := commit()
			return err
		}
		get := func(i int) (int64, uint32, bool, error) {
			h, err := health.Get(w, ents[i])
			if err != nil {
				return 0, 0, w.Has(ents[i], health.ID()) || w.Has(ents[i], tag.ID()), nil
			}
			t, err := tag.Get(w, ents[i])
			return h, t, true, err
		}
		return halves(4*addN, add, remove, func(added bool) error { return checkAdds(added, len(ents), get) }), nil
	case W3:
		var made []ecs.Entity
		create := func() error {
			for i := range createN {
				deferral.Create2(r, workload.Position, workload.Vec2{X: float64(i)}, workload.Velocity, workload.Vec2{Y: 1})
			}
			rep, err := commit()
			made = append(made[:0], rep.Created...)
			return err
		}
		destroy := func() error {
			for _, e := range made {
				r.Destroy(e)
			}
			_, err := commit()
			return err
		}
		return halves(createN, create, destroy, func(alive bool) error {
			return checkCreates(alive, w.Len(), len(made), func(i int) (workload.Vec2, workload.Vec2, error) {
				p, err := workload.Position.Get(w, made[i])
				if err != nil {
					return p, workload.Vec2{}, err
				}
				v, err := workload.Velocity.Get(w, made[i])
				return p, v, err
			})
		}), nil
	}
	return Load{}, fmt.Errorf("peerload: unknown workload %q (want one of %v)", name, Names)
}

// created returns n entities created in w with a Position each.
func created(w *ecs.World, n int) []ecs.Entity {
	ents := make([]ecs.Entity, n)
	for i := range ents {
		e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
		if err != nil {
			panic(err) // a fresh world refuses no create
		}
		ents[i] = e
	}
	return ents
}

// halves is the Load of ops ops of a workload whose round is first then second, each ending in a
// commit; check(true) verifies the world after first, check(false) after second.
func halves(ops int, first, second func() error, check func(afterFirst bool) error) Load {
	return Load{
		Round: func() error {
			if err := first(); err != nil {
				return err
			}
			return second()
		},
		Ops: ops,
		Check: func() error {
			if err := first(); err != nil {
				return err
			}
			if err := check(true); err != nil {
				return err
			}
			if err := second(); err != nil {
				return err
			}
			return check(false)
		},
	}
}

// setValue is W1's value for entity i in round k.
func setValue(k, i int) workload.Vec2 { return workload.Vec2{X: float64(k), Y: float64(i)} }

// checkSets verifies that each of n entities holds round k's value.
func checkSets(k, n int, get func(i int) (workload.Vec2, error)) error {
	for i := range n {
		v, err := get(i)
		if err != nil {
			return fmt.Errorf("%s: entity %d: %w", W1, i, err)
		}
		if want := setValue(k, i); v != want {
			return fmt.Errorf("%s: entity %d holds %v after the commit, want %v", W1, i, v, want)
		}
	}
	return nil
}

// checkAdds verifies W2's world: after the adds (added) entity i holds both components with
// values i; after the removes, neither. get returns the values and whether either is held.
func checkAdds(added bool, n int, get func(i int) (int64, uint32, bool, error)) error {
	for i := range n {
		h, t, has, err := get(i)
		switch {
		case err != nil:
			return fmt.Errorf("%s: entity %d: %w", W2, i, err)
		case added && (h != int64(i) || t != uint32(i)):
			return fmt.Errorf("%s: entity %d holds (%d, %d) after the adds, want (%d, %d)", W2, i, h, t, i, i)
		case has != added:
			return fmt.Errorf("%s: entity %d: components held %v, want %v", W2, i, has, added)
		}
	}
	return nil
}

// checkCreates verifies W3's world of live entities: after the creates (alive) the n
// entities made hold Position{X: i} and Velocity{Y: 1}; after the destroys the world is
// empty.
func checkCreates(alive bool, live, n int, get func(i int) (workload.Vec2, workload.Vec2, error)) error {
	if !alive {
		if live != 0 {
			return fmt.Errorf("%s: %d entities alive after the destroys, want 0", W3, live)
		}
		return nil
	}
	if n != createN || live != createN {
		return fmt.Errorf("%s: %d created, %d alive after the creates, want %d", W3, n, live, createN)
	}
	for i := range n {
		p, v, err := get(i)
		if err != nil {
			return fmt.Errorf("%s: entity %d: %w", W3, i, err)
		}
		if p != (workload.Vec2{X: float64(i)}) || v != (workload.Vec2{Y: 1}) {
			return fmt.Errorf("%s: entity %d holds %v, %v, want {%d 0}, {0 1}", W3, i, p, v, i)
		}
	}
	return nil
}
