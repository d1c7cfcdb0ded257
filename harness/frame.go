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

// Frame parameters: a 60 Hz step, 5% of survivors replaced per frame, and a fresh world every
// frameSegment frames. Particles live at least 1 s, so in a segment (50/60 s) none expires and
// the population stays at its size; the rebuild between segments, and one warm-up frame after
// it, are not timed.
const (
	frameDt      = 1.0 / 60
	frameRate    = 0.05
	frameSeed    = 1
	frameSegment = 50
)

var frameSizes = []int{1000, 10000, 100000}

var frameScenario = Scenario{
	Name: "Frame",
	Description: "the particle frame (workload.Sim.StepParallel with workload.Replace, 5% replaced per frame) " +
		"with GOMAXPROCS producers; ns/op per frame; gc/frame = collections per frame",
	Variants: func(cfg VariantConfig) []Variant {
		sizes := frameSizes
		if cfg.Quick {
			sizes = sizes[:1]
		}
		var vs []Variant
		for _, n := range sizes {
			vs = append(vs, Variant{Params: []Param{{"entities", strconv.Itoa(n)}}, Arg: n})
		}
		return vs
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // a frame needs a deferral.Strategy
		}
		n := v.Arg.(int)
		return func(b *testing.B) error { return frame(b, s.Factory, n) }
	},
}

// frameSim is one segment's simulation.
type frameSim struct {
	st  deferral.Strategy
	sim *workload.Sim
}

func newFrameSim(f deferral.Factory, n int) (*frameSim, error) {
	w := ecs.NewWorld()
	if err := workload.Populate(w, n, frameSeed); err != nil {
		return nil, fmt.Errorf("frame setup: %w", err)
	}
	st := f(w)
	fs := &frameSim{st: st, sim: workload.NewSim(st)}
	// One untimed frame mints the recorders and grows the buffers to their working size.
	if err := fs.sim.StepParallel(frameDt, runtime.GOMAXPROCS(0), workload.Replace(frameSeed, frameRate)); err != nil {
		return nil, fmt.Errorf("frame setup: %w", err)
	}
	return fs, nil
}

func (f *frameSim) close() error {
	if err := f.st.Close(); err != nil {
		return fmt.Errorf("frame: %w", err)
	}
	return nil
}

func frame(b *testing.B, factory deferral.Factory, n int) error {
	procs := runtime.GOMAXPROCS(0)
	decide := workload.Replace(frameSeed, frameRate)
	fs, err := newFrameSim(factory, n)
	if err != nil {
		return err
	}
	// gc/frame counts the collections that completed during timed frames.
	var ms runtime.MemStats
	gcs := uint32(0)
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%frameSegment == 0 {
			b.StopTimer()
			runtime.ReadMemStats(&ms)
			gcs += ms.NumGC - gc0
			if err := fs.close(); err != nil {
				return err
			}
			if fs, err = newFrameSim(factory, n); err != nil {
				return err
			}
			runtime.ReadMemStats(&ms)
			gc0 = ms.NumGC
			b.StartTimer()
		}
		if err := fs.sim.StepParallel(frameDt, procs, decide); err != nil {
			return fmt.Errorf("frame %d: %w", i, err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	gcs += ms.NumGC - gc0
	b.ReportMetric(float64(gcs)/float64(b.N), "gc/frame")
	return fs.close()
}
