package hybrid

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// ParticleFrame is the particle frame of SPEC §4.4 (workload's particles) as a static task
// graph over the hybrid strategy, compiled once and executed per Step:
//
//	movement → lifetime → cleanup → survivors ┬→ decide[0]   ┬→ thaw → flush(hybrid) → render
//	                                          ├→ …           │
//	                                          └→ decide[P-1] ┘ (append → flush)
//
// Every edge is derived from the declared accesses. movement, lifetime and cleanup write the
// world; survivors collects the survivors in creation order and freezes the world; each of the
// P decide nodes reads the world and appends to the strategy with its own recorder, deciding a
// contiguous part of the survivors (part i is survivors[i·n/P : (i+1)·n/P]) — they run in
// parallel on the graph's pool; thaw unfreezes; the derived flush commits, the decide nodes'
// recorders in node order; render reads the world into a workload.RenderQueue, one DrawCmd per
// entity with a Position (Mesh = slot, Material = generation, X and Y the position).
//
// The decisions see a view V built by the view function from the world, the survivors and the
// frame number (counted from 0); for workload's decision rules pass a constructor of
// workload.View. Movement, lifetime and cleanup do what workload.Sim does, so with a
// commit-order-reproducible rule the world after each frame is the one workload.Sim.StepParallel
// reaches with the cmdbuffer strategy, for any P and GOMAXPROCS.
type ParticleFrame[V any] struct {
	// unfinished: the last frame's decisions or flush failed; the next frame is refused
	// while the commands it left are pending (SPEC §4.3). Commands that closures staged for
	// the next commit during a successful flush do not block it.
	unfinished bool
	s          *ECS
	w          *ecs.World
	g          *Graph
	view       func(w *ecs.World, survivors []ecs.Entity, frame int) V
	decide     func(v V, chunk int, part []ecs.Entity, rec *deferral.Recorder) error
	parts      int

	dt        float64
	frame     int
	decided   bool
	expired   int
	dead      []ecs.Entity
	survivors []ecs.Entity
	v         V
	thaw      func()
	queue     workload.RenderQueue

	movement, flush, render *Node
}

// NewParticleFrame compiles the frame graph over strategy s with producers decide nodes.
// decide may be nil (no decisions; the decide nodes do nothing). The graph's workers default
// to GOMAXPROCS (see Graph and SetWorkers). Errors: workload.ErrInvalidProducers when
// producers < 1.
func NewParticleFrame[V any](s *ECS, producers int, view func(w *ecs.World, survivors []ecs.Entity, frame int) V,
	decide func(v V, chunk int, part []ecs.Entity, rec *deferral.Recorder) error) (*ParticleFrame[V], error) {
	if producers < 1 {
		return nil, fmt.Errorf("new particle frame: producers %d: %w", producers, workload.ErrInvalidProducers)
	}
	w := s.World()
	f := &ParticleFrame[V]{s: s, w: w, g: NewGraph(), view: view, decide: decide, parts: producers}
	g := f.g
	g.NameResource(w, "world")
	g.NameResource(&f.dead, "expired")
	g.NameResource(&f.survivors, "survivors")
	g.NameResource(&f.queue, "render queue")
	f.movement = g.AddNode("movement", f.move, Write(w))
	g.AddNode("lifetime", f.age, Write(w), Write(&f.dead))
	g.AddNode("cleanup", f.cleanup, Write(w), Read(&f.dead))
	g.AddNode("survivors", f.collect, Write(w), Write(&f.survivors))
	for i := range producers {
		g.AddNode("decide["+strconv.Itoa(i)+"]", f.decider(i), Read(w), Read(&f.survivors), Append(s))
	}
	g.AddNode("thaw", f.unfreeze, Write(w))
	f.flush = g.AddFlushNode(s)
	f.render = g.AddNode("render", f.draw, Read(w), Write(&f.queue))
	if err := g.Compile(); err != nil {
		return nil, fmt.Errorf("new particle frame: %w", err)
	}
	return f, nil
}

// Graph returns the compiled frame graph (for SetWorkers, Edges, or a flush retry with
// FlushNode().Run).
func (f *ParticleFrame[V]) Graph() *Graph { return f.g }

// FlushNode returns the frame's flush node.
func (f *ParticleFrame[V]) FlushNode() *Node { return f.flush }

// Strategy returns the strategy the frame commits through.
func (f *ParticleFrame[V]) Strategy() *ECS { return f.s }

// Frame returns the number of frames whose decisions ran (failed or not): the frame number the
// next Step's decisions see.
func (f *ParticleFrame[V]) Frame() int { return f.frame }

// Expired returns the number of entities the last frame's cleanup destroyed.
func (f *ParticleFrame[V]) Expired() int { return f.expired }

// Render returns the render queue the last frame's render node filled; it is rewritten by the
// next Step.
func (f *ParticleFrame[V]) Render() *workload.RenderQueue { return &f.queue }

// Step runs one frame of dt seconds: it executes the graph. Errors:
//   - workload.ErrInvalidDt (dt NaN, ±Inf, zero or negative), deferral.ErrReentry (called from a
//     decision), deferral.ErrPending (commands left pending by a failed frame), ecs.ErrIterating
//     (a query of the world is iterating): the frame did not start and nothing changed;
//   - a decision's error, in a *NodeError naming its decide node: the simulation advanced, the
//     other decide nodes ran, flush and render were skipped, and the staged commands stay
//     pending;
//   - the flush's *deferral.CommandError, in a *NodeError: the failure policy applies (prefix
//     applied, suffix pending) and render was skipped.
//
// A decision that panics fails its node the same way, with a *PanicError (Execute recovers
// it); the world is thawed before Step returns whatever happened.
//
// In the last two cases call Commit (retry) or Discard before the next Step. The errors are
// wrapped with the frame number; match them with errors.Is and errors.As.
func (f *ParticleFrame[V]) Step(dt float64) error {
	if math.IsNaN(dt) || math.IsInf(dt, 0) || dt <= 0 {
		return fmt.Errorf("step: dt %v: %w", dt, workload.ErrInvalidDt)
	}
	if f.s.deciding.Load() > 0 {
		return fmt.Errorf("step: %w", deferral.ErrReentry)
	}
	if f.unfinished {
		if n := f.s.Pending(); n > 0 {
			return fmt.Errorf("step: %d commands pending after a failed frame: %w", n, deferral.ErrPending)
		}
		f.unfinished = false
	}
	if f.w.Iterating() {
		return fmt.Errorf("step: %w", ecs.ErrIterating)
	}
	f.dt, f.decided = dt, false
	err := f.g.Execute(context.Background())
	if f.thaw != nil { // a decision failed, so thaw was skipped
		f.unfreeze(nil, nil)
	}
	frame := f.frame
	if f.decided {
		f.frame++
	}
	if err != nil {
		f.unfinished = true
		return fmt.Errorf("frame %d: %w", frame, err)
	}
	return nil
}

// Commit retries the commit of a failed frame (a no-op when nothing is pending). Errors:
// deferral.ErrReentry from inside decisions, or the commit's error (failure policy).
func (f *ParticleFrame[V]) Commit() error {
	err := f.s.Commit()
	if err == nil && f.s.deciding.Load() == 0 {
		f.unfinished = false
	}
	return err
}

// Discard drops the commands a failed frame left pending and returns how many. Errors:
// deferral.ErrReentry from inside decisions (nothing dropped).
func (f *ParticleFrame[V]) Discard() (int, error) {
	if f.s.deciding.Load() > 0 {
		return 0, fmt.Errorf("discard: %w", deferral.ErrReentry)
	}
	f.unfinished = false
	return f.s.Discard(), nil
}

// move: Position += Velocity·dt.
func (f *ParticleFrame[V]) move(context.Context, *Node) error {
	w, dt := f.w, f.dt
	for e := range w.Query(ecs.MaskOf(workload.Position.ID(), workload.Velocity.ID())) {
		p, v := workload.Position.Ptr(w, e), workload.Velocity.Ptr(w, e)
		p.X += v.X * dt
		p.Y += v.Y * dt
	}
	return nil
}

// age: Lifetime −= dt; collect the expired.
func (f *ParticleFrame[V]) age(context.Context, *Node) error {
	w, dt := f.w, f.dt
	dead := f.dead[:0]
	for e := range w.Query(ecs.MaskOf(workload.Lifetime.ID())) {
		l := workload.Lifetime.Ptr(w, e)
		l.Remaining -= dt
		if !(l.Remaining > 0) { // NaN expires too
			dead = append(dead, e)
		}
	}
	f.dead = dead
	return nil
}

// cleanup: destroy the expired with the strict API (the simulation's own rule).
func (f *ParticleFrame[V]) cleanup(context.Context, *Node) error {
	f.expired = 0
	for _, e := range f.dead {
		if err := f.w.Destroy(e); err != nil {
			return fmt.Errorf("cleanup: %w", err)
		}
		f.expired++
	}
	return nil
}

// collect: the survivors in creation order; freeze the world for the decisions.
func (f *ParticleFrame[V]) collect(context.Context, *Node) error {
	survivors := f.survivors[:0]
	for e := range f.w.Entities() {
		survivors = append(survivors, e)
	}
	f.survivors = survivors
	f.decided = true
	f.thaw = f.w.Freeze()
	f.s.deciding.Add(1)
	f.v = f.view(f.w, survivors, f.frame)
	return nil
}

// decider returns decide node i's body.
func (f *ParticleFrame[V]) decider(i int) Func {
	return func(_ context.Context, n *Node) error {
		if f.decide == nil {
			return nil
		}
		m := len(f.survivors)
		lo, hi := i*m/f.parts, (i+1)*m/f.parts
		return f.decide(f.v, i, f.survivors[lo:hi:hi], f.s.Recorder(n))
	}
}

// unfreeze: the decisions are over.
func (f *ParticleFrame[V]) unfreeze(context.Context, *Node) error {
	var zero V
	f.v = zero
	f.s.deciding.Add(-1)
	f.thaw()
	f.thaw = nil
	return nil
}

// draw: one DrawCmd per entity with a Position, in creation order.
func (f *ParticleFrame[V]) draw(context.Context, *Node) error {
	w := f.w
	f.queue.Reset()
	for e := range w.Query(ecs.MaskOf(workload.Position.ID())) {
		p := workload.Position.Ptr(w, e)
		f.queue.Submit(workload.DrawCmd{Mesh: e.Slot(), Material: e.Generation(), X: float32(p.X), Y: float32(p.Y)})
	}
	return nil
}
