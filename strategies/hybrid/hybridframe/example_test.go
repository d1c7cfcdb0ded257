package hybridframe_test

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/hybrid/hybridframe"
	"github.com/deferbench/deferbench/workload"
)

// The particle frame as a graph: the decisions are split over four producer nodes that run in
// parallel, each with its own recorder; the flush commits them in node order, so the world is
// the same whatever the schedule.
func ExampleNew() {
	w := ecs.NewWorld()
	if err := workload.Populate(w, 1000, 42); err != nil {
		panic(err)
	}
	type view struct{ w *ecs.World }
	// Every survivor whose lifetime is about to run out spawns a child next to it.
	spawn := func(v view, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		for _, e := range part {
			if l := workload.Lifetime.Ptr(v.w, e); l.Remaining < 0.5 {
				p := workload.Position.Ptr(v.w, e)
				rec.Create(workload.Particle(*p, workload.Vec2{X: 1}, 2))
			}
		}
		return nil
	}
	s := hybrid.NewECS(w)
	f, err := hybridframe.New(s, 4, func(w *ecs.World, _ []ecs.Entity, _ int) view { return view{w} }, spawn)
	if err != nil {
		panic(err)
	}
	for range 20 {
		if err := f.Step(0.25); err != nil {
			panic(err)
		}
	}
	r, err := s.TakeReport()
	if err != nil {
		panic(err)
	}
	fmt.Println("frames:", f.Frame(), "spawned:", len(r.Created) > 0, "drawn:", len(f.Render().Draws) == w.Len())
	// Output: frames: 20 spawned: true drawn: true
}
