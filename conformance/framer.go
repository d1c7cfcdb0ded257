package conformance

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"github.com/deferbench/deferbench/conformance/internal/reference"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Framer is a frame loop of a strategy's own that runs the particle frame of
// workload.Sim.StepParallel — movement, lifetime, cleanup, decisions over the survivors in
// producers contiguous parts, each with a recorder of its own, then the commit — for
// example as a task graph (hybridframe.Frame).
type Framer interface {
	// Step runs one frame of dt seconds. Errors: workload.ErrInvalidDt for a dt that is NaN,
	// ±Inf, zero or negative, and ecs.ErrIterating while a query of the world iterates
	// (nothing runs, no frame counted); a decision's error, wrapped.
	Step(dt float64) error
	// Frame returns the number of frames whose decisions ran.
	Frame() int
}

// FrameRetrier is implemented by a Framer whose Step refuses to run while a failed frame's
// commands are pending: Step then fails with deferral.ErrPending, changing nothing and
// counting no frame, until Commit applies them (the failure policy: nil, or the commit's
// error with the suffix left pending) or Discard drops them and returns how many.
// TestFrame's FrameFailedFrameRetried row checks both ways out.
type FrameRetrier interface {
	Commit() error
	Discard() (int, error)
}

// FrameExpirer is implemented by a Framer that counts the entities the last frame's cleanup
// destroyed (their lifetime ran out); FrameMatchesSim compares it with workload.Sim.Expired.
type FrameExpirer interface{ Expired() int }

// MakeFramer returns a Framer over s, a strategy the suite's factory made, with producers
// decision parts running decide, whose views are workload.NewView's. decide may be nil (the
// frame decides nothing, as workload.Sim.StepParallel with nil decisions). Errors: one wrapping
// workload.ErrInvalidProducers when producers < 1.
type MakeFramer func(s deferral.Strategy, producers int, decide workload.ParallelDecisions) (Framer, error)

// TestFrame runs the frame suite against strategies f makes, with frame loops mk builds over
// them; each row is a subtest on a fresh World and strategy:
//
//	func TestConformanceFrame(t *testing.T) { conformance.TestFrame(t, hybrid.Factory, makeFrame) }
//
// FrameMatchesSim: with a decision rule whose outcome does not depend on the order of
// commands across recorders, every frame leaves the world workload.Sim.StepParallel leaves
// on a twin world over the reference strategy, for 1, 2 and 5 producers, and for 3 producers
// with nil decisions. FrameInvalidProducers: producers 0 or -1 make no Framer and return an
// error wrapping workload.ErrInvalidProducers. FrameRejectsBadDt:
// a bad dt changes nothing and counts no frame. FrameDecisionErrorReported: a decision's
// error comes back from Step, the world is left unfrozen, and after Discard the next frame
// runs.
func TestFrame(t *testing.T, f Factory, mk MakeFramer) {
	t.Helper()
	if mk == nil {
		t.Fatal("conformance.TestFrame: MakeFramer is nil")
	}
	frame := func(fn func(x *fixture, mk MakeFramer)) func(x *fixture) {
		return func(x *fixture) { fn(x, mk) }
	}
	rows := []row{
		{"FrameMatchesSim", frame(checkFramerMatchesSim), 0},
		{"FrameRejectsBadDt", frame(checkFramerBadDt), 0},
		{"FrameDecisionErrorReported", frame(checkFramerDecisionError), 0},
		{"FrameDecisionsRefuseSyncPoint", frame(checkFramerRefuseSyncPoint), 0},
		{"FrameRefusedWhileQueryIterates", frame(checkFramerIterating), 0},
		{"FrameInvalidProducers", frame(checkFramerInvalidProducers), 0},
	}
	if _, ok := probeFramer(t, f, mk).(FrameRetrier); ok {
		rows = append(rows, row{"FrameFailedFrameRetried", frame(checkFramerRetried), 0})
	}
	runRows(t, "TestFrame", f, rows)
}

// probeFramer returns a Framer mk makes over a strategy of f on an empty world, for the
// suite to see which optional interfaces it has; nil when f or mk fails (the rows report it).
func probeFramer(t *testing.T, f Factory, mk MakeFramer) Framer {
	t.Helper()
	if f == nil {
		return nil
	}
	s := f(ecs.NewWorld())
	defer s.Close()
	fr, err := mk(s, 1, func(workload.View, int, []ecs.Entity, *deferral.Recorder) error { return nil })
	if err != nil {
		return nil
	}
	return fr
}

// checkFramerRetried: after a frame whose decision failed, a FrameRetrier's Step fails with
// deferral.ErrPending and runs nothing while the frame's commands are pending; Commit applies
// them (every part's create) and the next Step runs; after a second failed frame Discard
// drops what it staged (one create per part) and the next Step runs. TestFrame runs the row
// for a FrameRetrier only.
func checkFramerRetried(x *fixture, mk MakeFramer) {
	x.populate(x.w, 60)
	errRule := errors.New("decision failed")
	fail := true
	fr := x.framer(mk, 3, func(_ workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		if chunk == 0 {
			rec.Create(pt(100, 100))
		}
		if chunk == 1 && fail {
			return errRule
		}
		return nil
	})
	rt := fr.(FrameRetrier) // TestFrame runs the row only for a FrameRetrier
	marked := func() int {
		n := 0
		for e := range x.w.Query(ecs.MaskOf(workload.Position.ID())) {
			if p := workload.Position.Ptr(x.w, e); p != nil && *p == v2(100, 100) {
				n++
			}
		}
		return n
	}
	for _, commit := range []bool{true, false} {
		how := map[bool]string{true: "Commit", false: "Discard"}[commit]
		fail = true
		x.wantIs("step whose second part fails", fr.Step(0.1), errRule)
		frames, pending, hash := fr.Frame(), x.s.Pending(), x.w.Hash()
		if pending == 0 {
			x.Fatalf("after a failed frame: nothing pending, want the frame's create")
		}
		fail = false
		x.wantIs("step while the failed frame's commands are pending", fr.Step(0.1), deferral.ErrPending)
		want(x, "frames after a refused step", fr.Frame(), frames)
		want(x, "pending after a refused step", x.s.Pending(), pending)
		if x.w.Hash() != hash {
			x.Errorf("a step refused with ErrPending changed the world")
		}
		before := marked()
		if commit {
			x.wantNil("Commit of the failed frame", rt.Commit())
			want(x, "entities the failed frame created, after Commit", marked(), before+1)
		} else {
			n, err := rt.Discard()
			x.wantNil("Discard of the failed frame", err)
			want(x, "commands Discard dropped", n, pending)
			want(x, "entities the failed frame created, after Discard", marked(), before)
		}
		want(x, "pending after "+how, x.s.Pending(), 0)
		x.wantNil("step after "+how, fr.Step(0.1))
		want(x, "frames after the step after "+how, fr.Frame(), frames+1)
	}
}

func (x *fixture) framer(mk MakeFramer, producers int, decide workload.ParallelDecisions) Framer {
	x.Helper()
	fr, err := mk(x.s, producers, decide)
	if err != nil {
		x.Fatalf("make framer with %d producers: %v", producers, err)
	}
	return fr
}

func checkFramerMatchesSim(x *fixture, mk MakeFramer) {
	x.logSeed()
	cases := []struct {
		p      int
		decide workload.ParallelDecisions
		name   string
	}{
		{1, workload.Replace(x.seed, 0.2), ""},
		{2, workload.Replace(x.seed, 0.2), ""},
		{5, workload.Replace(x.seed, 0.2), ""},
		{3, nil, " with nil decisions"},
	}
	for _, c := range cases {
		p := c.p
		w := x.newWorld()
		x.populate(w, 300)
		s := x.on(w)
		fr, err := mk(s, p, c.decide)
		if err != nil {
			x.Fatalf("make framer with %d producers%s: %v", p, c.name, err)
		}
		tw := x.newWorld()
		x.populate(tw, 300)
		sim := workload.NewSim(reference.Factory(reference.Ordered, reference.NoBug)(tw))
		for k := range 6 {
			op := fmt.Sprintf("%d producers%s, frame %d", p, c.name, k)
			x.wantNil(op+": step", fr.Step(0.25))
			x.wantNil(op+": reference step", sim.StepParallel(0.25, p, c.decide))
			if got, want := w.Hash(), tw.Hash(); got != want {
				x.Errorf("%s: world hash %#x, want %#x (workload.Sim.StepParallel's on a twin world): %d and %d live entities", op, got, want, w.Len(), tw.Len())
				break
			}
			want(x, op+": frames", fr.Frame(), sim.Frame())
			if ex, ok := fr.(FrameExpirer); ok {
				want(x, op+": entities the frame's cleanup destroyed", ex.Expired(), sim.Expired())
			}
		}
	}
}

func checkFramerBadDt(x *fixture, mk MakeFramer) {
	x.populate(x.w, 50)
	var decided atomic.Int32 // the two producers' decisions run concurrently
	fr := x.framer(mk, 2, func(_ workload.View, _ int, _ []ecs.Entity, rec *deferral.Recorder) error {
		decided.Add(1)
		rec.Create(pt(0, 0))
		return nil
	})
	h := x.w.Hash()
	for _, dt := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1} {
		x.wantIs(fmt.Sprintf("step with dt %v", dt), fr.Step(dt), workload.ErrInvalidDt)
	}
	x.wantHash("after the refused steps", x.w, h)
	want(x, "decisions run by refused steps", decided.Load(), 0)
	want(x, "frames counted by refused steps", fr.Frame(), 0)
	want(x, "pending after refused steps", x.s.Pending(), 0)
	x.wantNil("a valid step", fr.Step(0.5))
	want(x, "frames after the valid step", fr.Frame(), 1)
	want(x, "decisions run by the valid step", decided.Load(), 2)
}

// checkFramerRefuseSyncPoint: a decision that calls the strategy's Discard, Commit or
// TakeReport directly reaches no sync point: Discard drops nothing and returns 0, Commit and
// TakeReport fail with deferral.ErrReentry; the Framer's own Step (and a FrameRetrier's Commit
// and Discard) called from a decision fail with deferral.ErrReentry too, running no frame and
// dropping nothing; what the decisions staged is applied by the frame.
func checkFramerRefuseSyncPoint(x *fixture, mk MakeFramer) {
	x.populate(x.w, 20)
	calls := 0
	var fr Framer
	fr = x.framer(mk, 1, func(_ workload.View, _ int, _ []ecs.Entity, rec *deferral.Recorder) error {
		calls++
		rec.Create(pt(-1, -1))
		before := x.s.Pending()
		if got := x.s.Discard(); got != 0 || x.s.Pending() != before {
			x.Errorf("Discard from decisions dropped %d commands (pending %d -> %d), want 0", got, before, x.s.Pending())
		}
		x.wantIs("Commit from decisions", x.s.Commit(), deferral.ErrReentry)
		_, err := x.s.TakeReport()
		x.wantIs("TakeReport from decisions", err, deferral.ErrReentry)
		x.wantIs("the Framer's Step from decisions", fr.Step(0.1), deferral.ErrReentry)
		if rt, ok := fr.(FrameRetrier); ok {
			x.wantIs("the Framer's Commit from decisions", rt.Commit(), deferral.ErrReentry)
			n, err := rt.Discard()
			x.wantIs("the Framer's Discard from decisions", err, deferral.ErrReentry)
			if n != 0 || x.s.Pending() != before {
				x.Errorf("the Framer's Discard from decisions dropped %d commands (pending %d -> %d), want 0", n, before, x.s.Pending())
			}
		}
		return nil
	})
	x.wantNil("step", fr.Step(0.1))
	want(x, "decision calls", calls, 1)
	want(x, "frames after the step (the Step from decisions ran none)", fr.Frame(), 1)
	want(x, "pending after the frame", x.s.Pending(), 0)
	created := 0
	for e := range x.w.Query(ecs.MaskOf(workload.Position.ID())) {
		if p := workload.Position.Ptr(x.w, e); p != nil && *p == v2(-1, -1) {
			created++
		}
	}
	want(x, "entities the decision created, after the frame", created, 1)
}

func checkFramerDecisionError(x *fixture, mk MakeFramer) {
	x.populate(x.w, 60)
	errRule := errors.New("decision failed")
	fail := true
	fr := x.framer(mk, 3, func(_ workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		rec.Create(pt(float64(chunk), 0))
		if chunk == 1 && fail {
			return errRule
		}
		return nil
	})
	x.wantIs("step whose second part fails", fr.Step(0.1), errRule)
	if x.w.Iterating() {
		x.Fatalf("after a failed frame: the world is still frozen for decisions")
	}
	if _, err := x.w.Create(pt(9, 9)); err != nil {
		x.Errorf("direct create after a failed frame: %v, want nil", err)
	}
	x.s.Discard()
	fail = false
	frames := fr.Frame()
	x.wantNil("step after Discard", fr.Step(0.1))
	want(x, "pending after the next frame", x.s.Pending(), 0)
	want(x, "frames after the next frame", fr.Frame(), frames+1)
	for chunk := range 3 {
		found := false
		for e := range x.w.Query(ecs.MaskOf(workload.Position.ID())) {
			if p := workload.Position.Ptr(x.w, e); p != nil && *p == v2(float64(chunk), 0) && !x.w.Has(e, workload.Velocity.ID()) {
				found = true
			}
		}
		if !found {
			x.Errorf("after the next frame: no entity at (%d, 0), want part %d's create committed", chunk, chunk)
		}
	}
}

// checkFramerIterating: a Step while a query of the world iterates fails with
// ecs.ErrIterating before anything runs (no decision, no movement, no frame counted); after the
// query closes, the next Step runs.
func checkFramerIterating(x *fixture, mk MakeFramer) {
	x.populate(x.w, 40)
	var decided atomic.Int32
	fr := x.framer(mk, 2, func(_ workload.View, _ int, _ []ecs.Entity, rec *deferral.Recorder) error {
		decided.Add(1)
		return nil
	})
	h := x.w.Hash()
	q := ecs.NewQuery1(x.w, workload.Position)
	if !q.Next() {
		x.Fatalf("setup: the query visits nothing")
	}
	x.wantIs("step while a query iterates", fr.Step(0.5), ecs.ErrIterating)
	q.Close()
	x.wantHash("after the refused step", x.w, h)
	want(x, "decisions run by the refused step", decided.Load(), 0)
	want(x, "frames counted by the refused step", fr.Frame(), 0)
	x.wantNil("step after the query closed", fr.Step(0.5))
	want(x, "frames after the next step", fr.Frame(), 1)
}

// checkFramerInvalidProducers: producers 0 or -1 make no Framer; the error wraps
// workload.ErrInvalidProducers.
func checkFramerInvalidProducers(x *fixture, mk MakeFramer) {
	for _, p := range []int{0, -1} {
		fr, err := mk(x.s, p, func(workload.View, int, []ecs.Entity, *deferral.Recorder) error { return nil })
		x.wantIs(fmt.Sprintf("make framer with %d producers", p), err, workload.ErrInvalidProducers)
		if fr != nil && err != nil {
			x.Errorf("make framer with %d producers returned a Framer beside its error", p)
		}
	}
}
