package harness

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"github.com/deferbench/deferbench/conformance/bench"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
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

var frameSizes = []int{1000, 10000, 100000, 1000000}

// frameArchetypeSizes are the entity counts Frame also runs on archetype storage (the quick
// run's one size always): the middle of frameSizes, which keeps a default run's time within
// budget (the 1000000 row's setup dominates its wall time).
var frameArchetypeSizes = []int{10000, 100000}

var frameScenario = Scenario{
	Scenario: suite.Frame,
	Variants: func(cfg VariantConfig) []Variant {
		sizes := frameSizes
		if cfg.Quick {
			sizes = sizes[:1]
		}
		var vs []Variant
		for _, n := range sizes {
			vs = append(vs, Variant{Params: []Param{{"entities", strconv.Itoa(n)}}, Arg: frameArg{n: n}})
		}
		all := onStorages(vs, func(v Variant, st ecs.Storage) any { a := v.Arg.(frameArg); a.storage = st; return a })
		var out []Variant // on archetypes only the sizes of frameArchetypeSizes, or the quick one
		for _, v := range all {
			if a := v.Arg.(frameArg); a.storage == ecs.Slots || cfg.Quick || slices.Contains(frameArchetypeSizes, a.n) {
				out = append(out, v)
			}
		}
		return out
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // a frame needs a deferral.Strategy
		}
		a := v.Arg.(frameArg)
		return func(b bench.B) error { return frame(b, s, a) }
	},
}

// frameArg is a Frame variant: the entity count and the world's storage.
type frameArg struct {
	n       int
	storage ecs.Storage
}

// frameSim is one segment's simulation.
type frameSim struct {
	w    *ecs.World
	st   deferral.Strategy
	step func(dt float64) error
}

func newFrameSim(s StrategyInfo, a frameArg) (*frameSim, error) {
	n := a.n
	w := ecs.NewWorld(ecs.WithStorage(a.storage))
	if err := workload.Populate(w, n, frameSeed); err != nil {
		return nil, fmt.Errorf("frame setup: %w", err)
	}
	st := s.Factory(w)
	procs, decide := runtime.GOMAXPROCS(0), workload.Replace(frameSeed, frameRate)
	fs := &frameSim{w: w, st: st}
	if s.FrameStepper != nil {
		step, err := s.FrameStepper(st, procs, decide)
		if err != nil {
			return nil, fmt.Errorf("frame setup: %w", err)
		}
		fs.step = step
	} else {
		sim := workload.NewSim(st)
		fs.step = func(dt float64) error { return sim.StepParallel(dt, procs, decide) }
	}
	// One untimed frame mints the recorders and grows the buffers to their working size.
	if err := fs.frame(frameDt); err != nil {
		return nil, fmt.Errorf("frame setup: %w", err)
	}
	return fs, nil
}

// frame runs one frame and takes its receipts, as a game loop would (reports accumulate until
// taken).
func (f *frameSim) frame(dt float64) error {
	if err := f.step(dt); err != nil {
		return err
	}
	_, err := f.st.TakeReport()
	return err
}

func (f *frameSim) close() error {
	if err := f.st.Close(); err != nil {
		return fmt.Errorf("frame: %w", err)
	}
	return nil
}

func frame(b bench.B, s StrategyInfo, a frameArg) error {
	fs, err := newFrameSim(s, a)
	if err != nil {
		return err
	}
	// moves/frame, on archetype storage: the rows the timed frames' commits moved between
	// tables (ecs.World.Moves), summed over the segments.
	var moves uint64
	moves0 := fs.w.Moves()
	// gc/frame counts the collections that completed during timed frames.
	var ms runtime.MemStats
	gcs := uint32(0)
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	var pm publishMeter // versioned: publish cost split, summed over the segments
	pm.start(fs.st)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N() {
		if i > 0 && i%frameSegment == 0 {
			b.StopTimer()
			pm.stop()
			runtime.ReadMemStats(&ms)
			gcs += ms.NumGC - gc0
			moves += fs.w.Moves() - moves0
			if err := fs.close(); err != nil {
				return err
			}
			if fs, err = newFrameSim(s, a); err != nil {
				return err
			}
			moves0 = fs.w.Moves()
			runtime.ReadMemStats(&ms)
			gc0 = ms.NumGC
			pm.start(fs.st)
			b.StartTimer()
		}
		if err := fs.frame(frameDt); err != nil {
			return fmt.Errorf("frame %d: %w", i, err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	gcs += ms.NumGC - gc0
	b.ReportMetric(float64(gcs)/float64(b.N()), "gc/frame")
	if a.storage == ecs.Archetypes {
		moves += fs.w.Moves() - moves0
		b.ReportMetric(float64(moves)/float64(b.N()), "moves/frame")
	}
	pm.report(b)
	return fs.close()
}
