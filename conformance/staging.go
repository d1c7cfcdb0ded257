package conformance

import (
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// bystanderPending is how many commands the variant's bystanders stage before the row's
// recorder (two each).
func (x *fixture) bystanderPending() int { return 2 * (x.v.recorders - 1) }

// checkInvalidRecord: a malformed command — a zero record staged with Stage (typed variant)
// or a nil closure staged with Do (closure variant) — never panics: it fails the commit with
// a *deferral.CommandError at its position wrapping deferral.ErrInvalidCommand, the commands
// before it stay applied, it and those after it stay pending, and Discard drops them.
func checkInvalidRecord(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Add(e, pt(1, 1)) // index 0: applied
	if x.v.closure {
		r.Do(nil) // index 1
	} else {
		r.Stage(deferral.Command{}) // index 1
	}
	r.Add(e, pt(2, 2)) // index 2: pending
	x.wantFailedAt("commit of a malformed command", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, deferral.ErrInvalidCommand)
	want(x, "position after the failed commit (prefix applied)", x.pos("e", x.w, e), v2(1, 1))
	want(x, "pending after the failed commit", x.s.Pending(), 2)
	x.wantFailedAt("retry of a malformed command", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, deferral.ErrInvalidCommand)
	want(x, "position after the retry (nothing replayed, nothing skipped past)", x.pos("e", x.w, e), v2(1, 1))
	want(x, "discard", x.s.Discard(), 2)
	x.commit("commit after discarding the malformed command", x.s)
	x.wantReport("malformed command", x.s, deferral.Report{Applied: 1})
}

// checkInvalidRecordStagedDuringCommit: a malformed command staged by a closure while a
// commit runs — a zero record (typed variant) or a nil closure (closure variant) — never
// panics, neither when staged nor in that commit, which drains: it belongs to the next
// commit, numbered 0 there (before what the recorder stages after the commit), which fails at
// it with a *deferral.CommandError wrapping deferral.ErrInvalidCommand; it and the commands
// after it stay pending through a retry until Discard drops them.
func checkInvalidRecordStagedDuringCommit(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Do(func(*ecs.World) error {
		if x.v.closure {
			r.Do(nil)
		} else {
			r.Stage(deferral.Command{})
		}
		r.Add(e, pt(2, 2))
		return nil
	})
	r.Add(e, pt(1, 1))
	x.commit("commit whose closure stages a malformed command", x.s)
	want(x, "position after that commit (what the closure staged is the next commit's)", x.pos("e", x.w, e), v2(1, 1))
	want(x, "pending after that commit", x.s.Pending(), 2)
	r.Add(e, pt(3, 3))
	at := deferral.Pos{Recorder: r.Index(), Index: 0}
	x.wantFailedAt("commit of the malformed command staged during the last commit", x.s.Commit(), at, deferral.ErrInvalidCommand)
	want(x, "position after the failed commit", x.pos("e", x.w, e), v2(1, 1))
	want(x, "pending after the failed commit", x.s.Pending(), 3)
	x.wantFailedAt("retry", x.s.Commit(), at, deferral.ErrInvalidCommand)
	want(x, "discard", x.s.Discard(), 3)
	x.commit("commit after discarding the malformed command", x.s)
	want(x, "position at the end", x.pos("e", x.w, e), v2(1, 1))
	x.wantReport("malformed command staged during a commit", x.s, deferral.Report{Applied: 2})
}

// checkHandBuiltRecords: command records built by hand and staged with Stage apply exactly as
// the verbs that build them: a create record with the zero placeholder makes an entity that is
// listed in the report, and add, set, remove and destroy records change the world as Add, Set,
// Remove and Destroy do, by the same lenient rules.
func checkHandBuiltRecords(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	d := x.create(x.w, pt(5, 5))
	r := x.rec()
	r.Stage(deferral.Command{Verb: deferral.VerbCreate, Bundle: pt(1, 1).With(vl(1, 1))})
	r.Stage(deferral.Command{Verb: deferral.VerbAdd, Entity: e, Bundle: vl(2, 2)})
	r.Stage(deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: pt(3, 3)})
	r.Stage(deferral.Command{Verb: deferral.VerbRemove, Entity: e, Component: workload.Velocity.ID()})
	r.Stage(deferral.Command{Verb: deferral.VerbRemove, Entity: e, Component: workload.Lifetime.ID()}) // missing: no-op
	r.Stage(deferral.Command{Verb: deferral.VerbDestroy, Entity: d})
	r.Stage(deferral.Command{Verb: deferral.VerbDestroy, Entity: d})               // second: ignored
	r.Stage(deferral.Command{Verb: deferral.VerbAdd, Entity: d, Bundle: vl(4, 4)}) // dead: skipped
	x.commit("hand-built records", x.s)
	want(x, "e's position after the set record", x.pos("e", x.w, e), v2(3, 3))
	_, ok := vel(x.w, e)
	want(x, "e has velocity after add then remove records", ok, false)
	x.wantAlive("entity of the destroy record", x.w, d, false)
	want(x, "live entities (e and the created one)", x.w.Len(), 2)
	var created ecs.Entity
	for c := range x.w.Entities() {
		if c != e {
			created = c
		}
	}
	want(x, "created entity's position", x.pos("created", x.w, created), v2(1, 1))
	v, ok := vel(x.w, created)
	if !ok || v != v2(1, 1) {
		x.Errorf("created entity's velocity: got %v (present %v), want {1 1}", v, ok)
	}
	x.wantReport("hand-built records", x.s, deferral.Report{
		Created: []ecs.Entity{created}, Destroyed: 1, IgnoredDestroys: 1, Skipped: 1, NoopRemoves: 1, Applied: 8,
	})
}

// checkPendingCounts: Pending counts every staged command — typed and closures, of every
// recorder — until it applies: after a drained commit it is 0, after a failed commit it is the
// failing command and the ones after it, and Discard returns it and leaves 0.
func checkPendingCounts(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	want(x, "pending of a fresh strategy", x.s.Pending(), 0)
	r := x.rec()
	by := x.bystanderPending()
	want(x, "pending after the bystanders staged", x.s.Pending(), by)
	o := x.s.NewRecorder()
	o.SetSortKey(x.v.key)
	c := r.Create(pt(1, 1))
	r.Do(func(*ecs.World) error { return nil })
	o.Add(e, pt(2, 2))
	o.Remove(e, workload.Velocity.ID())
	want(x, "pending with commands of two recorders", x.s.Pending(), by+4)
	x.commit("commit of everything staged", x.s)
	want(x, "pending after a drained commit", x.s.Pending(), 0)
	x.wantReport("commit of everything staged", x.s, deferral.Report{
		Created: []ecs.Entity{x.resolve("create", x.s, c)}, NoopRemoves: 1, Applied: 4,
	})

	r.Add(e, pt(3, 3))                   // 0: applied
	x.failing(r, e, v2(1, 1), new(bool)) // 1: fails
	r.Create(pt(4, 4))                   // 2: pending
	r.Do(func(*ecs.World) error { return nil })
	if x.s.Commit() == nil {
		x.Fatalf("commit with a failing command: got nil error")
	}
	want(x, "pending after a failed commit (the failing command and the two after it)", x.s.Pending(), 3)
	o.Add(e, pt(5, 5))
	want(x, "pending after staging more on another recorder", x.s.Pending(), 4)
	want(x, "discard", x.s.Discard(), 4)
	want(x, "pending after discard", x.s.Pending(), 0)
}

// checkRecorderReusable: a recorder stays usable for the strategy's whole life: what it
// stages after a drained commit, after a failed commit (applied by the retry), after the retry
// and after Discard applies at the next commit.
func checkRecorderReusable(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Add(e, pt(1, 1))
	x.commit("first commit", x.s)
	r.Add(e, pt(2, 2))
	x.commit("commit after a drained commit", x.s)
	want(x, "position staged after a drained commit", x.pos("e", x.w, e), v2(2, 2))

	broken := new(bool)
	x.failing(r, e, v2(3, 3), broken)
	if x.s.Commit() == nil {
		x.Fatalf("commit with a failing command: got nil error")
	}
	r.Add(e, pt(4, 4)) // staged after the failure: applied by the retry
	x.fixFailing(e, broken)
	x.commit("retry", x.s)
	want(x, "position staged after the failed commit", x.pos("e", x.w, e), v2(4, 4))
	r.Add(e, pt(5, 5))
	x.commit("commit after the retry", x.s)
	want(x, "position staged after the retry", x.pos("e", x.w, e), v2(5, 5))

	r.Add(e, pt(6, 6))
	want(x, "discard", x.s.Discard(), 1)
	r.Add(e, pt(7, 7))
	p := r.Create(pt(8, 8))
	x.commit("commit after discard", x.s)
	want(x, "position staged after discard", x.pos("e", x.w, e), v2(7, 7))
	ep := x.resolve("placeholder staged after discard", x.s, p)
	want(x, "its position", x.pos("created", x.w, ep), v2(8, 8))
	want(x, "pending at the end", x.s.Pending(), 0)
}

// checkAddThenRemove: an Add and a Remove of the same component in one commit apply in FIFO
// order: Add then Remove leaves the component absent, Remove then Add leaves it present with the
// added value, on an existing entity and on one created in the same commit.
func checkAddThenRemove(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	f := x.create(x.w, pt(0, 0).With(vl(9, 9)))
	r := x.rec()
	r.Add(e, vl(1, 1))
	r.Remove(e, workload.Velocity.ID())
	r.Remove(f, workload.Velocity.ID())
	r.Add(f, vl(2, 2))
	p := r.Create(pt(3, 3))
	r.Add(p, vl(3, 3))
	r.Remove(p, workload.Velocity.ID())
	q := r.Create(pt(4, 4).With(vl(9, 9)))
	r.Remove(q, workload.Velocity.ID())
	r.Add(q, vl(4, 4))
	x.commit("add and remove of one component in one commit", x.s)
	_, ok := vel(x.w, e)
	want(x, "add then remove: velocity present", ok, false)
	v, ok := vel(x.w, f)
	if !ok || v != v2(2, 2) {
		x.Errorf("remove then add: velocity got %v (present %v), want {2 2}", v, ok)
	}
	ep, eq := x.resolve("p", x.s, p), x.resolve("q", x.s, q)
	_, ok = vel(x.w, ep)
	want(x, "add then remove on a placeholder: velocity present", ok, false)
	v, ok = vel(x.w, eq)
	if !ok || v != v2(4, 4) {
		x.Errorf("remove then add on a placeholder: velocity got %v (present %v), want {4 4}", v, ok)
	}
	x.wantReport("add and remove of one component in one commit", x.s, deferral.Report{
		Created: []ecs.Entity{ep, eq}, Applied: 10,
	})
}

// checkCreateThenDestroy: a create and a destroy of its placeholder in one commit create the
// entity and destroy it: the report lists it in Created and counts the destroy, Resolve
// answers the (now dead) entity until the next commit, commands naming it after the destroy are
// skipped, and nothing else changes.
func checkCreateThenDestroy(x *fixture) {
	b := x.create(x.w, pt(9, 9))
	h := x.pos("bystander", x.w, b)
	r := x.rec()
	p := r.Create(pt(1, 1))
	r.Add(p, vl(1, 1))
	r.Destroy(p)
	r.Set(p, pt(2, 2)) // skipped: no error although the entity is gone
	x.commit("create then destroy of one placeholder", x.s)
	ep := x.resolve("placeholder created and destroyed", x.s, p)
	x.wantAlive("entity created and destroyed in one commit", x.w, ep, false)
	want(x, "live entities", x.w.Len(), 1)
	want(x, "bystander position", x.pos("bystander", x.w, b), h)
	x.wantReport("create then destroy of one placeholder", x.s, deferral.Report{
		Created: []ecs.Entity{ep}, Destroyed: 1, Skipped: 1, Applied: 4,
	})
	reuse := x.create(x.w, pt(3, 3)) // may take the freed slot
	r.Destroy(ep)
	x.commit("destroy of the dead entity in a later commit", x.s)
	x.wantAlive("entity created after", x.w, reuse, true)
	x.wantReport("destroy of the dead entity in a later commit", x.s, deferral.Report{IgnoredDestroys: 1, Applied: 1})
}

// checkResolveAcrossDiscard: a placeholder's answer lasts from the end of the commit that
// applied its create until the next commit starts: staging and Discard in between do not end
// it, and a failed commit and its retry count as one commit — a placeholder the failed commit
// applied resolves after the failure and to the same entity after the retry.
func checkResolveAcrossDiscard(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	p := r.Create(pt(1, 1))
	x.commit("commit of a create", x.s)
	ep := x.resolve("after the commit", x.s, p)
	r.Add(e, pt(2, 2))
	d := r.Create(pt(2, 2))
	want(x, "discard", x.s.Discard(), 2)
	got, err := x.s.Resolve(p)
	x.wantNil("resolve after staging and a discard", err)
	want(x, "resolve after staging and a discard", got, ep)
	_, err = x.s.Resolve(d)
	x.wantIs("resolve a discarded placeholder", err, deferral.ErrUnresolved)

	broken := new(bool)
	q := r.Create(pt(3, 3))
	x.failing(r, e, v2(1, 1), broken)
	if x.s.Commit() == nil {
		x.Fatalf("commit with a failing command: got nil error")
	}
	_, err = x.s.Resolve(p)
	x.wantIs("the earlier commit's placeholder once the next commit started", err, deferral.ErrUnresolved)
	eq := x.resolve("placeholder applied by the failed commit", x.s, q)
	x.fixFailing(e, broken)
	x.commit("retry", x.s)
	got, err = x.s.Resolve(q)
	x.wantNil("resolve after the retry", err)
	want(x, "resolve after the retry (one commit with the failed one)", got, eq)
	x.wantAlive("entity of the failed commit's create", x.w, eq, true)
	want(x, "live entities (e, p, q)", x.w.Len(), 3)
}

// checkRecorderNumbering: recorders are numbered in minting order for the strategy's whole
// life: a recorder minted after commits and a discard is numbered after the earlier ones, and
// a command error names it by that number.
func checkRecorderNumbering(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r0, r1 := x.s.NewRecorder(), x.s.NewRecorder()
	r0.Add(e, pt(1, 1))
	r1.Add(e, pt(1, 1))
	x.commit("first commit", x.s)
	r0.Add(e, pt(2, 2))
	want(x, "discard", x.s.Discard(), 1)
	r2 := x.s.NewRecorder()
	want(x, "index of a recorder minted after a commit and a discard", r2.Index(), 2)
	r2.Set(e, vl(1, 1)) // e lacks Velocity
	x.wantFailedAt("commit failing at the new recorder's command", x.s.Commit(), deferral.Pos{Recorder: 2, Index: 0}, ecs.ErrMissingComponent)
	want(x, "discard", x.s.Discard(), 1)
	want(x, "index of the next recorder", x.s.NewRecorder().Index(), 3)
}

// checkWriteToMissingSkipped: Add and Set naming an entity that does not exist — dead with its
// slot reused, the empty handle, or another world's entity with the same slot and generation
// as one here — are skipped and counted, and never reach the entity in that slot: a Set of a
// component that entity lacks is no error.
func checkWriteToMissingSkipped(x *fixture) {
	gone := x.create(x.w, pt(1, 1))
	if err := x.w.Destroy(gone); err != nil {
		x.Fatalf("setup: destroy: %v", err)
	}
	reuse := x.create(x.w, pt(2, 2))
	if reuse.Slot() != gone.Slot() {
		x.Fatalf("setup: the world did not reuse slot %d (got %d)", gone.Slot(), reuse.Slot())
	}
	other := x.newWorld()
	if err := other.Destroy(x.create(other, pt(0, 0))); err != nil {
		x.Fatalf("setup: destroy: %v", err)
	}
	foreign := x.create(other, pt(3, 3)) // same slot and generation as reuse, other world
	if foreign.Slot() != reuse.Slot() || foreign.Generation() != reuse.Generation() {
		x.Fatalf("setup: want another world's entity with slot %d generation %d, got %v", reuse.Slot(), reuse.Generation(), foreign)
	}
	h, ho := x.w.Hash(), other.Hash()
	r := x.rec()
	n := 0
	for _, e := range []ecs.Entity{gone, {}, foreign} {
		r.Add(e, pt(9, 9).With(vl(9, 9)))
		r.Set(e, vl(9, 9)) // the slot's occupant lacks Velocity: an error if it were reached
		r.Set(e, pt(9, 9))
		n += 3
	}
	x.commit("writes to entities that do not exist", x.s)
	x.wantHash("writes to entities that do not exist", x.w, h)
	x.wantHash("writes to a foreign entity (its world)", other, ho)
	want(x, "the slot's new occupant: position", x.pos("reuse", x.w, reuse), v2(2, 2))
	x.wantReport("writes to entities that do not exist", x.s, deferral.Report{Skipped: n, Applied: n})
}

// checkResolveDuringCommit: Resolve answers for the commit in progress: a closure that runs
// after a create (staged after it on the same recorder) resolves its placeholder to the
// created, live entity; a closure that runs before the create gets deferral.ErrUnresolved.
func checkResolveDuringCommit(x *fixture) {
	r := x.rec()
	var before, after error
	var during ecs.Entity
	var alive bool
	var p ecs.Entity
	r.Do(func(*ecs.World) error { _, before = x.s.Resolve(p); return nil })
	p = r.Create(pt(1, 1))
	r.Do(func(w *ecs.World) error {
		during, after = x.s.Resolve(p)
		alive = w.Alive(during)
		return nil
	})
	x.commit("commit whose closures resolve a placeholder", x.s)
	x.wantIs("resolve in a closure before the create applied", before, deferral.ErrUnresolved)
	x.wantNil("resolve in a closure after the create applied", after)
	want(x, "entity the closure resolved is alive then", alive, true)
	ep := x.resolve("after the commit", x.s, p)
	want(x, "entity the closure resolved", during, ep)
}
