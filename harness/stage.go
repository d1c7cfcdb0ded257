package harness

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// stageBatch is how many commands the Stage scenario stages before it drops them (Discard, or
// resetting the baseline's slice length), so buffers stay warm and bounded whatever b.N is.
const stageBatch = 1024

// sink keeps benchmark results alive so the compiler cannot drop the work.
var sink struct {
	cmds []deferral.Command
	fns  []func(*ecs.World) error
	n    int
}

var stageScenario = Scenario{
	Name: "Stage",
	Description: "one producer stages commands through one recorder (deferral.Recorder.Set, or Do with a small closure); " +
		"ns/op per staged command, buffers dropped every 1024 commands; heap-B/cmd = live heap per staged command before commit",
	Variants: func(VariantConfig) []Variant {
		return []Variant{
			{Params: []Param{{"cmd", "typed"}}, Arg: "typed"},
			{Params: []Param{{"cmd", "closure"}}, Arg: "closure"},
		}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		closure := v.Arg == "closure"
		switch {
		case s.Baseline() && closure:
			return stageBaselineClosure
		case s.Baseline():
			return stageBaselineTyped
		}
		return func(b *testing.B) error { return stageStrategy(b, s, closure) }
	},
}

// stageTargets returns a world with stageBatch entities having a Position, and those entities.
func stageTargets() (*ecs.World, []ecs.Entity, error) {
	w := ecs.NewWorld()
	ents := make([]ecs.Entity, stageBatch)
	for i := range ents {
		e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
		if err != nil {
			return nil, nil, fmt.Errorf("stage setup: %w", err)
		}
		ents[i] = e
	}
	return w, ents, nil
}

func stageBaselineTyped(b *testing.B) error {
	_, ents, err := stageTargets()
	if err != nil {
		return err
	}
	buf := make([]deferral.Command, 0, stageBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := ents[i&(stageBatch-1)]
		buf = append(buf, deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: workload.Position.Value(workload.Vec2{X: float64(i)})})
		if len(buf) == stageBatch {
			buf = buf[:0]
		}
	}
	b.StopTimer()
	sink.cmds = buf
	var grow []deferral.Command
	reportRetained(b, "baseline/typed", func(i int) {
		grow = append(grow, deferral.Command{Verb: deferral.VerbSet, Entity: ents[i&(stageBatch-1)], Bundle: workload.Position.Value(workload.Vec2{X: float64(i)})})
	}, func() { runtime.KeepAlive(grow); grow = nil })
	return nil
}

func stageBaselineClosure(b *testing.B) error {
	_, ents, err := stageTargets()
	if err != nil {
		return err
	}
	fns := make([]func(*ecs.World) error, 0, stageBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := ents[i&(stageBatch-1)]
		v := workload.Vec2{X: float64(i)}
		fns = append(fns, func(w *ecs.World) error { return workload.Position.Set(w, e, v) })
		if len(fns) == stageBatch {
			clear(fns) // release the closures, as a strategy's reset must
			fns = fns[:0]
		}
	}
	b.StopTimer()
	sink.fns = fns
	var grow []func(*ecs.World) error
	reportRetained(b, "baseline/closure", func(i int) {
		e, v := ents[i&(stageBatch-1)], workload.Vec2{X: float64(i)}
		grow = append(grow, func(w *ecs.World) error { return workload.Position.Set(w, e, v) })
	}, func() { runtime.KeepAlive(grow); grow = nil })
	return nil
}

func stageStrategy(b *testing.B, s StrategyInfo, closure bool) error {
	w, ents, err := stageTargets()
	if err != nil {
		return err
	}
	st := s.Factory(w)
	r := st.NewRecorder()
	// Two plain loops, no helper call per command, so the strategy's own cost is what is
	// timed; the first pass warms the buffers to their steady-state capacity.
	for pass := range 2 {
		n := stageBatch
		if pass == 1 {
			b.ReportAllocs()
			b.ResetTimer()
			n = b.N
		}
		if closure {
			for i := 0; i < n; i++ {
				e := ents[i&(stageBatch-1)]
				v := workload.Vec2{X: float64(i)}
				r.Do(func(w *ecs.World) error { return workload.Position.Set(w, e, v) })
				if i&(stageBatch-1) == stageBatch-1 {
					handover(st, r)
					st.Discard()
				}
			}
		} else {
			for i := 0; i < n; i++ {
				e := ents[i&(stageBatch-1)]
				r.Set(e, workload.Position.Value(workload.Vec2{X: float64(i)}))
				if i&(stageBatch-1) == stageBatch-1 {
					handover(st, r)
					st.Discard()
				}
			}
		}
	}
	b.StopTimer()
	st.Discard()
	reportRetained(b, fmt.Sprintf("%s/closure=%v", s.Name, closure), func(i int) {
		e, v := ents[i&(stageBatch-1)], workload.Vec2{X: float64(i)}
		if closure {
			r.Do(func(w *ecs.World) error { return workload.Position.Set(w, e, v) })
		} else {
			r.Set(e, workload.Position.Value(v))
		}
	}, func() { handover(st, r); st.Discard() })
	return st.Close()
}

// retainedCommands is how many commands reportRetained stages.
const retainedCommands = 1 << 14

// reportRetained reports heap-B/cmd: the live heap, after a GC, that retainedCommands staged
// commands hold before they are committed or dropped (storage, slack capacity, closures,
// tasks). stage stages command i; drop drops them all. Not timed.
//
// testing.Benchmark calls a body several times while it sizes b.N; the measurement is made at
// the first call of a benchmark and reused by the later ones, keyed by the benchmark's name.
func reportRetained(b *testing.B, key string, stage func(i int), drop func()) {
	retainedMu.Lock()
	v, ok := retained[key]
	retainedMu.Unlock()
	if ok {
		drop()
		b.ReportMetric(v, "heap-B/cmd")
		return
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	h0 := ms.HeapAlloc
	for i := range retainedCommands {
		stage(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	h1 := ms.HeapAlloc
	drop()
	v = max(float64(h1)-float64(h0), 0) / retainedCommands
	retainedMu.Lock()
	retained[key] = v
	retainedMu.Unlock()
	b.ReportMetric(v, "heap-B/cmd")
}

var (
	retainedMu sync.Mutex
	retained   = map[string]float64{}
)
