package conformance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkClosureWorldRefusals: the world's strict calls made by a closure refuse what the ecs
// package documents, with its sentinel (errors.Is), and change nothing (equal Hash, Len and
// values): Component.Add of a component the entity has (ecs.ErrHasComponent), Component.Set
// and World.Remove of one it lacks (ecs.ErrMissingComponent), a value the component's
// validator rejects (ecs.ErrInvalidValue), any call on a destroyed entity (ecs.ErrDead) and
// on another world's entity (ecs.ErrForeign), Remove of an id no NewComponent returned
// (ecs.ErrUnknownComponent), and a structural call while the world is frozen
// (ecs.ErrIterating) — until it is thawed, when the same call succeeds; thawing twice
// panics. The closure's own error is nil, so the commit succeeds.
func checkClosureWorldRefusals(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	d := x.create(x.w, pt(2, 2))
	if err := x.w.Destroy(d); err != nil {
		x.Fatalf("setup: destroy: %v", err)
	}
	other := x.newWorld()
	foreign := x.create(other, pt(3, 3))
	unknown, hasUnknown := unregisteredComponent()
	var errs []string // "what: got" for every refusal that went wrong
	wantRefused := func(w *ecs.World, what string, call func() error, sentinel error) {
		h, n := w.Hash(), w.Len()
		err := call()
		switch {
		case !errors.Is(err, sentinel):
			errs = append(errs, fmt.Sprintf("%s: got %v, want an error wrapping %v", what, err, sentinel))
		case w.Hash() != h || w.Len() != n:
			errs = append(errs, what+": refused, but the world changed")
		}
	}
	var thawedErr error
	var thawTwice any
	r := x.rec()
	r.Do(func(w *ecs.World) error {
		wantRefused(w, "Add of Position to an entity that has it", func() error { return workload.Position.Add(w, e, v2(9, 9)) }, ecs.ErrHasComponent)
		wantRefused(w, "Set of Velocity on an entity that lacks it", func() error { return workload.Velocity.Set(w, e, v2(9, 9)) }, ecs.ErrMissingComponent)
		wantRefused(w, "Remove of Velocity from an entity that lacks it", func() error { return w.Remove(e, workload.Velocity.ID()) }, ecs.ErrMissingComponent)
		wantRefused(w, "Add of a Lifetime its validator rejects", func() error { return workload.Lifetime.Add(w, e, workload.Life{}) }, ecs.ErrInvalidValue)
		wantRefused(w, "Set on a destroyed entity", func() error { return workload.Position.Set(w, d, v2(9, 9)) }, ecs.ErrDead)
		wantRefused(w, "Add to a destroyed entity", func() error { return workload.Velocity.Add(w, d, v2(9, 9)) }, ecs.ErrDead)
		wantRefused(w, "Remove from a destroyed entity", func() error { return w.Remove(d, workload.Position.ID()) }, ecs.ErrDead)
		wantRefused(w, "Set on another world's entity", func() error { return workload.Position.Set(w, foreign, v2(9, 9)) }, ecs.ErrForeign)
		if _, err := workload.Position.Get(w, d); !errors.Is(err, ecs.ErrDead) {
			errs = append(errs, fmt.Sprintf("Get of a destroyed entity: got %v, want an error wrapping %v", err, ecs.ErrDead))
		}
		if hasUnknown {
			wantRefused(w, "Remove of an unregistered component id", func() error { return w.Remove(e, unknown) }, ecs.ErrUnknownComponent)
		}
		thaw := w.Freeze()
		if !w.Iterating() {
			errs = append(errs, "Iterating while frozen: got false, want true")
		}
		wantRefused(w, "Create while frozen", func() error { _, err := w.Create(vl(9, 9)); return err }, ecs.ErrIterating)
		wantRefused(w, "Add while frozen", func() error { return workload.Velocity.Add(w, e, v2(9, 9)) }, ecs.ErrIterating)
		wantRefused(w, "Destroy while frozen", func() error { return w.Destroy(e) }, ecs.ErrIterating)
		thaw()
		thawedErr = workload.Velocity.Add(w, e, v2(4, 4))
		func() {
			defer func() { thawTwice = recover() }()
			thaw()
		}()
		return nil
	})
	x.commit("commit of a closure making refused world calls", x.s)
	for _, s := range errs {
		x.Errorf("in a closure: %s", s)
	}
	x.wantNil("Add after thaw", thawedErr)
	if thawTwice == nil {
		x.Errorf("calling a thaw function twice: no panic, want one")
	}
	if x.w.Iterating() {
		x.Errorf("Iterating after the thaw: got true, want false")
	}
	if v, ok := vel(x.w, e); !ok || v != v2(4, 4) {
		x.Errorf("velocity of e added after the thaw: got %v (present %v), want %v", v, ok, v2(4, 4))
	}
	want(x, "position of e after the refused calls", x.pos("e", x.w, e), v2(1, 1))
	want(x, "position of the other world's entity", x.pos("foreign", other, foreign), v2(3, 3))
}

// unregisteredComponent returns an id no NewComponent call returned (ComponentName names it
// by number), searching from the top of the id space; ok is false when every id is taken.
func unregisteredComponent() (id ecs.ComponentID, ok bool) {
	for i := ecs.MaxComponents - 1; i >= 0; i-- {
		id := ecs.ComponentID(i)
		if ecs.ComponentName(id) == fmt.Sprintf("component#%d", i) {
			return id, true
		}
	}
	return 0, false
}

// checkClosureWorldQueries: the world's read calls made by a closure answer as documented:
// ComponentName and Component.Name give the name NewComponent was given; World.MaskOf is the
// entity's component set (ecs.MaskOf of its ids) and 0 for a destroyed entity or another
// world's; Bundle.Mask
// is the set a bundle names and ecs.ValueOf reads a value it holds (false for one it does
// not); an entity's WorldID is its world's ID, a replica has the same ID and a new world
// another; Slots is at least Len; Storage is the storage the world was made with and
// ecs.ParseStorage reads its name back (an unknown name is an error naming it);
// StorageBytes is positive.
func checkClosureWorldQueries(x *fixture) {
	e := x.create(x.w, pt(1, 1).With(vl(2, 2)))
	d := x.create(x.w, pt(3, 3))
	if err := x.w.Destroy(d); err != nil {
		x.Fatalf("setup: destroy: %v", err)
	}
	foreign := x.create(x.newWorld(), life(1))
	var errs []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	r := x.rec()
	r.Do(func(w *ecs.World) error {
		pos, vel := workload.Position.ID(), workload.Velocity.ID()
		check(ecs.ComponentName(pos) == "Position" && workload.Position.Name() == "Position",
			"ComponentName of Position: got %q and %q, want \"Position\"", ecs.ComponentName(pos), workload.Position.Name())
		check(w.MaskOf(e) == ecs.MaskOf(pos, vel), "MaskOf(e): got %b, want %b", w.MaskOf(e), ecs.MaskOf(pos, vel))
		check(w.MaskOf(e).Has(vel) && !w.MaskOf(e).Has(workload.Lifetime.ID()), "MaskOf(e).Has: wrong for Velocity or Lifetime")
		check(w.MaskOf(d) == 0, "MaskOf of a destroyed entity: got %b, want 0", w.MaskOf(d))
		check(w.MaskOf(foreign) == 0, "MaskOf of another world's entity: got %b, want 0", w.MaskOf(foreign))
		b := pt(5, 6).With(life(7))
		check(b.Mask() == ecs.MaskOf(pos, workload.Lifetime.ID()), "Bundle.Mask: got %b, want %b", b.Mask(), ecs.MaskOf(pos, workload.Lifetime.ID()))
		if v, ok := ecs.ValueOf(workload.Position, b); !ok || v != v2(5, 6) {
			errs = append(errs, fmt.Sprintf("ValueOf(Position) of a bundle holding (5, 6): got %v, %v", v, ok))
		}
		if l, ok := ecs.ValueOf(workload.Lifetime, b); !ok || l.Remaining != 7 {
			errs = append(errs, fmt.Sprintf("ValueOf(Lifetime) of a bundle holding 7: got %v, %v", l, ok))
		}
		if v, ok := ecs.ValueOf(workload.Velocity, b); ok || v != (workload.Vec2{}) {
			errs = append(errs, fmt.Sprintf("ValueOf(Velocity) of a bundle without it: got %v, %v; want the zero value, false", v, ok))
		}
		check(e.WorldID() == w.ID(), "WorldID of e: got %d, want the world's ID %d", e.WorldID(), w.ID())
		check(w.Replica().ID() == w.ID(), "a replica's ID: got %d, want %d", w.Replica().ID(), w.ID())
		check(ecs.NewWorld().ID() != w.ID(), "a new world has the ID %d of an existing one", w.ID())
		check(w.Slots() >= w.Len() && w.Slots() >= 2, "Slots: got %d with Len %d after two creates", w.Slots(), w.Len())
		check(w.Storage() == x.store, "Storage: got %v, want %v", w.Storage(), x.store)
		if st, err := ecs.ParseStorage(w.Storage().String()); err != nil || st != w.Storage() {
			errs = append(errs, fmt.Sprintf("ParseStorage(%q): got %v, %v; want %v", w.Storage().String(), st, err, w.Storage()))
		}
		if _, err := ecs.ParseStorage("nosuch"); err == nil || !strings.Contains(err.Error(), "nosuch") {
			errs = append(errs, fmt.Sprintf("ParseStorage of an unknown name: got %v, want an error naming it", err))
		}
		check(w.StorageBytes() > 0, "StorageBytes of a world with entities: got %d", w.StorageBytes())
		return nil
	})
	x.commit("commit of a closure reading the world", x.s)
	for _, s := range errs {
		x.Errorf("in a closure: %s", s)
	}
}

// checkClosureReplicaCopy: World.CopyFrom, called by a closure on a replica, makes it
// identical to its world (equal Hash, Len, handles and values) and counts as a change of the
// replica (its Changes advance); it refuses, changing nothing, a copy from itself and from a
// world that is not its replica (ecs.ErrNotReplica) and a copy into a frozen replica
// (ecs.ErrIterating). A replica made by World.Replica starts identical.
func checkClosureReplicaCopy(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	var rep *ecs.World
	var errs []string
	r := x.rec()
	r.Do(func(w *ecs.World) error {
		rep = w.Replica()
		if rep.Hash() != w.Hash() || rep.Len() != w.Len() {
			errs = append(errs, "a new replica differs from its world")
		}
		return nil
	})
	r.Do(func(w *ecs.World) error {
		if err := workload.Position.Set(w, e, v2(2, 2)); err != nil {
			return err
		}
		_, err := w.Create(vl(3, 3))
		return err
	})
	r.Do(func(w *ecs.World) error {
		h, changes := rep.Hash(), rep.Changes()
		for _, c := range []struct {
			what     string
			src      *ecs.World
			sentinel error
		}{{"itself", rep, ecs.ErrNotReplica}, {"a world that is not its replica", ecs.NewWorld(ecs.WithStorage(x.store)), ecs.ErrNotReplica}} {
			if err := rep.CopyFrom(c.src); !errors.Is(err, c.sentinel) || rep.Hash() != h || rep.Changes() != changes {
				errs = append(errs, fmt.Sprintf("CopyFrom %s: got %v (Hash or Changes changed: %v), want an error wrapping %v and no change",
					c.what, err, rep.Hash() != h || rep.Changes() != changes, c.sentinel))
			}
		}
		thaw := rep.Freeze()
		if err := rep.CopyFrom(w); !errors.Is(err, ecs.ErrIterating) || rep.Hash() != h {
			errs = append(errs, fmt.Sprintf("CopyFrom into a frozen replica: got %v, want an error wrapping %v and no change", err, ecs.ErrIterating))
		}
		thaw()
		if err := rep.CopyFrom(w); err != nil {
			return err
		}
		if rep.Changes() == changes {
			errs = append(errs, "CopyFrom: the replica's Changes did not advance")
		}
		return nil
	})
	x.commit("commit of closures copying the world into a replica", x.s)
	for _, s := range errs {
		x.Errorf("in a closure: %s", s)
	}
	if rep == nil {
		return
	}
	x.wantHash("replica after CopyFrom", rep, x.w.Hash())
	want(x, "replica Len after CopyFrom", rep.Len(), x.w.Len())
	want(x, "position of e in the replica", x.pos("replica", rep, e), v2(2, 2))
}
