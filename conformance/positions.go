package conformance

import (
	"errors"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkFailureAfterStagedRun: commands a closure stages during a commit that has a sort key in
// it (a buffer may then keep them as plain commands, not in its record stream) are numbered
// from 0 in the next commit, and a failing command after a run of ones that apply is named
// by its own index: the commands before it count, however the strategy applies the run.
func checkFailureAfterStagedRun(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.SetSortKey(1)
	r.Set(e, pt(1, 1))
	r.SetSortKey(0)
	r.Do(func(*ecs.World) error {
		r.Set(e, pt(2, 2))
		r.Set(e, pt(3, 3))
		r.Set(e, vl(1, 1)) // e lacks a velocity: index 2 of the next commit
		r.Set(e, pt(4, 4))
		return nil
	})
	x.commit("keyed commit whose closure stages a run", x.s)
	want(x, "pending after the keyed commit", x.s.Pending(), 4)
	at := deferral.Pos{Recorder: r.Index(), Index: 2}
	err := x.s.Commit()
	x.wantFailedAt("commit of the staged run", err, at, ecs.ErrMissingComponent)
	// No command error further down the chain names another position (nothing nested).
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ce, ok := e.(*deferral.CommandError); ok && ce.Pos != at {
			x.Errorf("commit of the staged run: the error names %+v inside %+v: %v", ce.Pos, at, err)
		}
	}
	want(x, "position after the failed commit (its prefix applied)", x.pos("e", x.w, e), v2(3, 3))
	want(x, "pending after the failed commit", x.s.Pending(), 2)
	if err := workload.Velocity.Add(x.w, e, v2(0, 0)); err != nil {
		x.Fatalf("setup: give e a velocity: %v", err)
	}
	x.commit("retry after the fix", x.s)
	want(x, "position after the retry", x.pos("e", x.w, e), v2(4, 4))
}

// checkClosureStrictCall: a closure that calls the World's strict API fails its command with
// the World's error: World.Add of a component the entity has is refused with
// ecs.ErrHasComponent (deferred Adds overwrite; the World's own Add does not), and the value
// stays.
func checkClosureStrictCall(x *fixture) {
	e := x.create(x.w, pt(1, 1))
	r := x.rec()
	r.Do(func(w *ecs.World) error { return w.Add(e, pt(5, 5)) })
	x.wantFailedAt("closure adding a component the entity has", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 0}, ecs.ErrHasComponent)
	want(x, "position after the refused add", x.pos("e", x.w, e), v2(1, 1))
	want(x, "discard of the failed closure", x.s.Discard(), 1)
}
