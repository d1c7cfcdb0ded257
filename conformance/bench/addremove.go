package bench

import (
	"fmt"

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

// addRemoveStager is what the row stages through: a strategy's recorder and commit, or the
// baseline's slice applied with deferral.Core. Its methods take runs of operations, so that
// the timed loop makes one dynamic call per run and the row measures staging and commit, not
// the body's dispatch: inside a run the recorder (or the slice) is called directly, as a
// system would.
type addRemoveStager interface {
	// stage stages operations j, j+1, …, k-1 of a round (0 ≤ j < k ≤ the end of j's half),
	// with values from i on.
	stage(ents []ecs.Entity, j, k, i int)
	commit() error
}

// run stages n operations of rounds over ents starting at operation j of a round, committing
// after the last add and the last remove of each round, and returns the operation the next
// call starts at.
func runAddRemove(s addRemoveStager, ents []ecs.Entity, j, n int) (int, error) {
	const half = addRemoveRound / 2
	for i := 0; n > 0; {
		k := min(j+n, (j/half+1)*half)
		s.stage(ents, j, k, i)
		i, n = i+k-j, n-(k-j)
		if j = k; j%half == 0 {
			if err := s.commit(); err != nil {
				return j, err
			}
			j %= addRemoveRound
		}
	}
	return j, nil
}

// recorderStager stages through a strategy's recorder.
type recorderStager struct {
	st deferral.Strategy
	r  *deferral.Recorder
}

func (x *recorderStager) stage(ents []ecs.Entity, j, k, i int) {
	// Operation j of a round adds (first half) or removes (second half) health (even j) or
	// tag (odd j) on entity (j mod half)/2; a run stays within one half.
	const half = addRemoveRound / 2
	r := x.r
	if j < half {
		for ; j < k; j, i = j+1, i+1 {
			if e := ents[j>>1]; j&1 == 0 {
				r.Add(e, health.Value(int64(i)))
			} else {
				r.Add(e, tag.Value(uint32(i)))
			}
		}
		return
	}
	for ; j < k; j++ {
		if e := ents[(j-half)>>1]; j&1 == 0 {
			r.Remove(e, health.ID())
		} else {
			r.Remove(e, tag.ID())
		}
	}
}

func (x *recorderStager) commit() error {
	Handover(x.st, x.r)
	if err := x.st.Commit(); err != nil {
		return fmt.Errorf("add/remove: %w", err)
	}
	_, err := x.st.TakeReport()
	return err
}

// sliceStager is the baseline: records appended to a local slice, applied with deferral.Core.
type sliceStager struct {
	core *deferral.Core
	buf  []deferral.Command
}

func (x *sliceStager) stage(ents []ecs.Entity, j, k, i int) {
	const half = addRemoveRound / 2 // as recorderStager.stage
	buf := x.buf
	if j < half {
		for ; j < k; j, i = j+1, i+1 {
			c := deferral.Command{Verb: deferral.VerbAdd, Entity: ents[j>>1]}
			if j&1 == 0 {
				c.Bundle = health.Value(int64(i))
			} else {
				c.Bundle = tag.Value(uint32(i))
			}
			buf = append(buf, c)
		}
	} else {
		for ; j < k; j++ {
			c := deferral.Command{Verb: deferral.VerbRemove, Entity: ents[(j-half)>>1], Component: health.ID()}
			if j&1 != 0 {
				c.Component = tag.ID()
			}
			buf = append(buf, c)
		}
	}
	x.buf = buf
}

func (x *sliceStager) commit() error {
	core := x.core
	if err := core.Begin(); err != nil {
		return err
	}
	for i := range x.buf {
		if err := core.Apply(deferral.Pos{Index: i}, &x.buf[i]); err != nil {
			core.End(false)
			return fmt.Errorf("add/remove: %w", err)
		}
	}
	core.End(true)
	x.buf = x.buf[:0]
	_, err := core.TakeReport(0)
	return err
}

// stageApplyAddRemove is StageApply's mix=addremove2x100.
func stageApplyAddRemove(b B, f deferral.Factory, s ecs.Storage, meters []Meter) error {
	w := ecs.NewWorld(ecs.WithStorage(s))
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
	if f == nil {
		x = &sliceStager{core: deferral.NewCore(w), buf: make([]deferral.Command, 0, addRemoveRound/2)}
	} else {
		st = f(w)
		x = &recorderStager{st: st, r: st.NewRecorder()}
	}
	if _, err := runAddRemove(x, ents, 0, addRemoveRound); err != nil { // warm the buffers
		return err
	}
	if st != nil {
		for _, m := range meters {
			m.Start(st)
		}
	}
	var moves movesMeter
	moves.begin(w)
	b.ReportAllocs()
	b.ResetTimer()
	j, err := runAddRemove(x, ents, 0, b.N())
	b.StopTimer()
	if err != nil {
		return err
	}
	moves.report(b)
	if st != nil {
		for _, m := range meters {
			m.Report(b)
		}
	}
	if j != 0 { // finish the round, untimed
		if _, err := runAddRemove(x, ents, j, addRemoveRound-j); err != nil {
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
