package workload_test

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/workload"
)

// A frame whose decisions spawn a particle next to every survivor older than half a second.
// The new particles appear after the commit and do not move until the next frame.
func ExampleSim_Step() {
	w := ecs.NewWorld()
	if _, err := w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{X: 1}, 2)); err != nil {
		panic(err)
	}
	sim := workload.NewSim(cmdbuffer.NewECS(w))
	spawn := func(v workload.View, rec *deferral.Recorder) error {
		for e := range v.Survivors() {
			p, _ := v.Position(e)
			rec.Create(workload.Particle(workload.Vec2{X: p.X, Y: 5}, workload.Vec2{Y: 1}, 1))
		}
		return nil
	}
	if err := sim.Step(0.5, spawn); err != nil {
		panic(err)
	}
	for e := range w.Entities() {
		p, _ := workload.Position.Get(w, e)
		fmt.Println(p)
	}
	fmt.Println("frames:", sim.Frame())
	// Output:
	// {0.5 0}
	// {0.5 5}
	// frames: 1
}

// Replace with four producers: each chunk of survivors is decided on its own goroutine, and
// the result does not depend on their timing.
func ExampleReplace() {
	w := ecs.NewWorld()
	if err := workload.Populate(w, 1000, 42); err != nil {
		panic(err)
	}
	sim := workload.NewSim(cmdbuffer.NewECS(w))
	decide := workload.Replace(7, 0.1)
	for range 10 {
		if err := sim.StepParallel(0.1, 4, decide); err != nil {
			panic(err)
		}
	}
	r, err := sim.TakeReport()
	if err != nil {
		panic(err)
	}
	fmt.Println(sim.Frame(), r.Destroyed > 0, len(r.Created) > 0, r.IgnoredCreates > 0)
	// Output: 10 true true true
}
