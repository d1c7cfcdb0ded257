package harness

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// applyBatch is how many commands StageApply stages between commits.
const applyBatch = 256

// applyTargets is the number of long-lived entities the non-structural commands name.
const applyTargets = 1024

// Harness-owned components for StageApply's command mix.
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

var stageApplyScenario = Scenario{
	Scenario: suite.StageApply,
	Variants: func(VariantConfig) []Variant {
		return []Variant{
			{Params: []Param{{"mix", "homogeneous"}}, Arg: mixSequence("homogeneous")},
			{Params: []Param{{"mix", "roundrobin8"}}, Arg: mixSequence("roundrobin8")},
			{Params: []Param{{"mix", "shuffled8"}}, Arg: mixSequence("shuffled8")},
			{Params: []Param{{"mix", "addremove2x100"}}, Arg: addRemoveMix{}},
		}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if _, ok := v.Arg.(addRemoveMix); ok {
			return func(b *testing.B) error { return stageApplyAddRemove(b, s) }
		}
		seq := v.Arg.([]uint8)
		return func(b *testing.B) error { return stageApply(b, s, seq) }
	},
}

// mixSequence returns the command-type sequence of a mix, applyTargets long and cycled: each
// of the 8 types appears equally often in roundrobin8 and shuffled8, so creates and destroys
// balance and the world stays the same size.
func mixSequence(mix string) []uint8 {
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
		panic("harness: unknown mix " + mix)
	}
	return seq
}

// applyWorld is StageApply's target: applyTargets long-lived entities and a FIFO of entities
// created by earlier commits, which the destroys consume.
type applyWorld struct {
	w       *ecs.World
	targets []ecs.Entity
	fifo    []ecs.Entity
	head    int
}

func newApplyWorld() (*applyWorld, error) {
	a := &applyWorld{w: ecs.NewWorld()}
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

func stageApply(b *testing.B, s StrategyInfo, seq []uint8) error {
	a, err := newApplyWorld()
	if err != nil {
		return err
	}
	if s.Baseline() {
		return stageApplyBaseline(b, a, seq)
	}
	st := s.Factory(a.w)
	r := st.NewRecorder()
	commit := func() error {
		handover(st, r)
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
	var pm publishMeter
	for pass := range 2 {
		n := applyBatch
		if pass == 1 {
			pm.start(st) // the timed pass's publishes only
			b.ReportAllocs()
			b.ResetTimer()
			n = b.N
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
	pm.report(b)
	if err := commit(); err != nil {
		return err
	}
	return st.Close()
}

// stageApplyBaseline is the lower bound: the same records appended to a preallocated slice and
// applied in order with deferral.Core, the contract's shared apply step.
func stageApplyBaseline(b *testing.B, a *applyWorld, seq []uint8) error {
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
	for pass := range 2 {
		n := applyBatch
		if pass == 1 {
			b.ReportAllocs()
			b.ResetTimer()
			n = b.N
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
	return commit()
}
