package bench

import (
	"fmt"
	"runtime"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// StageCmds are the variants of Stage (cmd=…): a typed command (deferral.Set of a
// workload.Position: the typed tier, a 32-byte record), a closure capturing an entity and a Vec2 (24 B), and a closure capturing
// an entity and 256 B of values.
var StageCmds = []string{"typed", "closure", "closure-large"}

// closureMaker makes the closure staged for entity e as command i.
type closureMaker func(e ecs.Entity, i int) func(*ecs.World) error

// largePayload is what the large closure captures besides the entity: 256 bytes.
type largePayload [32]float64

// closureMakers are the closure tiers of Stage.
var closureMakers = map[string]closureMaker{
	"closure": func(e ecs.Entity, i int) func(*ecs.World) error {
		v := workload.Vec2{X: float64(i)}
		return func(w *ecs.World) error { return workload.Position.Set(w, e, v) }
	},
	"closure-large": func(e ecs.Entity, i int) func(*ecs.World) error {
		var p largePayload
		p[0], p[31] = float64(i), 1
		return func(w *ecs.World) error { return workload.Position.Set(w, e, workload.Vec2{X: p[0], Y: p[31]}) }
	},
}

// Stage times one producer staging b.N() commands of kind cmd (one of StageCmds) through one
// recorder of a strategy f makes over NewTargets' world, dropping them (Discard) every
// Targets commands so buffers stay warm and bounded whatever b.N() is; the first Targets
// commands, untimed, warm the buffers. ns/op is per staged command, with B/op and allocs/op.
// heap-B/cmd is the live heap, after a collection, that 16384 staged commands hold before
// they are committed or dropped (storage, slack capacity, closures, tasks), measured untimed
// at the body's first call for each strategy name and cmd. f nil times the baseline: the
// same records (or closures) appended to a preallocated slice. Errors: an unknown cmd, and
// the strategy's Close.
func Stage(b B, f deferral.Factory, cmd string) error {
	mk, ok := closureMakers[cmd]
	if !ok && cmd != "typed" {
		return fmt.Errorf("stage: unknown cmd %q (valid: typed, closure, closure-large)", cmd)
	}
	switch {
	case f == nil && mk != nil:
		return stageBaselineClosure(b, cmd, mk)
	case f == nil:
		return stageBaselineTyped(b)
	}
	return stageStrategy(b, f, cmd, mk)
}

func stageBaselineTyped(b B) error {
	_, ents, err := NewTargets()
	if err != nil {
		return err
	}
	// The floor: the compact record a strategy's recorder writes for this Set, appended to a
	// preallocated slice (AppendSetFloor).
	buf := make([]uint64, 0, 4*Targets)
	n := b.N()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		buf = AppendSetFloor(buf, ents[i&(Targets-1)], workload.Vec2{X: float64(i)})
		if i&(Targets-1) == Targets-1 {
			buf = buf[:0]
		}
	}
	b.StopTimer()
	sink.words = buf
	var grow []uint64
	return reportRetained(b, "Stage/"+Baseline+"/typed", func(i int) {
		grow = AppendSetFloor(grow, ents[i&(Targets-1)], workload.Vec2{X: float64(i)})
	}, func() { runtime.KeepAlive(grow); grow = nil })
}

func stageBaselineClosure(b B, cmd string, mk closureMaker) error {
	_, ents, err := NewTargets()
	if err != nil {
		return err
	}
	fns := make([]func(*ecs.World) error, 0, Targets)
	n := b.N()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		fns = append(fns, mk(ents[i&(Targets-1)], i))
		if len(fns) == Targets {
			clear(fns) // release the closures, as a strategy's reset must
			fns = fns[:0]
		}
	}
	b.StopTimer()
	sink.fns = fns
	var grow []func(*ecs.World) error
	return reportRetained(b, "Stage/"+Baseline+"/"+cmd, func(i int) {
		grow = append(grow, mk(ents[i&(Targets-1)], i))
	}, func() { runtime.KeepAlive(grow); grow = nil })
}

// stageStrategy stages typed commands (mk nil) or closures made by mk through a recorder of
// a strategy f makes.
func stageStrategy(b B, f deferral.Factory, cmd string, mk closureMaker) error {
	w, ents, err := NewTargets()
	if err != nil {
		return err
	}
	st := f(w)
	r := st.NewRecorder()
	// Plain loops, so the strategy's own cost is what is timed (the closure loop calls the
	// same maker as the baseline's); the first pass warms the buffers to their steady-state
	// capacity.
	for pass := range 2 {
		n := Targets
		if pass == 1 {
			n = b.N()
			b.ReportAllocs()
			b.ResetTimer()
		}
		if mk != nil {
			for i := 0; i < n; i++ {
				r.Do(mk(ents[i&(Targets-1)], i))
				if i&(Targets-1) == Targets-1 {
					Handover(st, r)
					st.Discard()
				}
			}
		} else {
			for i := 0; i < n; i++ {
				deferral.Set(r, ents[i&(Targets-1)], workload.Position, workload.Vec2{X: float64(i)})
				if i&(Targets-1) == Targets-1 {
					Handover(st, r)
					st.Discard()
				}
			}
		}
	}
	b.StopTimer()
	st.Discard()
	err = reportRetained(b, "Stage/"+st.Name()+"/"+cmd, func(i int) {
		e := ents[i&(Targets-1)]
		if mk != nil {
			r.Do(mk(e, i))
		} else {
			deferral.Set(r, e, workload.Position, workload.Vec2{X: float64(i)})
		}
	}, func() { Handover(st, r); st.Discard() })
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

// retainedCommands is how many commands reportRetained stages.
const retainedCommands = 1 << 14

// reportRetained reports heap-B/cmd: the live heap, after a GC, that retainedCommands staged
// commands hold before they are committed or dropped. stage stages command i; drop drops
// them all. Not timed; measured once per key (measureOnce).
func reportRetained(b B, key string, stage func(i int), drop func()) error {
	v, err := measureOnce(key, func() ([]float64, error) {
		h0 := liveHeap()
		for i := range retainedCommands {
			stage(i)
		}
		h1 := liveHeap()
		return []float64{max(float64(h1)-float64(h0), 0) / retainedCommands}, nil
	})
	drop()
	if err != nil {
		return err
	}
	b.ReportMetric(v[0], "heap-B/cmd")
	return nil
}
