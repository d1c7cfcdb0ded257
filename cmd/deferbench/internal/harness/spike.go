package harness

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// spikeFrame is the size of Spike's ordinary frame, in commands; spikeAfter is how many
// ordinary frames follow the spike before the retained heap is measured.
const (
	spikeFrame = 1024
	spikeAfter = 40
)

var spikeScenario = Scenario{
	Name: "Spike",
	Description: "bounded memory: one frame staging and committing a spike of typed commands (tier=closure: of closures), then 40 ordinary frames of 1024; " +
		"ns/op per ordinary frame (stage 1024 Set commands through one recorder, commit); " +
		"retained-B = live heap the strategy holds after the spike and the 40 frames, steady-B = after 41 ordinary frames, " +
		"retained-x = retained-B / steady-B",
	Variants: func(cfg VariantConfig) []Variant {
		n := 1 << 20
		if cfg.Quick {
			n = 1 << 16
		}
		params := []Param{{"spike", strconv.Itoa(n)}, {"frames", strconv.Itoa(spikeAfter)}}
		return []Variant{
			{Params: params, Arg: spikeArg{n: n}},
			{Params: append(params[:2:2], Param{"tier", "closure"}), Arg: spikeArg{n: n, closures: true}},
		}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // the baseline's slice has no shrink policy to measure
		}
		a := v.Arg.(spikeArg)
		return func(b *testing.B) error { return spike(b, s, a) }
	},
	// Bounded memory is the scenario's purpose, so its need is answered by retained-x, not
	// by ns/op. retained-x is measured once per run (after a full collection), so no test
	// can rank two close figures: the need is a bound, met when the heap held after the
	// spike is under twice the steady-state heap; a strategy that keeps its spike buffers
	// reads hundreds.
	Headlines: []Headline{
		{Unit: "retained-x", Need: "bounded memory after a spike (retained-x = heap held after it / steady heap, under 2)", Meets: allBelow(2)},
		{Unit: "ns/op"},
	},
}

// spikeArg is a Spike variant: the spike's size, in commands, and whether they are closures
// (each Recorder.Do of one shared function) instead of typed Set commands.
type spikeArg struct {
	n        int
	closures bool
}

// spikeClosure is the closure a closure spike stages: one function value, so that the heap
// measured is the strategy's storage, not the closures'.
func spikeClosure(*ecs.World) error { return nil }

// spikeRun is one strategy over a fresh target, staging through one recorder.
type spikeRun struct {
	st deferral.Strategy
	r  *deferral.Recorder
	e  []ecs.Entity
}

// frame stages n Set commands and commits them.
func (x *spikeRun) frame(n int) error { return x.frameOf(spikeArg{n: n}) }

// frameOf stages a.n commands, closures if a.closures, and commits them.
func (x *spikeRun) frameOf(a spikeArg) error {
	for i := range a.n {
		if a.closures {
			x.r.Do(spikeClosure)
			continue
		}
		x.r.Set(x.e[i&(stageBatch-1)], workload.Position.Value(workload.Vec2{X: float64(i)}))
	}
	handover(x.st, x.r)
	if err := x.st.Commit(); err != nil {
		return fmt.Errorf("spike: %w", err)
	}
	_, err := x.st.TakeReport()
	return err
}

func newSpikeRun(s StrategyInfo) (*spikeRun, error) {
	w, ents, err := stageTargets()
	if err != nil {
		return nil, err
	}
	st := s.Factory(w)
	return &spikeRun{st: st, r: st.NewRecorder(), e: ents}, nil
}

// liveHeap returns the live heap after a full collection, in bytes.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// heldAfter returns the heap a fresh strategy holds (live heap over what it held before its
// first frame) after running frames.
func heldAfter(s StrategyInfo, frames func(x *spikeRun) error) (float64, error) {
	x, err := newSpikeRun(s)
	if err != nil {
		return 0, err
	}
	h0 := liveHeap()
	if err := frames(x); err != nil {
		return 0, err
	}
	h1 := liveHeap()
	runtime.KeepAlive(x)
	if err := x.st.Close(); err != nil {
		return 0, err
	}
	return max(float64(h1)-float64(h0), 0), nil
}

// spike times ordinary frames; once per benchmark name (testing.Benchmark calls the body
// several times) it also measures, untimed, the heap held after a spike and after ordinary
// frames only.
func spike(b *testing.B, s StrategyInfo, a spikeArg) error {
	key := fmt.Sprintf("spike/%s/%d/%t", s.Name, a.n, a.closures)
	retainedMu.Lock()
	held, ok := retained[key]
	steady := retained[key+"/steady"]
	retainedMu.Unlock()
	if !ok {
		var err error
		held, err = heldAfter(s, func(x *spikeRun) error {
			if err := x.frameOf(a); err != nil {
				return err
			}
			for range spikeAfter {
				if err := x.frame(spikeFrame); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		steady, err = heldAfter(s, func(x *spikeRun) error {
			for range spikeAfter + 1 {
				if err := x.frame(spikeFrame); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		retainedMu.Lock()
		retained[key], retained[key+"/steady"] = held, steady
		retainedMu.Unlock()
	}
	x, err := newSpikeRun(s)
	if err != nil {
		return err
	}
	if err := x.frame(spikeFrame); err != nil { // warm
		return err
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := x.frame(spikeFrame); err != nil {
			return err
		}
	}
	b.StopTimer()
	b.ReportMetric(held, "retained-B")
	b.ReportMetric(steady, "steady-B")
	b.ReportMetric(RetainedX(held, steady), "retained-x")
	return x.st.Close()
}

// SpikeFloor is the heap, in bytes, below which Spike counts a strategy as holding no
// buffer: a live-heap difference under 4 KiB after a collection is runtime bookkeeping, not
// staged commands (1024 typed commands, one ordinary frame, take tens of KiB in any buffer).
const SpikeFloor = 4096

// RetainedX is Spike's retained-x: the heap held after the spike over the heap held in steady
// state, each counted as at least SpikeFloor bytes. A strategy that holds no buffer in
// either state (lazyguarded runs each command as it is staged) has retained-x 1 by
// definition: after the spike it holds what it holds without one, nothing. Without the floor
// it read 0/0 (no figure) or 0/96 B = 0, which looked like the best result rather than
// "nothing to measure"; a strategy that holds nothing in steady state but keeps megabytes
// after a spike still reads far above 1.
func RetainedX(retained, steady float64) float64 {
	return max(retained, SpikeFloor) / max(steady, SpikeFloor)
}
