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
	Description: "bounded memory: one frame staging and committing a spike of typed commands, then 40 ordinary frames of 1024; " +
		"ns/op per ordinary frame (stage 1024 Set commands through one recorder, commit); " +
		"retained-B = live heap the strategy holds after the spike and the 40 frames, steady-B = after 41 ordinary frames, " +
		"retained-x = retained-B / steady-B",
	Variants: func(cfg VariantConfig) []Variant {
		n := 1 << 20
		if cfg.Quick {
			n = 1 << 16
		}
		return []Variant{{Params: []Param{{"spike", strconv.Itoa(n)}, {"frames", strconv.Itoa(spikeAfter)}}, Arg: n}}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // the baseline's slice has no shrink policy to measure
		}
		n := v.Arg.(int)
		return func(b *testing.B) error { return spike(b, s, n) }
	},
}

// spikeRun is one strategy over a fresh target, staging through one recorder.
type spikeRun struct {
	st deferral.Strategy
	r  *deferral.Recorder
	e  []ecs.Entity
}

// frame stages n Set commands and commits them.
func (x *spikeRun) frame(n int) error {
	for i := range n {
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
func spike(b *testing.B, s StrategyInfo, n int) error {
	key := "spike/" + s.Name + "/" + strconv.Itoa(n)
	retainedMu.Lock()
	held, ok := retained[key]
	steady := retained[key+"/steady"]
	retainedMu.Unlock()
	if !ok {
		var err error
		held, err = heldAfter(s, func(x *spikeRun) error {
			if err := x.frame(n); err != nil {
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
	if steady > 0 {
		b.ReportMetric(held/steady, "retained-x")
	}
	return x.st.Close()
}
