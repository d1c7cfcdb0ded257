package workload_test

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/workload"
)

// A decision stages a closure that, when the commit runs it, stages a follow-up create (the
// strategies apply commands staged during a commit at the next one). The frame's commit
// succeeded, so the next frame must start (a new frame is refused only after a failed
// commit) and its commit applies the follow-up.
func TestFrameAfterClosureStagedFollowUp(t *testing.T) {
	w := ecs.NewWorld()
	s := cmdbuffer.Factory(w)
	sim := workload.NewSim(s)
	decide := func(v workload.View, rec *deferral.Recorder) error {
		if v.Frame() == 0 {
			rec.Do(func(*ecs.World) error {
				rec.Create(workload.Position.Value(workload.Vec2{X: 1}))
				return nil
			})
		}
		return nil
	}
	if err := sim.Step(0.1, decide); err != nil {
		t.Fatalf("frame 0: %v", err)
	}
	if err := sim.Step(0.1, decide); err != nil {
		t.Fatalf("frame 1 after a successful commit: %v", err)
	}
	if w.Len() != 1 {
		t.Errorf("world has %d entities after frame 1, want 1 (the follow-up)", w.Len())
	}
}
