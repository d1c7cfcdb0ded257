package main

import (
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/workload"
)

// The staging workloads: one command staged through cmdbuffer per op, by the generic tier,
// the documented calls of a Value or a bundle (Recorder.Set, Create, Add) and the calls that
// write the same records without building a Bundle (deferral.Set, Create2, Add2).
func init() {
	register("generic-stage", "cmdbuffer generic Recorder.Stage of a 16-byte command (Discard every 1024)", func() func(int) {
		var target struct{ sum float64 }
		buf := cmdbuffer.New(&target, func(t *struct{ sum float64 }, _ deferral.Pos, c *cmd16) error { t.sum += c.force; return nil })
		r := buf.NewRecorder()
		stage := func(n int) {
			k := 0
			for i := 0; i < n; i++ {
				if k == batch {
					buf.Discard()
					k = 0
				}
				r.Stage(cmd16{body: uint32(i), force: 1})
				k++
			}
			buf.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("set-stage", "ECS typed Set (Recorder.Set of Position.Value) staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w, ents := targets(batch)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				r.Set(ents[i&(batch-1)], workload.Position.Value(workload.Vec2{X: float64(i)}))
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("set-stage-generic", "ECS typed Set (deferral.Set of Position) staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w, ents := targets(batch)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				deferral.Set(r, ents[i&(batch-1)], workload.Position, workload.Vec2{X: float64(i)})
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("create-stage", "ECS create of two components (Recorder.Create of Position.Value(...).With(Velocity.Value(...))) staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w := ecs.NewWorld()
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				r.Create(workload.Position.Value(workload.Vec2{X: float64(i)}).With(workload.Velocity.Value(workload.Vec2{Y: 1})))
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("create-stage-generic", "ECS create of two components (deferral.Create2 of Position and Velocity) staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w := ecs.NewWorld()
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				deferral.Create2(r, workload.Position, workload.Vec2{X: float64(i)}, workload.Velocity, workload.Vec2{Y: 1})
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("add-stage", "ECS add of two components (Recorder.Add of Position.Value(...).With(Velocity.Value(...))) to an existing entity, staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w, ents := targets(batch)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				r.Add(ents[i&(batch-1)], workload.Position.Value(workload.Vec2{X: float64(i)}).With(workload.Velocity.Value(workload.Vec2{Y: 1})))
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("add-stage-generic", "ECS add of two components (deferral.Add2 of Position and Velocity) to an existing entity, staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w, ents := targets(batch)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				deferral.Add2(r, ents[i&(batch-1)], workload.Position, workload.Vec2{X: float64(i)}, workload.Velocity, workload.Vec2{Y: 1})
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("remove-stage", "ECS remove of two components (two Recorder.Remove calls, of Position and Velocity) from an existing entity, staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w, ents := targets(batch)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				e := ents[i&(batch-1)]
				r.Remove(e, workload.Position.ID())
				r.Remove(e, workload.Velocity.ID())
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
	register("remove2-stage", "ECS remove of two components (Recorder.Remove2 of Position and Velocity) from an existing entity, staged through cmdbuffer (Discard every 1024)", func() func(int) {
		w, ents := targets(batch)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		stage := func(n int) {
			for i := 0; i < n; i++ {
				r.Remove2(ents[i&(batch-1)], workload.Position.ID(), workload.Velocity.ID())
				if i&(batch-1) == batch-1 {
					st.Discard()
				}
			}
			st.Discard()
		}
		stage(4 * batch)
		return stage
	})
}
