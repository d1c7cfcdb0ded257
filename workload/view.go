package workload

import (
	"iter"

	"github.com/deferbench/deferbench/ecs"
)

// View is the read-only view of the world that a frame's decisions see: the survivors of the
// frame (entities alive after intrinsic cleanup) and their particle components. It offers no
// way to reach the ecs.World or to change it; changes go through the recorder. A View is valid
// only while the decision callback it was passed to runs. Its methods are safe for concurrent
// use by the callbacks of one StepParallel frame, and do not allocate.
type View struct {
	w         *ecs.World
	survivors []ecs.Entity
	frame     int
}

// NewView returns a read-only view of w for decisions of frame number frame, over survivors
// (the live entities in creation order, as the frame collected them). Sim builds its views
// itself; NewView is for frame drivers outside this package, such as hybrid's task graph.
// The view reads w without copying: w must not change while the view is in use.
func NewView(w *ecs.World, survivors []ecs.Entity, frame int) View {
	return View{w: w, survivors: survivors, frame: frame}
}

// Frame returns the number of the frame being decided, counting from 0 (Sim.Frame before the
// step).
func (v View) Frame() int { return v.frame }

// Len returns the number of survivors.
func (v View) Len() int { return len(v.survivors) }

// Survivors returns the survivors in creation order.
func (v View) Survivors() iter.Seq[ecs.Entity] {
	return func(yield func(ecs.Entity) bool) {
		for _, e := range v.survivors {
			if !yield(e) {
				return
			}
		}
	}
}

// Alive reports whether e is a live entity of the world (every survivor is).
func (v View) Alive(e ecs.Entity) bool { return v.w != nil && v.w.Alive(e) }

// Position returns e's position; ok is false when e is not alive or has none.
func (v View) Position(e ecs.Entity) (p Vec2, ok bool) { return get(v.w, Position, e) }

// Velocity returns e's velocity; ok is false when e is not alive or has none.
func (v View) Velocity(e ecs.Entity) (vel Vec2, ok bool) { return get(v.w, Velocity, e) }

// Lifetime returns e's remaining lifetime; ok is false when e is not alive or has none.
func (v View) Lifetime(e ecs.Entity) (l Life, ok bool) { return get(v.w, Lifetime, e) }

func get[T any](w *ecs.World, c ecs.Component[T], e ecs.Entity) (T, bool) {
	var zero T
	if w == nil {
		return zero, false
	}
	p := c.Ptr(w, e)
	if p == nil {
		return zero, false
	}
	return *p, true
}
