package conformance

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkClosureWorldCalls: the world's own primitives called by closures have their documented
// effect at the closure's place in the commit, on either storage. ecs.Create2 makes an entity
// with both values; World.TryChange gives an entity a bundle's components (overwriting one it
// has) and takes those of its remove mask it has, in one move of its row (World.Moves counts
// one per change of the component set); a component in both the bundle and the remove mask
// ends removed; on a dead entity TryChange reports live false and changes nothing; while a
// query iterates, a TryChange that adds a component fails with ecs.ErrIterating and changes
// nothing. Values are read back, not compared with another world: a fault of the world would
// be shared.
func checkClosureWorldCalls(x *fixture) {
	velOnly := ecs.MaskOf(workload.Velocity.ID())
	e := x.create(x.w, pt(1, 1).With(vl(2, 2)))
	d := x.create(x.w, pt(9, 9))
	if err := x.w.Destroy(d); err != nil {
		x.Fatalf("setup: destroy: %v", err)
	}
	n0, moves0 := x.w.Len(), x.w.Moves()
	var made ecs.Entity
	var deadLive bool
	var deadErr, iterErr error
	var velWhileIterating workload.Vec2
	var hadVel bool
	r := x.rec()
	var dupErr error
	r.Do(func(w *ecs.World) (err error) {
		_, dupErr = ecs.Create2(w, workload.Position, v2(1, 1), workload.Position, v2(2, 2))
		made, err = ecs.Create2(w, workload.Position, v2(3, 3), workload.Velocity, v2(4, 4))
		return err
	})
	r.Do(func(w *ecs.World) error {
		b := pt(5, 5).With(life(2))
		_, err := w.TryChange(e, &b, velOnly)
		return err
	})
	r.Do(func(w *ecs.World) error {
		b := life(3)
		deadLive, deadErr = w.TryChange(d, &b, 0)
		return nil
	})
	r.Do(func(w *ecs.World) error {
		for range w.Query(ecs.MaskOf(workload.Position.ID())) {
			b := life(7)
			_, iterErr = w.TryChange(made, &b, 0)
			break
		}
		velWhileIterating, hadVel = vel(w, made)
		return nil
	})
	r.Do(func(w *ecs.World) error {
		b := vl(8, 8)
		_, err := w.TryChange(made, &b, velOnly) // in both: ends removed
		return err
	})
	x.commit("commit of closures calling Create2 and TryChange", x.s)

	if !x.w.Alive(made) {
		x.Fatalf("the entity Create2 made in a closure is not alive")
	}
	want(x, "Len after the commit (a Create2 naming one component twice makes nothing)", x.w.Len(), n0+1)
	x.wantIs("Create2 naming one component twice", dupErr, ecs.ErrDuplicateComponent)
	want(x, "position of the entity Create2 made", x.pos("Create2", x.w, made), v2(3, 3))
	if !hadVel || velWhileIterating != v2(4, 4) {
		x.Errorf("velocity of the entity Create2 made, after a TryChange refused while a query iterated: got %v (present %v), want %v", velWhileIterating, hadVel, v2(4, 4))
	}
	x.wantIs("TryChange adding a component while a query iterates", iterErr, ecs.ErrIterating)
	if _, err := workload.Lifetime.Get(x.w, made); err == nil {
		x.Errorf("the TryChange refused while a query iterated added Lifetime anyway")
	}
	if v, has := vel(x.w, made); has {
		x.Errorf("a TryChange naming Velocity in its bundle and its remove mask left Velocity %v, want it removed", v)
	}
	want(x, "position after TryChange", x.pos("TryChange", x.w, e), v2(5, 5))
	if l, err := workload.Lifetime.Get(x.w, e); err != nil || l.Remaining != 2 {
		x.Errorf("Lifetime after TryChange: got %v, %v, want remaining 2", l, err)
	}
	if v, has := vel(x.w, e); has {
		x.Errorf("TryChange removing Velocity left it: %v", v)
	}
	if deadLive || deadErr != nil {
		x.Errorf("TryChange of a dead entity: got live %v, error %v; want false, nil", deadLive, deadErr)
	}
	if x.w.Alive(d) {
		x.Errorf("TryChange of a dead entity revived it")
	}
	if x.w.Storage() == ecs.Archetypes {
		// e: {Position, Velocity} to {Position, Lifetime}; made: {Position, Velocity} to
		// {Position}. Create2 places a row, which is no move.
		want(x, fmt.Sprintf("Moves on %v storage", x.w.Storage()), x.w.Moves()-moves0, uint64(2))
	}
}

// checkDuplicateComponentFails: a bundle that names one component twice fails the commit at
// its command — a create, an Add or a Set — with ecs.ErrDuplicateComponent in a
// *deferral.CommandError naming the command, changing nothing (no entity, no value); the
// command stays pending until Discard.
func checkDuplicateComponentFails(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	n := x.w.Len()
	for _, c := range []struct {
		what  string
		stage func(r *deferral.Recorder)
	}{
		{"a create", func(r *deferral.Recorder) { r.Create(pt(2, 2).With(pt(3, 3))) }},
		{"an Add", func(r *deferral.Recorder) { r.Add(e, vl(2, 2).With(vl(3, 3))) }},
		{"an Add of a component e has", func(r *deferral.Recorder) { r.Add(e, pt(2, 2).With(pt(3, 3))) }},
		{"a Set", func(r *deferral.Recorder) { r.Set(e, pt(2, 2).With(pt(3, 3))) }},
	} {
		r := x.rec()
		c.stage(r)
		err := x.s.Commit()
		op := "commit of " + c.what + " of a bundle naming one component twice"
		x.wantIs(op, err, ecs.ErrDuplicateComponent)
		var ce *deferral.CommandError
		if !errors.As(err, &ce) || ce.Pos != (deferral.Pos{Recorder: r.Index(), Index: 0}) {
			x.Errorf("%s: error %v, want a *deferral.CommandError at %+v", op, err, deferral.Pos{Recorder: r.Index(), Index: 0})
		}
		want(x, op+": entities", x.w.Len(), n)
		want(x, op+": position of e", x.pos(op, x.w, e), v2(1, 1))
		if v, has := vel(x.w, e); has {
			x.Errorf("%s: e has velocity %v, want none", op, v)
		}
		want(x, op+": pending", x.s.Pending(), 1)
		want(x, op+": commands Discard dropped", x.s.Discard(), 1)
	}
}

// checkHandBuiltCommands: commands built by hand and staged with deferral.Recorder.Stage apply
// as the verbs do: a Remove and a Destroy ignore the values they carry (a Remove takes
// Command.Component, not a value's component), a Set and an Add write their bundle, a create
// with the zero placeholder makes an entity the report names.
func checkHandBuiltCommands(x *fixture) {
	e := x.create(x.w, pt(1, 1).With(vl(1, 1)))
	d := x.create(x.w, pt(2, 2))
	if _, err := x.s.TakeReport(); err != nil {
		x.Fatalf("setup: take report: %v", err)
	}
	r := x.rec()
	r.Stage(deferral.Command{Verb: deferral.VerbRemove, Entity: e, Component: workload.Velocity.ID(), Bundle: pt(9, 9)})
	r.Stage(deferral.Command{Verb: deferral.VerbDestroy, Entity: d, Bundle: vl(9, 9)})
	r.Stage(deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: pt(3, 3)})
	r.Stage(deferral.Command{Verb: deferral.VerbAdd, Entity: e, Bundle: life(4)})
	r.Stage(deferral.Command{Verb: deferral.VerbCreate, Bundle: pt(5, 5)})
	x.commit("commit of hand-built commands", x.s)
	if v, has := vel(x.w, e); has {
		x.Errorf("a hand-built Remove of Velocity carrying a Position value left Velocity %v", v)
	}
	want(x, "position of e after a hand-built Remove carrying a Position value and a Set", x.pos("e", x.w, e), v2(3, 3))
	if l, err := workload.Lifetime.Get(x.w, e); err != nil || l.Remaining != 4 {
		x.Errorf("Lifetime of e after a hand-built Add: %v, %v, want remaining 4", l, err)
	}
	if x.w.Alive(d) {
		x.Errorf("a hand-built Destroy carrying a value left its entity alive")
	}
	rep, err := x.s.TakeReport()
	if err != nil || len(rep.Created) != 1 {
		x.Fatalf("report after a hand-built create: %d created (%v), want 1", len(rep.Created), err)
	}
	want(x, "position of the hand-built create's entity", x.pos("created", x.w, rep.Created[0]), v2(5, 5))
	if rep.Destroyed != 1 {
		x.Errorf("report after a hand-built Destroy: %d destroyed, want 1", rep.Destroyed)
	}
}
