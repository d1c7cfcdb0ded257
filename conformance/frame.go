package conformance

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// populate fills w with n seeded particles.
func (x *fixture) populate(w *ecs.World, n int) {
	x.Helper()
	if err := workload.Populate(w, n, x.seed); err != nil {
		x.Fatalf("setup: populate: %v", err)
	}
}

// twin returns a Sim over a copy of x.w made by the same populate, to compare frames against.
func (x *fixture) twin(n int) (*ecs.World, *workload.Sim) {
	x.Helper()
	w := x.newWorld()
	x.populate(w, n)
	return w, workload.NewSim(x.on(w))
}

// checkFrameBadDt: a dt that is NaN, ±Inf, zero or negative is rejected with
// workload.ErrInvalidDt before anything changes: no movement, no decisions, nothing staged,
// no frame counted — for Step and StepParallel alike.
func checkFrameBadDt(x *fixture) {
	x.logSeed()
	x.populate(x.w, 50)
	sim := workload.NewSim(x.s)
	h := x.w.Hash()
	decided := 0
	decide := func(_ workload.View, rec *deferral.Recorder) error {
		decided++
		rec.Create(pt(0, 0))
		return nil
	}
	par := func(_ workload.View, _ int, _ []ecs.Entity, rec *deferral.Recorder) error {
		rec.Create(pt(0, 0))
		return nil
	}
	for _, dt := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -1, -math.SmallestNonzeroFloat64} {
		x.wantIs(fmt.Sprintf("step with dt %v", dt), sim.Step(dt, decide), workload.ErrInvalidDt)
		x.wantIs(fmt.Sprintf("parallel step with dt %v", dt), sim.StepParallel(dt, 3, par), workload.ErrInvalidDt)
	}
	x.wantHash("after the refused steps", x.w, h)
	want(x, "decision callbacks run by refused steps", decided, 0)
	want(x, "frames counted by refused steps", sim.Frame(), 0)
	want(x, "pending after refused steps", x.s.Pending(), 0)
	x.wantNil("a valid step after the refused ones", sim.Step(0.5, nil))
	want(x, "frames after the valid step", sim.Frame(), 1)
	if x.w.Hash() == h {
		x.Errorf("world hash after a valid step: unchanged, want the particles moved")
	}
}

// checkFrameOrder: a frame runs movement, then lifetime, then cleanup of the expired, then
// decisions (which see moved, aged survivors only), then commit; an entity created by the
// commit appears after it, unmoved and unaged, and first moves in the next frame.
func checkFrameOrder(x *fixture) {
	a := x.create(x.w, workload.Particle(v2(0, 0), v2(1, 0), 10))
	edge := x.create(x.w, workload.Particle(v2(5, 5), v2(1, 1), 1))    // reaches 0: expires
	dying := x.create(x.w, workload.Particle(v2(6, 6), v2(1, 1), 0.5)) // below 0: expires
	still := x.create(x.w, pt(7, 7).With(life(3)))                     // ages, does not move
	mover := x.create(x.w, pt(8, 8).With(vl(1, 1)))                    // moves, does not age
	sim := workload.NewSim(x.s)
	var p ecs.Entity
	decided := 0
	err := sim.Step(1, func(v workload.View, rec *deferral.Recorder) error {
		decided++
		want(x, "view frame number", v.Frame(), 0)
		if got, _ := v.Position(a); got != v2(1, 0) {
			x.Errorf("decisions: position of a: got %v, want %v (movement runs before decisions)", got, v2(1, 0))
		}
		if got, _ := v.Lifetime(a); got.Remaining != 9 {
			x.Errorf("decisions: lifetime of a: got %v, want 9 (lifetime runs before decisions)", got.Remaining)
		}
		if got, _ := v.Lifetime(still); got.Remaining != 2 {
			x.Errorf("decisions: lifetime of a still particle: got %v, want 2", got.Remaining)
		}
		for _, e := range []ecs.Entity{edge, dying} {
			if v.Alive(e) {
				x.Errorf("decisions: expired entity %v: alive, want destroyed by cleanup before decisions", e)
			}
		}
		got := slices.Collect(v.Survivors())
		if wantS := []ecs.Entity{a, still, mover}; !slices.Equal(got, wantS) {
			x.Errorf("decisions: survivors: got %v, want %v (creation order, expired removed)", got, wantS)
		}
		p = rec.Create(workload.Particle(v2(100, 0), v2(1, 0), 10))
		rec.Set(a, vl(2, 0))
		return nil
	})
	x.wantNil("first frame", err)
	want(x, "decision callbacks in the first frame", decided, 1)
	want(x, "expired in the first frame", sim.Expired(), 2)
	want(x, "frames after the first", sim.Frame(), 1)
	e := x.resolve("entity created by the first frame's commit", x.s, p)
	want(x, "new entity's position after the frame that created it (unmoved)", x.pos("new", x.w, e), v2(100, 0))
	if l, _ := workload.Lifetime.Get(x.w, e); l.Remaining != 10 {
		x.Errorf("new entity's lifetime after the frame that created it: got %v, want 10 (unaged)", l.Remaining)
	}
	want(x, "a's position (moved at velocity 1, set to 2 after movement)", x.pos("a", x.w, a), v2(1, 0))
	want(x, "mover's position", x.pos("mover", x.w, mover), v2(9, 9))

	x.wantNil("second frame", sim.Step(1, nil))
	want(x, "new entity's position after the next frame (moves)", x.pos("new", x.w, e), v2(101, 0))
	if l, _ := workload.Lifetime.Get(x.w, e); l.Remaining != 9 {
		x.Errorf("new entity's lifetime after the next frame: got %v, want 9", l.Remaining)
	}
	want(x, "a's position after the second frame (new velocity)", x.pos("a", x.w, a), v2(3, 0))
	want(x, "expired in the second frame", sim.Expired(), 0)
	want(x, "frames after the second", sim.Frame(), 2)
}

// checkFrameReentry: decisions cannot mutate the world (structural calls fail with
// ecs.ErrIterating), nor start a frame, commit, discard or take the report (deferral.ErrReentry)
// — from a serial or a parallel producer; the refused calls change nothing, so the world after
// the frame equals a twin's that made no decisions.
func checkFrameReentry(x *fixture) {
	x.logSeed()
	const n = 20
	x.populate(x.w, n)
	tw, tsim := x.twin(n)
	sim := workload.NewSim(x.s)
	var first ecs.Entity
	for e := range x.w.Entities() {
		first = e
		break
	}
	probe := func(who string) {
		x.Helper()
		x.wantIs(who+": step from decisions", sim.Step(0.1, nil), deferral.ErrReentry)
		x.wantIs(who+": parallel step from decisions", sim.StepParallel(0.1, 2, nil), deferral.ErrReentry)
		x.wantIs(who+": commit from decisions", sim.Commit(), deferral.ErrReentry)
		_, err := sim.Discard()
		x.wantIs(who+": discard from decisions", err, deferral.ErrReentry)
		_, err = sim.TakeReport()
		x.wantIs(who+": take report from decisions", err, deferral.ErrReentry)
	}
	err := sim.Step(0.1, func(v workload.View, _ *deferral.Recorder) error {
		probe("serial decisions")
		w := x.w
		_, err := w.Create(pt(0, 0))
		x.wantIs("world create from decisions", err, ecs.ErrIterating)
		x.wantIs("world destroy from decisions", w.Destroy(first), ecs.ErrIterating)
		x.wantIs("world remove from decisions", w.Remove(first, workload.Velocity.ID()), ecs.ErrIterating)
		x.wantIs("world add from decisions", tags.Add(w, first, nil), ecs.ErrIterating)
		return nil
	})
	x.wantNil("frame with refused calls in its decisions", err)
	x.wantNil("twin frame without decisions", tsim.Step(0.1, nil))
	if x.w.Hash() != tw.Hash() {
		x.Errorf("world after a frame whose decisions only made refused calls: hash %#x, want the twin's %#x", x.w.Hash(), tw.Hash())
	}
	err = sim.StepParallel(0.1, 3, func(_ workload.View, chunk int, _ []ecs.Entity, _ *deferral.Recorder) error {
		probe(fmt.Sprintf("parallel decisions, chunk %d", chunk))
		return nil
	})
	x.wantNil("parallel frame with refused calls in its decisions", err)
	x.wantNil("second twin frame", tsim.Step(0.1, nil))
	if x.w.Hash() != tw.Hash() {
		x.Errorf("world after a parallel frame whose decisions only made refused calls: hash %#x, want the twin's %#x", x.w.Hash(), tw.Hash())
	}
}

// checkFrameDecisionError: when a decision callback fails, the simulation has advanced, what
// was staged stays pending, the next frame and the report are refused with
// deferral.ErrPending, and the caller either retries the commit (applying the staged
// commands) or discards them.
func checkFrameDecisionError(x *fixture) {
	x.logSeed()
	const n = 30
	x.populate(x.w, n)
	tw, tsim := x.twin(n)
	sim := workload.NewSim(x.s)
	errBoom := errors.New("conformance: decision failed on purpose")
	var victim ecs.Entity
	var p ecs.Entity
	failing := func(v workload.View, rec *deferral.Recorder) error {
		for e := range v.Survivors() {
			victim = e
			break
		}
		rec.Destroy(victim)
		p = rec.Create(workload.Particle(v2(0, 0), v2(0, 0), 5))
		return errBoom
	}
	x.wantIs("frame whose decisions fail", sim.Step(0.1, failing), errBoom)
	x.wantNil("twin frame without decisions", tsim.Step(0.1, nil))
	if x.w.Hash() != tw.Hash() {
		x.Errorf("world after failed decisions: hash %#x, want the twin's %#x (the simulation advanced, nothing staged applied)", x.w.Hash(), tw.Hash())
	}
	want(x, "frames after failed decisions (the simulation advanced)", sim.Frame(), 1)
	want(x, "pending after failed decisions", x.s.Pending(), 2)
	h := x.w.Hash()
	x.wantIs("next frame while commands are pending", sim.Step(0.1, nil), deferral.ErrPending)
	x.wantIs("next parallel frame while commands are pending", sim.StepParallel(0.1, 2, nil), deferral.ErrPending)
	_, err := sim.TakeReport()
	x.wantIs("take report while commands are pending", err, deferral.ErrPending)
	x.wantHash("refused frames", x.w, h)
	want(x, "frames after the refused frames", sim.Frame(), 1)

	x.wantNil("retry commit after failed decisions", sim.Commit())
	want(x, "pending after the retry", x.s.Pending(), 0)
	x.wantAlive("entity destroyed by the failed frame's decisions", x.w, victim, false)
	e := x.resolve("entity created by the failed frame's decisions", x.s, p)
	x.wantAlive("entity created by the failed frame's decisions", x.w, e, true)
	rep, err := sim.TakeReport()
	x.wantNil("take report after the retry", err)
	x.compareReport("report after the retry", rep, deferral.Report{Created: []ecs.Entity{e}, Destroyed: 1, Applied: 2})

	x.wantIs("second frame whose decisions fail", sim.Step(0.1, failing), errBoom)
	h = x.w.Hash()
	n2, err := sim.Discard()
	x.wantNil("discard after failed decisions", err)
	want(x, "discarded commands", n2, 2)
	x.wantHash("discard", x.w, h)
	x.wantAlive("victim of the discarded decisions", x.w, victim, true)
	x.wantNil("frame after discard", sim.Step(0.1, nil))

	err = sim.StepParallel(0.1, 3, func(v workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		rec.Create(pt(float64(chunk), 0))
		if chunk == 1 {
			return errBoom
		}
		return nil
	})
	x.wantIs("parallel frame with one failing producer", err, errBoom)
	want(x, "frames after the failing parallel frame", sim.Frame(), 4)
	want(x, "pending after a failing parallel frame (every producer's commands)", x.s.Pending(), 3)
	n3, err := sim.Discard()
	x.wantNil("discard after the failing parallel frame", err)
	want(x, "discarded commands of the failing parallel frame", n3, 3)

	x.wantNil("frame after discarding the parallel frame", sim.Step(0.1, nil))

	// A failing commit (not a failing decision) holds the next frame back the same way.
	var target ecs.Entity
	err = sim.Step(0.1, func(v workload.View, rec *deferral.Recorder) error {
		for e := range v.Survivors() {
			target = e
			break
		}
		rec.Add(target, pt(1, 2))
		rec.Remove(target, workload.Velocity.ID())
		rec.Set(target, vl(3, 4)) // fails: the remove before it took Velocity away
		rec.Create(pt(5, 6))
		return nil
	})
	x.wantFailedAt("frame whose commit fails", err, deferral.Pos{Recorder: 0, Index: 2}, ecs.ErrMissingComponent)
	want(x, "frames after the failing commit", sim.Frame(), 6)
	want(x, "pending after the failing commit", x.s.Pending(), 2)
	want(x, "position of the failing commit's target (prefix applied)", x.pos("target", x.w, target), v2(1, 2))
	h = x.w.Hash()
	x.wantIs("next frame after a failing commit", sim.Step(0.1, nil), deferral.ErrPending)
	x.wantHash("refused frame after a failing commit", x.w, h)
	n4, err := sim.Discard()
	x.wantNil("discard after the failing commit", err)
	want(x, "discarded commands of the failing commit", n4, 2)
	x.wantNil("frame after that discard", sim.Step(0.1, nil))
}
