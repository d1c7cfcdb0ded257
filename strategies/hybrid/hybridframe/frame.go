package hybridframe

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/workload"
)

// Frame is the particle frame (the phases of workload.Sim.Step) as a static task graph over the
// hybrid strategy (package [github.com/deferbench/deferbench/strategies/hybrid]), compiled
// once and executed per Step:
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
// recorders in node order; render reads the world into a workload.RenderQueue, one workload.DrawCmd per
// entity with a Position (Mesh = slot, Material = generation, X and Y the position).
//
// The decisions see a view V built by the view function from the world, the survivors and the
// frame number (counted from 0); for package workload's decision rules pass workload.NewView.
// Movement, lifetime and cleanup are workload.Sim's own phases (workload.Move, Age, Cleanup), so with a commit-order-reproducible rule the
// world after each frame is the one workload.Sim.StepParallel reaches with the cmdbuffer strategy, for
// any P and GOMAXPROCS.
type Frame[V any] struct {
	// unfinished: the last frame's decisions or flush failed; the next frame is refused
	// while the commands it left are pending (a new frame would bury them). Commands that
	// closures staged for the next commit during a successful flush do not block it.
	unfinished bool
	s          *hybrid.ECS
	w          *ecs.World
	g          *hybrid.Graph
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
	end       func() // ends the strategy's decisions mark
	queue     workload.RenderQueue

	movement, flush, render *hybrid.Node
}

// New compiles the frame graph over strategy s with producers decide nodes.
// decide may be nil (no decisions; the decide nodes do nothing). The graph's workers default
// to GOMAXPROCS (see hybrid.Graph and SetWorkers). Errors: workload.ErrInvalidProducers when
// producers < 1.
func New[V any](s *hybrid.ECS, producers int, view func(w *ecs.World, survivors []ecs.Entity, frame int) V,
	decide func(v V, chunk int, part []ecs.Entity, rec *deferral.Recorder) error) (*Frame[V], error) {
	if producers < 1 {
		return nil, fmt.Errorf("new particle frame: producers %d: %w", producers, workload.ErrInvalidProducers)
	}
	w := s.World()
	f := &Frame[V]{s: s, w: w, g: hybrid.NewGraph(), view: view, decide: decide, parts: producers}
	g := f.g
	g.NameResource(w, "world")
	g.NameResource(&f.dead, "expired")
	g.NameResource(&f.survivors, "survivors")
	g.NameResource(&f.queue, "render queue")
	f.movement = g.AddNode("movement", f.move, hybrid.Write(w))
	g.AddNode("lifetime", f.age, hybrid.Write(w), hybrid.Write(&f.dead))
	g.AddNode("cleanup", f.cleanup, hybrid.Write(w), hybrid.Read(&f.dead))
	g.AddNode("survivors", f.collect, hybrid.Write(w), hybrid.Write(&f.survivors))
	for i := range producers {
		g.AddNode("decide["+strconv.Itoa(i)+"]", f.decider(i), hybrid.Read(w), hybrid.Read(&f.survivors), hybrid.Append(s))
	}
	g.AddNode("thaw", f.unfreeze, hybrid.Write(w))
	f.flush = g.AddFlushNode(s)
	f.render = g.AddNode("render", f.draw, hybrid.Read(w), hybrid.Write(&f.queue))
	if err := g.Compile(); err != nil {
		return nil, fmt.Errorf("new particle frame: %w", err)
	}
	return f, nil
}

// Graph returns the compiled frame graph (for SetWorkers, Edges, or a flush retry with
// FlushNode().Run).
func (f *Frame[V]) Graph() *hybrid.Graph { return f.g }

// FlushNode returns the frame's flush node.
func (f *Frame[V]) FlushNode() *hybrid.Node { return f.flush }

// Strategy returns the strategy the frame commits through.
func (f *Frame[V]) Strategy() *hybrid.ECS { return f.s }

// Frame returns the number of frames whose decisions ran (failed or not): the frame number the
// next Step's decisions see.
func (f *Frame[V]) Frame() int { return f.frame }

// Expired returns the number of entities the last frame's cleanup destroyed.
func (f *Frame[V]) Expired() int { return f.expired }

// Render returns the render queue the last frame's render node filled; it is rewritten by the
// next Step.
func (f *Frame[V]) Render() *workload.RenderQueue { return &f.queue }

// Step runs one frame of dt seconds: it executes the graph. Errors:
//   - workload.ErrInvalidDt (dt NaN, ±Inf, zero or negative), deferral.ErrReentry (called from a
//     decision), deferral.ErrPending (commands left pending by a failed frame), ecs.ErrIterating
//     (a query of the world is iterating): the frame did not start and nothing changed;
//   - a decision's error, in a *hybrid.NodeError naming its decide node: the simulation advanced, the
//     other decide nodes ran, flush and render were skipped, and the staged commands stay
//     pending;
//   - the flush's *deferral.CommandError, in a *hybrid.NodeError: the failure policy applies (prefix
//     applied, suffix pending) and render was skipped.
//
// A decision that panics fails its node the same way, with a *hybrid.PanicError (Execute recovers
// it); the world is thawed before Step returns whatever happened.
//
// In the last two cases call Commit (retry) or Discard before the next Step. The errors are
// wrapped with the frame number; match them with errors.Is and errors.As.
func (f *Frame[V]) Step(dt float64) error {
	if math.IsNaN(dt) || math.IsInf(dt, 0) || dt <= 0 {
		return fmt.Errorf("step: dt %v: %w", dt, workload.ErrInvalidDt)
	}
	if f.s.Deciding() {
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
func (f *Frame[V]) Commit() error {
	err := f.s.Commit()
	if err == nil && !f.s.Deciding() {
		f.unfinished = false
	}
	return err
}

// Discard drops the commands a failed frame left pending and returns how many. Errors:
// deferral.ErrReentry from inside decisions (nothing dropped).
func (f *Frame[V]) Discard() (int, error) {
	if f.s.Deciding() {
		return 0, fmt.Errorf("discard: %w", deferral.ErrReentry)
	}
	f.unfinished = false
	return f.s.Discard(), nil
}

// move: the movement phase.
func (f *Frame[V]) move(context.Context, *hybrid.Node) error {
	workload.Move(f.w, f.dt)
	return nil
}

// age: the lifetime phase; collect the expired.
func (f *Frame[V]) age(context.Context, *hybrid.Node) error {
	f.dead = workload.Age(f.w, f.dt, f.dead[:0])
	return nil
}

// cleanup: destroy the expired with the strict API (the simulation's own rule).
func (f *Frame[V]) cleanup(context.Context, *hybrid.Node) error {
	n, err := workload.Cleanup(f.w, f.dead)
	f.expired = n
	return err
}

// collect: the survivors in creation order; freeze the world for the decisions.
func (f *Frame[V]) collect(context.Context, *hybrid.Node) error {
	f.survivors = workload.Survivors(f.w, f.survivors[:0])
	f.decided = true
	f.thaw = f.w.Freeze()
	f.end = f.s.BeginDecisions()
	f.v = f.view(f.w, f.survivors, f.frame)
	return nil
}

// decider returns decide node i's body.
func (f *Frame[V]) decider(i int) hybrid.Func {
	return func(_ context.Context, n *hybrid.Node) error {
		if f.decide == nil {
			return nil
		}
		m := len(f.survivors)
		lo, hi := i*m/f.parts, (i+1)*m/f.parts
		return f.decide(f.v, i, f.survivors[lo:hi:hi], f.s.Recorder(n))
	}
}

// unfreeze: the decisions are over.
func (f *Frame[V]) unfreeze(context.Context, *hybrid.Node) error {
	var zero V
	f.v = zero
	f.end()
	f.thaw()
	f.thaw = nil
	return nil
}

// draw: one DrawCmd per entity with a Position, in creation order.
func (f *Frame[V]) draw(context.Context, *hybrid.Node) error {
	w := f.w
	f.queue.Reset()
	for e := range w.Query(ecs.MaskOf(workload.Position.ID())) {
		p := workload.Position.Ptr(w, e)
		f.queue.Submit(workload.DrawCmd{Mesh: e.Slot(), Material: e.Generation(), X: float32(p.X), Y: float32(p.Y)})
	}
	return nil
}
