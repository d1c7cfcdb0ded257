package conformance

import (
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkRemoveThenDestroy: removing a component and then destroying the same entity in one
// commit is no error — from one recorder, or from two in either apply order.
func checkRemoveThenDestroy(x *fixture) {
	e := x.create(x.w, pt(1, 1).With(vl(1, 1)))
	f := x.create(x.w, pt(2, 2).With(vl(2, 2)))
	b := x.create(x.w, pt(3, 3).With(vl(3, 3)))
	r0, r1 := x.s.NewRecorder(), x.s.NewRecorder()
	r0.Remove(e, workload.Velocity.ID())
	r0.Destroy(e)
	r0.Remove(f, workload.Velocity.ID())
	r1.Destroy(f)
	x.commit("remove then destroy in one commit", x.s)
	x.wantAlive("entity removed from then destroyed", x.w, e, false)
	x.wantAlive("entity removed from and destroyed by two recorders", x.w, f, false)
	if _, ok := vel(x.w, b); !ok {
		x.Errorf("bystander: velocity got none, want it kept")
	}
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	want(x, "report.Destroyed", rep.Destroyed, 2)
	want(x, "report.Applied", rep.Applied, 4)
	if x.caps.ReproducibleOrder {
		x.compareReport("remove then destroy", rep, deferral.Report{Destroyed: 2, Applied: 4})
	} else if rep.Skipped > 1 {
		x.Errorf("report.Skipped: got %d, want 0 or 1 (recorder 0's remove may come after recorder 1's destroy)", rep.Skipped)
	}
}

// checkDestroyTwice: destroying one entity twice — from one recorder, from two, through a
// placeholder, or again in a later commit after its slot was reused — destroys it once and
// ignores the rest, never touching the slot's new occupant.
func checkDestroyTwice(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	b := x.create(x.w, pt(2, 2))
	r0, r1 := x.s.NewRecorder(), x.s.NewRecorder()
	r0.Destroy(e)
	r1.Destroy(e)
	r0.Destroy(e)
	p := r0.Create(pt(3, 3))
	r0.Destroy(p)
	r0.Destroy(p)
	x.commit("destroy twice in one commit", x.s)
	x.wantAlive("destroyed entity", x.w, e, false)
	x.wantAlive("bystander", x.w, b, true)
	ep := x.resolve("placeholder destroyed twice", x.s, p)
	x.wantAlive("placeholder's entity", x.w, ep, false)
	x.wantReport("destroy twice in one commit", x.s, deferral.Report{
		Created: []ecs.Entity{ep}, Destroyed: 2, IgnoredDestroys: 3, Applied: 6,
	})

	reuse := x.create(x.w, pt(4, 4)) // takes a freed slot: e's or ep's
	if reuse.Slot() != e.Slot() && reuse.Slot() != ep.Slot() {
		x.Fatalf("setup: the world did not reuse a freed slot (got slot %d)", reuse.Slot())
	}
	r1.Destroy(e)
	r1.Destroy(ep)
	x.commit("destroy again after the slot was reused", x.s)
	x.wantAlive("the slot's new occupant", x.w, reuse, true)
	x.wantAlive("bystander", x.w, b, true)
	x.wantReport("destroy again after the slot was reused", x.s, deferral.Report{IgnoredDestroys: 2, Applied: 2})
}

// checkRemoveOnMissing: Remove naming an entity that does not exist — dead with its slot
// reused, empty, foreign — leaves every other entity intact, including the one now in the
// slot, and is no error.
func checkRemoveOnMissing(x *fixture) {
	a := x.create(x.w, pt(1, 1).With(vl(1, 1)))
	gone := x.create(x.w, pt(2, 2).With(vl(2, 2)))
	c := x.create(x.w, pt(3, 3).With(vl(3, 3)))
	if err := x.w.Destroy(gone); err != nil {
		x.Fatalf("setup: destroy: %v", err)
	}
	d := x.create(x.w, pt(4, 4).With(vl(4, 4))) // reuses gone's slot
	if d.Slot() != gone.Slot() {
		x.Fatalf("setup: the world did not reuse slot %d (got %d)", gone.Slot(), d.Slot())
	}
	other := x.newWorld()
	x.create(other, pt(0, 0))
	foreign := x.create(other, pt(5, 5).With(vl(5, 5)))
	h, ho := x.w.Hash(), other.Hash()
	r := x.s.NewRecorder()
	r.Remove(gone, workload.Velocity.ID())
	r.Remove(ecs.Entity{}, workload.Velocity.ID())
	r.Remove(foreign, workload.Velocity.ID())
	x.commit("remove on entities that do not exist", x.s)
	x.wantHash("remove on entities that do not exist", x.w, h)
	x.wantHash("remove on a foreign entity (its world)", other, ho)
	for _, e := range []ecs.Entity{a, c, d} {
		if _, ok := vel(x.w, e); !ok {
			x.Errorf("entity %v: velocity got none, want it kept", e)
		}
	}
	x.wantReport("remove on entities that do not exist", x.s, deferral.Report{Skipped: 3, Applied: 3})
}

// checkAddAndDestroyTwoRecorders: an Add from one recorder and a Destroy from another in the
// same commit is no error and leaves the entity destroyed in either order; with a reproducible
// order the Add applies when its recorder comes first and is skipped otherwise.
func checkAddAndDestroyTwoRecorders(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	f := x.create(x.w, pt(2, 2))
	r0, r1 := x.s.NewRecorder(), x.s.NewRecorder()
	r0.Add(e, vl(1, 1)) // recorder 0 adds, recorder 1 destroys
	r1.Destroy(e)
	r1.Add(f, vl(2, 2)) // recorder 0 destroys, recorder 1 adds
	r0.Destroy(f)
	x.commit("add and destroy from two recorders", x.s)
	x.wantAlive("entity added to by recorder 0, destroyed by recorder 1", x.w, e, false)
	x.wantAlive("entity destroyed by recorder 0, added to by recorder 1", x.w, f, false)
	want(x, "live entities", x.w.Len(), 0)
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	if x.caps.ReproducibleOrder {
		x.compareReport("add and destroy from two recorders", rep, deferral.Report{Destroyed: 2, Skipped: 1, Applied: 4})
		return
	}
	want(x, "report.Destroyed", rep.Destroyed, 2)
	want(x, "report.Applied", rep.Applied, 4)
	if rep.Skipped > 2 {
		x.Errorf("report.Skipped: got %d, want at most 2 (the adds that came after their destroy)", rep.Skipped)
	}
}
