package conformance

import (
	"errors"
	"fmt"
	"math"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkIdentity: the strategy names itself, is bound to its World, numbers its recorders from
// 0 in minting order, starts with nothing pending, commits nothing cleanly and reports empty.
func checkIdentity(x *fixture) {
	if x.s.Name() == "" {
		x.Errorf("name: got \"\", want a non-empty name")
	}
	if x.caps.Order == "" {
		x.Errorf("capabilities.Order: got \"\", want the cross-recorder order described in words")
	}
	if x.s.World() != x.w {
		x.Errorf("world: got %p, want the world passed to the factory %p", x.s.World(), x.w)
	}
	want(x, "pending of a fresh strategy", x.s.Pending(), 0)
	for i := range 3 {
		want(x, fmt.Sprintf("recorder %d: index", i), x.s.NewRecorder().Index(), i)
	}
	x.commit("commit with nothing staged", x.s)
	x.wantReport("report of an empty commit", x.s, deferral.Report{})
	want(x, "discard with nothing pending", x.s.Discard(), 0)
}

// checkAddOverwrites: Add of a component the entity has overwrites the value; Add of one it
// lacks adds it; a bundle does both at once.
func checkAddOverwrites(x *fixture) {
	e := x.create(x.w, pt(1, 2))
	r := x.rec()
	r.Add(e, pt(3, 4))
	x.commit("add of a present component", x.s)
	want(x, "position after add over it", x.pos("add", x.w, e), v2(3, 4))
	x.wantReport("add of a present component", x.s, deferral.Report{Applied: 1})

	r.Add(e, vl(5, 6))
	r.Add(e, pt(7, 8).With(vl(9, 10)))
	x.commit("add of a missing component, then a bundle over both", x.s)
	want(x, "position after bundle add", x.pos("bundle add", x.w, e), v2(7, 8))
	got, ok := vel(x.w, e)
	want(x, "velocity after bundle add: present", ok, true)
	want(x, "velocity after bundle add", got, v2(9, 10))
	want(x, "component set after adds", x.w.MaskOf(e), ecs.MaskOf(workload.Position.ID(), workload.Velocity.ID()))
	x.wantReport("adds", x.s, deferral.Report{Applied: 2})
}

// checkRemoveMissingNoop: Remove of a component the entity lacks is a counted no-op; Remove of
// one it has removes it.
func checkRemoveMissingNoop(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	h := x.w.Hash()
	r := x.rec()
	r.Remove(e, workload.Velocity.ID())
	r.Remove(e, workload.Lifetime.ID())
	x.commit("remove of missing components", x.s)
	x.wantHash("remove of missing components", x.w, h)
	x.wantReport("remove of missing components", x.s, deferral.Report{NoopRemoves: 2, Applied: 2})

	r.Remove(e, workload.Position.ID())
	r.Remove(e, workload.Position.ID()) // second one: missing by now
	x.commit("remove of a present component twice", x.s)
	want(x, "has position after remove", workload.Position.Has(x.w, e), false)
	x.wantAlive("entity after removing its last component", x.w, e, true)
	x.wantReport("remove of a present component twice", x.s, deferral.Report{NoopRemoves: 1, Applied: 2})

	// Removes that a closure stages during a commit with a sort key in it are applied by the
	// next commit, which has none: a recorder's commands may sit in another form by then (a
	// buffer keeps keyed commands apart from its plain ones), and the count holds there too.
	r.SetSortKey(1)
	r.Add(e, vl(1, 1))
	r.SetSortKey(0)
	r.Do(func(*ecs.World) error {
		r.Remove(e, workload.Lifetime.ID())
		r.Remove(e, workload.Velocity.ID())
		r.Remove(e, workload.Lifetime.ID())
		return nil
	})
	x.commit("keyed commit whose closure stages removes", x.s)
	want(x, "pending after the keyed commit", x.s.Pending(), 3)
	x.commit("removes a closure staged", x.s)
	want(x, "has velocity after the staged remove", workload.Velocity.Has(x.w, e), false)
	x.wantReport("removes a closure staged", x.s, deferral.Report{NoopRemoves: 2, Applied: 5})
}

// checkDestroyDeadIgnored: Destroy of a dead, stale, foreign or empty handle, or a second
// Destroy, is ignored and counted, and never touches a reused slot or a bystander.
func checkDestroyDeadIgnored(x *fixture) {
	cases := []struct {
		name string
		// setup returns the handle to destroy and the entity that must survive.
		setup     func(w *ecs.World) (target, survivor ecs.Entity)
		destroyed int
		ignored   int
	}{
		{"dead", func(w *ecs.World) (ecs.Entity, ecs.Entity) {
			survivor := x.create(w, pt(2, 2))
			e := x.create(w, pt(1, 1))
			if err := w.Destroy(e); err != nil {
				x.Fatalf("setup: destroy: %v", err)
			}
			return e, survivor // e's slot stays free
		}, 0, 1},
		{"stale", func(w *ecs.World) (ecs.Entity, ecs.Entity) {
			e := x.create(w, pt(1, 1))
			if err := w.Destroy(e); err != nil {
				x.Fatalf("setup: destroy: %v", err)
			}
			reuse := x.create(w, pt(2, 2))
			if reuse.Slot() != e.Slot() {
				x.Fatalf("setup: the world did not reuse slot %d (got %d); the stale case needs it", e.Slot(), reuse.Slot())
			}
			return e, reuse
		}, 0, 1},
		{"foreign", func(w *ecs.World) (ecs.Entity, ecs.Entity) {
			other := x.newWorld()
			x.create(other, pt(0, 0))
			f := x.create(other, pt(1, 1))
			same := x.create(w, pt(2, 2)) // same slot and generation as f, other world
			if same.Slot() != f.Slot() || same.Generation() != f.Generation() {
				x.Fatalf("setup: want an entity with the foreign handle's slot and generation")
			}
			return f, same
		}, 0, 1},
		{"empty", func(w *ecs.World) (ecs.Entity, ecs.Entity) {
			return ecs.Entity{}, x.create(w, pt(2, 2))
		}, 0, 1},
		{"twice", func(w *ecs.World) (ecs.Entity, ecs.Entity) {
			return x.create(w, pt(1, 1)), x.create(w, pt(2, 2))
		}, 1, 1},
	}
	for _, c := range cases {
		w, s := x.pair()
		x.create(w, pt(9, 9)) // a bystander in slot 0
		target, survivor := c.setup(w)
		n0 := w.Len()
		r := s.NewRecorder()
		r.Destroy(target)
		if c.name == "twice" {
			r.Destroy(target)
		}
		if c.destroyed == 0 {
			h := w.Hash()
			x.commit(c.name+" destroy", s)
			x.wantHash(c.name+" destroy", w, h)
		} else {
			x.commit(c.name+" destroy", s)
			x.wantAlive(c.name+" destroy: target", w, target, false)
		}
		x.wantAlive(c.name+" destroy: survivor", w, survivor, true)
		want(x, c.name+" destroy: live entities", w.Len(), n0-c.destroyed)
		x.wantReport(c.name+" destroy", s, deferral.Report{
			Destroyed: c.destroyed, IgnoredDestroys: c.ignored, Applied: c.destroyed + c.ignored,
		})
	}
}

// checkSkipAfterDestroy: every command naming an entity destroyed earlier in the same commit
// is skipped and counted — even a Set of a component it lacks, which is no error then.
func checkSkipAfterDestroy(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	b := x.create(x.w, pt(2, 2))
	hb := x.pos("bystander", x.w, b)
	r := x.rec()
	r.Destroy(e)
	r.Add(e, vl(1, 1))
	r.Set(e, vl(1, 1)) // e never had Velocity: an error if e were alive
	r.Remove(e, workload.Position.ID())
	x.commit("commands after destroy", x.s)
	x.wantAlive("destroyed entity", x.w, e, false)
	want(x, "bystander position", x.pos("bystander", x.w, b), hb)
	want(x, "live entities", x.w.Len(), 1)
	x.wantReport("commands after destroy", x.s, deferral.Report{Destroyed: 1, Skipped: 3, Applied: 4})
}

// checkSkipAfterDestroySlotReused: commands naming an entity destroyed earlier in the same
// commit — by a Destroy, or by a closure — are skipped, and a second Destroy of it ignored,
// also when a create of the same commit has since taken its slot: they never reach the new
// occupant, not even a Set of a component it lacks (no error) or a Destroy.
func checkSkipAfterDestroySlotReused(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	f := x.create(x.w, pt(2, 2))
	r := x.rec()
	r.Destroy(e)
	p := r.Create(pt(5, 5)) // takes e's slot in a world that reuses slots at once
	r.Add(e, vl(9, 9))
	r.Set(e, vl(9, 9)) // the new occupant lacks Velocity: an error if it were reached
	r.Remove(e, workload.Position.ID())
	r.Destroy(e)
	r.Do(func(w *ecs.World) error { return w.Destroy(f) })
	q := r.Create(pt(6, 6)) // takes f's slot
	r.Add(f, vl(9, 9))
	r.Set(f, pt(9, 9))
	r.Remove(f, workload.Position.ID())
	r.Destroy(f)
	x.commit("commands on entities destroyed earlier in the commit, their slots reused", x.s)
	ep, eq := x.resolve("p", x.s, p), x.resolve("q", x.s, q)
	x.wantAlive("entity destroyed by a command", x.w, e, false)
	x.wantAlive("entity destroyed by a closure", x.w, f, false)
	for _, c := range []struct {
		name string
		e    ecs.Entity
		pos  workload.Vec2
	}{{"new occupant of e's slot", ep, v2(5, 5)}, {"new occupant of f's slot", eq, v2(6, 6)}} {
		x.wantAlive(c.name, x.w, c.e, true)
		if x.w.Alive(c.e) {
			want(x, c.name+": position", x.pos(c.name, x.w, c.e), c.pos)
			if _, ok := vel(x.w, c.e); ok {
				x.Errorf("%s: has a velocity, want none (a write meant for the destroyed entity reached it)", c.name)
			}
		}
	}
	if ep.Slot() != e.Slot() || eq.Slot() != f.Slot() {
		x.Logf("the world did not reuse the destroyed slots in this commit (%v→%v, %v→%v): the check is weaker", e, ep, f, eq)
	}
	want(x, "live entities", x.w.Len(), 2)
	x.wantReport("commands on entities destroyed earlier in the commit", x.s, deferral.Report{
		Created: []ecs.Entity{ep, eq}, Destroyed: 1, IgnoredDestroys: 2, Skipped: 6, Applied: 12,
	})
}

// checkSetMissingFails: Set of a component the entity lacks fails the commit before changing
// anything, with a *deferral.CommandError wrapping ecs.ErrMissingComponent that names the
// recorder, the command's index in it, the verb and the component.
func checkSetMissingFails(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	r := x.rec()
	r.Set(e, pt(2, 2))
	x.commit("a drained commit before (indices restart after it)", x.s)
	x.wantReport("drained commit", x.s, deferral.Report{Applied: 1})

	r.Add(e, pt(3, 3))  // index 0
	r.Set(e, vl(4, 4))  // index 1: e lacks Velocity
	r.Set(e, pt(5, 5))  // index 2: stays pending
	err := x.s.Commit() // fails at index 1
	if err == nil {
		x.Fatalf("commit with a set of a missing component: got nil error, want a *deferral.CommandError wrapping %v", ecs.ErrMissingComponent)
	}
	x.wantIs("commit with a set of a missing component", err, ecs.ErrMissingComponent)
	var ce *deferral.CommandError
	if !errors.As(err, &ce) {
		x.Errorf("commit with a set of a missing component: got error %T %v, want a *deferral.CommandError", err, err)
	} else {
		want(x, "command error: position", ce.Pos, deferral.Pos{Recorder: r.Index(), Index: 1})
		want(x, "command error: verb", ce.Verb, deferral.VerbSet)
		want(x, "command error: component", ce.Component, workload.Velocity.Name())
	}
	if miss := errMessageHas(err, fmt.Sprintf("recorder %d", r.Index()), "command 1", "set", workload.Velocity.Name()); len(miss) > 0 {
		x.Errorf("command error message %q: lacks %q", err, miss)
	}
	want(x, "position after the failed commit (prefix applied, suffix not)", x.pos("after failure", x.w, e), v2(3, 3))
	want(x, "has velocity after the failed set", workload.Velocity.Has(x.w, e), false)
	want(x, "pending after the failed commit", x.s.Pending(), 2)
	want(x, "discard after the failed commit", x.s.Discard(), 2)
}

// checkCreateCulled: a Create whose components the workload marks invalid (a Lifetime ≤ 0 or
// NaN) makes no entity and no receipt, is counted in IgnoredCreates, and resolves to
// deferral.ErrCulled.
func checkCreateCulled(x *fixture) {
	r := x.rec()
	bad := []float64{0, -1, math.Inf(-1), math.NaN()}
	var ps []ecs.Entity
	for _, l := range bad {
		ps = append(ps, r.Create(workload.Particle(v2(1, 1), v2(1, 1), l)))
	}
	good := r.Create(workload.Particle(v2(2, 2), v2(1, 1), 1))
	x.commit("creates with invalid lifetimes", x.s)
	want(x, "live entities", x.w.Len(), 1)
	for i, p := range ps {
		_, err := x.s.Resolve(p)
		x.wantIs(fmt.Sprintf("resolve culled create (lifetime %v)", bad[i]), err, deferral.ErrCulled)
	}
	e := x.resolve("valid create", x.s, good)
	x.wantAlive("valid create", x.w, e, true)
	x.wantReport("creates with invalid lifetimes", x.s, deferral.Report{
		Created: []ecs.Entity{e}, IgnoredCreates: len(bad), Applied: len(bad) + 1,
	})
}
