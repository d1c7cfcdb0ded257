package harness

import (
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// The add/remove row of StageApply: the case other ECS ecosystems publish for command buffers
// (the C# ECS "common use-cases" suites): through the buffer, add 2 components to each of 100
// entities, commit, remove both from each, commit. One op is one component operation, 400 per
// round.
const (
	addRemoveEntities = 100
	addRemoveRound    = 4 * addRemoveEntities // 2 adds and 2 removes per entity
)

// addRemoveMix is the Arg of StageApply's mix=addremove2x100 variant.
type addRemoveMix struct{}

// addRemoveStager is what the row stages through: a strategy's recorder and commit, or the
// baseline's slice applied with deferral.Core.
type addRemoveStager struct {
	add    func(e ecs.Entity, b ecs.Bundle)
	remove func(e ecs.Entity, id ecs.ComponentID)
	commit func() error
}

// op stages component operation j (0 ≤ j < addRemoveRound) of a round over ents and commits
// after the last add and the last remove.
func (s *addRemoveStager) op(ents []ecs.Entity, j, i int) error {
	half := addRemoveRound / 2
	e := ents[(j%half)>>1]
	switch {
	case j < half && j&1 == 0:
		s.add(e, health.Value(int64(i)))
	case j < half:
		s.add(e, tag.Value(uint32(i)))
	case j&1 == 0:
		s.remove(e, health.ID())
	default:
		s.remove(e, tag.ID())
	}
	if j == half-1 || j == addRemoveRound-1 {
		return s.commit()
	}
	return nil
}

func stageApplyAddRemove(b *testing.B, s StrategyInfo) error {
	w := ecs.NewWorld()
	ents := make([]ecs.Entity, addRemoveEntities)
	for i := range ents {
		e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
		if err != nil {
			return fmt.Errorf("add/remove setup: %w", err)
		}
		ents[i] = e
	}
	var x addRemoveStager
	var st deferral.Strategy
	if s.Baseline() {
		core := deferral.NewCore(w)
		buf := make([]deferral.Command, 0, addRemoveRound/2)
		x.add = func(e ecs.Entity, bd ecs.Bundle) {
			buf = append(buf, deferral.Command{Verb: deferral.VerbAdd, Entity: e, Bundle: bd})
		}
		x.remove = func(e ecs.Entity, id ecs.ComponentID) {
			buf = append(buf, deferral.Command{Verb: deferral.VerbRemove, Entity: e, Component: id})
		}
		x.commit = func() error {
			if err := core.Begin(); err != nil {
				return err
			}
			for i := range buf {
				if err := core.Apply(deferral.Pos{Index: i}, &buf[i]); err != nil {
					core.End(false)
					return fmt.Errorf("add/remove: %w", err)
				}
			}
			core.End(true)
			buf = buf[:0]
			_, err := core.TakeReport(0)
			return err
		}
	} else {
		st = s.Factory(w)
		r := st.NewRecorder()
		x.add, x.remove = r.Add, r.Remove
		x.commit = func() error {
			handover(st, r)
			if err := st.Commit(); err != nil {
				return fmt.Errorf("add/remove: %w", err)
			}
			_, err := st.TakeReport()
			return err
		}
	}
	for j := range addRemoveRound { // warm the buffers
		if err := x.op(ents, j, j); err != nil {
			return err
		}
	}
	var pm publishMeter // versioned's publish split; nothing for the others
	pm.start(st)
	b.ReportAllocs()
	b.ResetTimer()
	j := 0
	for i := range b.N {
		if err := x.op(ents, j, i); err != nil {
			return err
		}
		if j++; j == addRemoveRound {
			j = 0
		}
	}
	b.StopTimer()
	pm.report(b)
	for ; j != 0 && j < addRemoveRound; j++ { // finish the round, untimed
		if err := x.op(ents, j, j); err != nil {
			return err
		}
	}
	for _, e := range ents {
		if w.MaskOf(e) != ecs.MaskOf(workload.Position.ID()) {
			return fmt.Errorf("add/remove: %v ends with components %b, want Position only", e, w.MaskOf(e))
		}
	}
	if st != nil {
		return st.Close()
	}
	return nil
}
