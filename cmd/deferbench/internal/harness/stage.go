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
	words []uint64
	cmds  []deferral.Command
	fns   []func(*ecs.World) error
	n     int
}

var stageScenario = Scenario{
	Name: "Stage",
	Description: "one producer stages commands through one recorder (deferral.Recorder.Set, or Do with a closure capturing 24 B or 264 B); " +
		"ns/op per staged command, buffers dropped every 1024 commands; heap-B/cmd = live heap per staged command before commit",
	Variants: func(VariantConfig) []Variant {
		return []Variant{
			{Params: []Param{{"cmd", "typed"}}, Arg: "typed"},
			{Params: []Param{{"cmd", "closure"}}, Arg: "closure"},
			{Params: []Param{{"cmd", "closure-large"}}, Arg: "closure-large"},
		}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		kind := v.Arg.(string)
		mk := closureMakers[kind]
		switch {
		case s.Baseline() && mk != nil:
			return func(b *testing.B) error { return stageBaselineClosure(b, kind, mk) }
		case s.Baseline():
			return stageBaselineTyped
		}
		return func(b *testing.B) error { return stageStrategy(b, s, kind, mk) }
	},
	Headlines: []Headline{
		{Unit: "ns/op", Where: []Param{{"cmd", "typed"}}, Need: "lowest staging cost (typed commands)"},
		{Unit: "allocs/op", Where: []Param{{"cmd", "typed"}}, Need: "no allocation while staging (typed commands)", Meets: allBelow(0.01)},
		{Unit: "heap-B/cmd", Where: []Param{{"cmd", "typed"}}},
	},
}

// closureMaker makes the closure staged for entity e as command i.
type closureMaker func(e ecs.Entity, i int) func(*ecs.World) error

// largePayload is what the large closure captures besides the entity: 256 bytes.
type largePayload [32]float64

// closureMakers are the closure tiers of Stage: a small closure (an entity and a Vec2, 24 B)
// and a large one (an entity and 256 B of values).
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
	// The floor: the compact record a strategy's recorder writes for this Set (deferral.AppendSet
	// writes the same bytes), appended to a preallocated slice.
	buf := make([]uint64, 0, 4*stageBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = deferral.AppendSet(buf, ents[i&(stageBatch-1)], workload.Position, workload.Vec2{X: float64(i)})
		if i&(stageBatch-1) == stageBatch-1 {
			buf = buf[:0]
		}
	}
	b.StopTimer()
	sink.words = buf
	var grow []uint64
	reportRetained(b, "baseline/typed", func(i int) {
		grow = deferral.AppendSet(grow, ents[i&(stageBatch-1)], workload.Position, workload.Vec2{X: float64(i)})
	}, func() { runtime.KeepAlive(grow); grow = nil })
	return nil
}

func stageBaselineClosure(b *testing.B, kind string, mk closureMaker) error {
	_, ents, err := stageTargets()
	if err != nil {
		return err
	}
	fns := make([]func(*ecs.World) error, 0, stageBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fns = append(fns, mk(ents[i&(stageBatch-1)], i))
		if len(fns) == stageBatch {
			clear(fns) // release the closures, as a strategy's reset must
			fns = fns[:0]
		}
	}
	b.StopTimer()
	sink.fns = fns
	var grow []func(*ecs.World) error
	reportRetained(b, "baseline/"+kind, func(i int) {
		grow = append(grow, mk(ents[i&(stageBatch-1)], i))
	}, func() { runtime.KeepAlive(grow); grow = nil })
	return nil
}

// stageStrategy stages typed commands (mk nil) or closures made by mk through a recorder of s.
func stageStrategy(b *testing.B, s StrategyInfo, kind string, mk closureMaker) error {
	w, ents, err := stageTargets()
	if err != nil {
		return err
	}
	st := s.Factory(w)
	r := st.NewRecorder()
	// Plain loops, so the strategy's own cost is what is timed (the closure loop calls the
	// same maker as the baseline's); the first pass warms the buffers to their steady-state
	// capacity.
	for pass := range 2 {
		n := stageBatch
		if pass == 1 {
			b.ReportAllocs()
			b.ResetTimer()
			n = b.N
		}
		if mk != nil {
			for i := 0; i < n; i++ {
				r.Do(mk(ents[i&(stageBatch-1)], i))
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
	reportRetained(b, s.Name+"/"+kind, func(i int) {
		e := ents[i&(stageBatch-1)]
		if mk != nil {
			r.Do(mk(e, i))
		} else {
			r.Set(e, workload.Position.Value(workload.Vec2{X: float64(i)}))
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
