package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// StageApplyMixes are the variants of StageApply (mix=…): all Set (homogeneous), eight command
// types round-robin (roundrobin8) or shuffled (shuffled8), and the add/remove row
// (addremove2x100).
var StageApplyMixes = []string{"homogeneous", "roundrobin8", "shuffled8", "addremove2x100"}

// applyBatch is how many commands StageApply stages between commits.
const applyBatch = 256

// applyTargets is the number of long-lived entities the non-structural commands name.
const applyTargets = 1024

// Components of StageApply's command mix, beside workload's Position and Velocity.
var (
	health = ecs.NewComponent[int64]("bench.Health", nil)
	tag    = ecs.NewComponent[uint32]("bench.Tag", nil)
)

// The eight command types of StageApply, in round-robin order.
const (
	kSetPosition = iota
	kSetVelocity
	kAddHealth
	kRemoveHealth
	kAddTag
	kRemoveTag
	kCreate
	kDestroy
	nKinds
)

// StageApply times one producer staging b.N() commands of mix (one of StageApplyMixes) through
// one recorder of a strategy f makes, the strategy committing every 256 (staging plus apply);
// an untimed batch warms the buffers first. ns/op is per command, with B/op and allocs/op.
// homogeneous stages Set of a Position on 1024 long-lived entities; roundrobin8 cycles Set
// Position, Set Velocity, Add and Remove of two components, Create and Destroy (the destroys
// take the oldest created entity, so the world keeps its size); shuffled8 is the same eight in
// a fixed shuffled order. addremove2x100 is the case other ECS ecosystems publish for command
// buffers: add 2 components to each of 100 entities, commit, remove both from each, commit;
// its ns/op is per component operation (400 a round). f nil times the baseline: the same
// records appended to a slice and applied with deferral.Core. The meters, when given, measure
// the timed part. The world has the default storage (ecs.Slots); StageApplyOn chooses it.
// Errors: an unknown mix, a commit's error, the strategy's Close.
func StageApply(b B, f deferral.Factory, mix string, meters ...Meter) error {
	return StageApplyOn(b, f, mix, ecs.Slots, meters...)
}

// StageApplyOn is StageApply on a world of storage s (ecs.Slots or ecs.Archetypes). On
// archetype storage it also reports moves/op (MovesUnit): the rows the timed commits moved
// between tables (ecs.World.Moves), per op.
func StageApplyOn(b B, f deferral.Factory, mix string, s ecs.Storage, meters ...Meter) error {
	if mix == "addremove2x100" {
		return stageApplyAddRemove(b, f, s, meters)
	}
	seq, err := mixSequence(mix)
	if err != nil {
		return err
	}
	a, err := newApplyWorld(s)
	if err != nil {
		return err
	}
	if f == nil {
		return stageApplyBaseline(b, a, seq)
	}
	var moves movesMeter
	st := f(a.w)
	r := st.NewRecorder()
	commit := func() error {
		Handover(st, r)
		if err := st.Commit(); err != nil {
			return fmt.Errorf("stage apply: %w", err)
		}
		rep, err := st.TakeReport()
		if err != nil {
			return fmt.Errorf("stage apply: %w", err)
		}
		a.created(rep.Created)
		return nil
	}
	for pass := range 2 {
		n := applyBatch
		if pass == 1 {
			for _, m := range meters { // the timed pass only
				m.Start(st)
			}
			moves.begin(a.w)
			b.ReportAllocs()
			b.ResetTimer()
			n = b.N()
		}
		for i := 0; i < n; i++ {
			k := seq[i&(applyTargets-1)]
			c := a.command(k, i)
			// Through the recorder's verbs, as a producer would write it.
			switch c.Verb {
			case deferral.VerbCreate:
				r.Create(c.Bundle)
			case deferral.VerbDestroy:
				r.Destroy(c.Entity)
			case deferral.VerbAdd:
				r.Add(c.Entity, c.Bundle)
			case deferral.VerbRemove:
				r.Remove(c.Entity, c.Component)
			default:
				r.Set(c.Entity, c.Bundle)
			}
			if i%applyBatch == applyBatch-1 {
				if err := commit(); err != nil {
					return err
				}
			}
		}
	}
	b.StopTimer()
	moves.report(b)
	for _, m := range meters {
		m.Report(b)
	}
	if err := commit(); err != nil {
		return err
	}
	return st.Close()
}

// mixSequence returns the command-type sequence of a mix, applyTargets long and cycled: each
// of the 8 types appears equally often in roundrobin8 and shuffled8, so creates and destroys
// balance and the world stays the same size.
func mixSequence(mix string) ([]uint8, error) {
	seq := make([]uint8, applyTargets)
	switch mix {
	case "homogeneous":
		// all kSetPosition
	case "roundrobin8", "shuffled8":
		for i := range seq {
			seq[i] = uint8(i % nKinds)
		}
		if mix == "shuffled8" {
			r := rand.New(rand.NewPCG(8, 8))
			r.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
		}
	default:
		return nil, fmt.Errorf("stage apply: unknown mix %q (valid: homogeneous, roundrobin8, shuffled8, addremove2x100)", mix)
	}
	return seq, nil
}

// applyWorld is StageApply's target: applyTargets long-lived entities and a FIFO of entities
// created by earlier commits, which the destroys consume.
type applyWorld struct {
	w       *ecs.World
	targets []ecs.Entity
	fifo    []ecs.Entity
	head    int
}

func newApplyWorld(s ecs.Storage) (*applyWorld, error) {
	a := &applyWorld{w: ecs.NewWorld(ecs.WithStorage(s))}
	for i := range 2 * applyTargets {
		e, err := a.w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}).With(workload.Velocity.Value(workload.Vec2{Y: 1})))
		if err != nil {
			return nil, fmt.Errorf("stage apply setup: %w", err)
		}
		if i < applyTargets {
			a.targets = append(a.targets, e)
		} else {
			a.fifo = append(a.fifo, e)
		}
	}
	return a, nil
}

// victim returns the oldest created entity not yet destroyed (the zero handle when none is
// left; its destroy is then ignored at commit).
func (a *applyWorld) victim() ecs.Entity {
	if a.head == len(a.fifo) {
		return ecs.Entity{}
	}
	e := a.fifo[a.head]
	a.head++
	return e
}

// created appends the entities a commit created.
func (a *applyWorld) created(es []ecs.Entity) {
	if a.head > 4*applyTargets && a.head*2 > len(a.fifo) {
		n := copy(a.fifo, a.fifo[a.head:])
		a.fifo, a.head = a.fifo[:n], 0
	}
	a.fifo = append(a.fifo, es...)
}

// command returns the i-th command of type k: the same record for every strategy.
func (a *applyWorld) command(k uint8, i int) deferral.Command {
	e := a.targets[i&(applyTargets-1)]
	switch k {
	case kSetPosition:
		return deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: workload.Position.Value(workload.Vec2{X: float64(i)})}
	case kSetVelocity:
		return deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: workload.Velocity.Value(workload.Vec2{Y: float64(i)})}
	case kAddHealth:
		return deferral.Command{Verb: deferral.VerbAdd, Entity: e, Bundle: health.Value(int64(i))}
	case kRemoveHealth:
		return deferral.Command{Verb: deferral.VerbRemove, Entity: e, Component: health.ID()}
	case kAddTag:
		return deferral.Command{Verb: deferral.VerbAdd, Entity: e, Bundle: tag.Value(uint32(i))}
	case kRemoveTag:
		return deferral.Command{Verb: deferral.VerbRemove, Entity: e, Component: tag.ID()}
	case kCreate:
		return deferral.Command{Verb: deferral.VerbCreate, Bundle: workload.Position.Value(workload.Vec2{X: float64(i)}).With(workload.Velocity.Value(workload.Vec2{Y: 1}))}
	default:
		return deferral.Command{Verb: deferral.VerbDestroy, Entity: a.victim()}
	}
}

// stageApplyBaseline is the reference, not a lower bound: the same commands appended as
// deferral.Commands to a preallocated slice and applied one by one with deferral.Core.Apply,
// the contract's shared apply step. A strategy's commit, which applies runs of compact records
// and merges an entity's commands, can be cheaper.
func stageApplyBaseline(b B, a *applyWorld, seq []uint8) error {
	core := deferral.NewCore(a.w)
	buf := make([]deferral.Command, 0, applyBatch)
	commit := func() error {
		if err := core.Begin(); err != nil {
			return err
		}
		for i := range buf {
			if err := core.Apply(deferral.Pos{Index: i}, &buf[i]); err != nil {
				core.End(false)
				return fmt.Errorf("stage apply: %w", err)
			}
		}
		core.End(true)
		buf = buf[:0]
		rep, err := core.TakeReport(0)
		if err != nil {
			return err
		}
		a.created(rep.Created)
		return nil
	}
	var moves movesMeter
	for pass := range 2 {
		n := applyBatch
		if pass == 1 {
			moves.begin(a.w)
			b.ReportAllocs()
			b.ResetTimer()
			n = b.N()
		}
		for i := 0; i < n; i++ {
			buf = append(buf, a.command(seq[i&(applyTargets-1)], i))
			if len(buf) == applyBatch {
				if err := commit(); err != nil {
					return err
				}
			}
		}
	}
	b.StopTimer()
	moves.report(b)
	return commit()
}

// ApplyBatch is how many commands StageApply stages between commits, and AddRemoveRound how
// many component operations one round of its addremove2x100 mix makes (2 adds and 2 removes on
// each of 100 entities). An iteration count that is a multiple of both ends every mix on a
// commit, so a caller that runs the bodies at fixed counts (instruction counting) can difference
// two such counts without a partial commit in either.
const (
	ApplyBatch     = applyBatch
	AddRemoveRound = addRemoveRound
)
