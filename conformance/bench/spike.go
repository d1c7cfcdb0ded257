package bench

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// SpikeFrame is the size of Spike's ordinary frame, in commands; SpikeFrames is how many
// ordinary frames follow the spike before the retained heap is measured (the frames=… key of
// its names).
const (
	SpikeFrame  = 1024
	SpikeFrames = 40
)

// SpikeSize is the spike of deferbench's default suite (spike=…), in commands; its -quick
// suite stages 1<<16.
const SpikeSize = 1 << 20

// Spike times ordinary frames of a strategy f makes — stage SpikeFrame Set commands through
// one recorder, commit — ns/op per frame, with B/op and allocs/op. Once per strategy name and
// n (untimed, at the body's first call) it measures bounded memory: retained-B, the live heap
// a fresh strategy holds after one frame that stages and commits a spike of n commands and
// SpikeFrames ordinary frames; steady-B, after SpikeFrames+1 ordinary frames; and retained-x
// = RetainedX(retained-B, steady-B). The baseline has no shrink policy to measure: f nil is an
// error, as are n < 1 and the strategy's commit and Close errors.
func Spike(b B, f deferral.Factory, n int) error { return spike(b, f, n, false, ecs.Slots) }

// SpikeOn is Spike on a world of storage s (ecs.Slots or ecs.Archetypes): the targets the
// frames' Set commands name live in that storage's columns. deferbench names its rows on
// archetypes storage=archetypes.
func SpikeOn(b B, f deferral.Factory, n int, s ecs.Storage) error { return spike(b, f, n, false, s) }

// SpikeClosures is Spike with a spike frame that stages n closures (Recorder.Do of one shared
// function, so the heap measured is the strategy's storage, not the closures') instead of
// typed Set commands: the closure tier must shrink back after a spike as the typed tier does.
// Its ordinary frames, metrics and errors are Spike's; deferbench names its rows tier=closure.
func SpikeClosures(b B, f deferral.Factory, n int) error { return spike(b, f, n, true, ecs.Slots) }

// SpikeClosuresOn is SpikeClosures on a world of storage s.
func SpikeClosuresOn(b B, f deferral.Factory, n int, s ecs.Storage) error {
	return spike(b, f, n, true, s)
}

func spike(b B, f deferral.Factory, n int, closures bool, s ecs.Storage) error {
	if f == nil {
		return errors.New("spike: the baseline has no shrink policy to measure: give a strategy")
	}
	if n < 1 {
		return fmt.Errorf("spike: size %d: want at least 1", n)
	}
	x, err := newSpikeRun(f, s)
	if err != nil {
		return err
	}
	v, err := measureOnce("Spike/"+x.st.Name()+"/"+strconv.Itoa(n)+"/"+strconv.FormatBool(closures)+"/"+s.String(), func() ([]float64, error) {
		held, err := heldAfter(f, s, func(x *spikeRun) error {
			if err := x.spikeFrame(n, closures); err != nil {
				return err
			}
			for range SpikeFrames {
				if err := x.frame(SpikeFrame); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		steady, err := heldAfter(f, s, func(x *spikeRun) error {
			for range SpikeFrames + 1 {
				if err := x.frame(SpikeFrame); err != nil {
					return err
				}
			}
			return nil
		})
		return []float64{held, steady}, err
	})
	if err != nil {
		x.st.Close()
		return err
	}
	if err := x.frame(SpikeFrame); err != nil { // warm
		return err
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N() {
		if err := x.frame(SpikeFrame); err != nil {
			return err
		}
	}
	b.StopTimer()
	b.ReportMetric(v[0], "retained-B")
	b.ReportMetric(v[1], "steady-B")
	b.ReportMetric(RetainedX(v[0], v[1]), "retained-x")
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

// spikeRun is one strategy over a fresh target, staging through one recorder.
type spikeRun struct {
	st deferral.Strategy
	r  *deferral.Recorder
	e  []ecs.Entity
}

// frame stages n Set commands and commits them.
func (x *spikeRun) frame(n int) error { return x.spikeFrame(n, false) }

// spikeClosure is the closure a closure spike stages.
func spikeClosure(*ecs.World) error { return nil }

// spikeFrame stages n commands, closures if closures, and commits them.
func (x *spikeRun) spikeFrame(n int, closures bool) error {
	for i := range n {
		if closures {
			x.r.Do(spikeClosure)
			continue
		}
		x.r.Set(x.e[i&(Targets-1)], workload.Position.Value(workload.Vec2{X: float64(i)}))
	}
	Handover(x.st, x.r)
	if err := x.st.Commit(); err != nil {
		return fmt.Errorf("spike: %w", err)
	}
	_, err := x.st.TakeReport()
	return err
}

func newSpikeRun(f deferral.Factory, s ecs.Storage) (*spikeRun, error) {
	w, ents, err := NewTargetsOn(s)
	if err != nil {
		return nil, err
	}
	st := f(w)
	return &spikeRun{st: st, r: st.NewRecorder(), e: ents}, nil
}

// heldAfter returns the heap a fresh strategy holds (live heap over what it held before its
// first frame) after running frames.
func heldAfter(f deferral.Factory, s ecs.Storage, frames func(x *spikeRun) error) (float64, error) {
	x, err := newSpikeRun(f, s)
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
