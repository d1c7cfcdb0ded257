package bench

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// CmdsUnit is the metric Structural reports beside moves/op: the commands staged per op (3 for
// a spawn; 1 to 3, 2 on average, for an entity's status change). A strategy that applies them
// one by one moves a row per command on archetype storage, so moves/op below cmds/op is what a
// commit that merges an entity's commands saves.
const CmdsUnit = "cmds/op"

// StructuralWorkloads are the variants of Structural (workload=…): spawn and effects.
var StructuralWorkloads = []string{"spawn", "effects"}

// structuralBatch is how many ops (spawns, or entity changes) Structural stages between
// commits; spawnCleanup how many spawned entities it lets live before destroying them,
// untimed, so the world's size stays bounded whatever b.N(); effectEntities how many entities
// the effects churn changes per frame.
const (
	structuralBatch = 256
	spawnCleanup    = 16 * structuralBatch
	effectEntities  = 1024
)

// Structural times a workload of structural changes that a commit can apply entity by entity
// or merge per entity, one producer staging through one recorder of a strategy f makes, the
// strategy committing every 256 ops; an untimed batch warms the buffers first, and the last
// partial batch is committed inside the timed part. ns/op is per op, with B/op, allocs/op and
// cmds/op (CmdsUnit); on archetype storage also moves/op (MovesUnit), the rows the timed
// commits moved between tables, per op, as the strategy applies them, and rows/op (RowsUnit),
// those moves plus the rows creates placed.
//
// workload=spawn: one op is workload.Spawn, a create with Position and two adds (Velocity,
// Lifetime) through its placeholder; every 4096 spawned entities are destroyed with the timer
// stopped. workload=effects: one op is one entity's status change of workload.EffectChurn (1
// to 3 of six tag and data components added or removed, 2 on average) on 1024 entities, a
// frame every 1024 ops. The meters, when given, measure the timed part. Errors: f nil (the
// workloads measure strategies' commits; there is no baseline), an unknown workload, a
// commit's error, the strategy's Close.
func Structural(b B, f deferral.Factory, wl string, s ecs.Storage, meters ...Meter) error {
	if f == nil {
		return errors.New("structural: no baseline: the workload measures a strategy's commit; give a strategy")
	}
	var stage func(r *deferral.Recorder, i int) int // stages op i, returns its command count
	var afterCommit func(rep deferral.Report) bool  // true: a cleanup is due
	w := ecs.NewWorld(ecs.WithStorage(s))
	var spawned []ecs.Entity
	switch wl {
	case "spawn":
		stage = func(r *deferral.Recorder, i int) int {
			workload.Spawn(r, workload.Vec2{X: float64(i)}, workload.Vec2{Y: 1}, 10)
			return 3
		}
		afterCommit = func(rep deferral.Report) bool {
			spawned = append(spawned, rep.Created...)
			return len(spawned) >= spawnCleanup
		}
	case "effects":
		ents := make([]ecs.Entity, effectEntities)
		for i := range ents {
			e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}).With(workload.Velocity.Value(workload.Vec2{Y: 1})))
			if err != nil {
				return fmt.Errorf("structural setup: %w", err)
			}
			ents[i] = e
		}
		c, next := workload.NewEffectChurn(ents, 1), 0 // next: the ops staged, the warm-up's too
		stage = func(r *deferral.Recorder, _ int) int {
			j := next % effectEntities
			next++
			k := c.StageEntity(r, j)
			if j == effectEntities-1 {
				c.EndFrame()
			}
			return k
		}
		afterCommit = func(deferral.Report) bool { return false }
	default:
		return fmt.Errorf("structural: unknown workload %q (valid: spawn, effects)", wl)
	}
	st := f(w)
	r := st.NewRecorder()
	commit := func() (cleanup bool, err error) {
		Handover(st, r)
		if err := st.Commit(); err != nil {
			return false, fmt.Errorf("structural %s: %w", wl, err)
		}
		rep, err := st.TakeReport()
		if err != nil {
			return false, fmt.Errorf("structural %s: %w", wl, err)
		}
		return afterCommit(rep), nil
	}
	destroy := func() error {
		for _, e := range spawned {
			if err := w.Destroy(e); err != nil {
				return fmt.Errorf("structural %s cleanup: %w", wl, err)
			}
		}
		spawned = spawned[:0]
		return nil
	}
	moves := movesMeter{rows: true}
	cmds := 0 // commands staged in the timed part
	for pass := range 2 {
		n := structuralBatch
		if pass == 1 {
			for _, m := range meters { // the timed pass only
				m.Start(st)
			}
			moves.begin(w)
			b.ReportAllocs()
			b.ResetTimer()
			n = b.N()
		}
		cmds = 0
		for i := 0; i < n; i++ {
			cmds += stage(r, i)
			if i%structuralBatch != structuralBatch-1 && i != n-1 {
				continue
			}
			cleanup, err := commit()
			if err != nil {
				return err
			}
			if cleanup {
				b.StopTimer()
				err := destroy()
				b.StartTimer()
				if err != nil {
					return err
				}
			}
		}
	}
	b.StopTimer()
	moves.report(b)
	if n := b.N(); n > 0 {
		b.ReportMetric(float64(cmds)/float64(n), CmdsUnit)
	}
	for _, m := range meters {
		m.Report(b)
	}
	return st.Close()
}
