package workload_test

import (
	"sync"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// sliceStrategy is a minimal deferral.Strategy for these tests: one slice per recorder,
// committed in recorder order, FIFO within, through deferral.Core. It ignores sort keys, which
// the Sim sets equal to the recorder number anyway. It keeps the workload's tests independent
// of any real strategy.
type sliceStrategy struct {
	core  *deferral.Core
	mu    sync.Mutex
	sinks []*sliceSink
}

type sliceEntry struct {
	cmd deferral.Command
	fn  func(*ecs.World) error
}

type sliceSink struct {
	items []sliceEntry
	done  int // applied prefix after a failed commit
}

func (k *sliceSink) StageKeyed(_ uint64, c deferral.Command) {
	k.items = append(k.items, sliceEntry{cmd: c})
}

func (k *sliceSink) StageFuncKeyed(_ uint64, fn func(*ecs.World) error) {
	k.items = append(k.items, sliceEntry{cmd: deferral.Command{Verb: deferral.VerbFunc}, fn: fn})
}

var _ deferral.Strategy = (*sliceStrategy)(nil)

func newSliceStrategy(w *ecs.World) *sliceStrategy {
	return &sliceStrategy{core: deferral.NewCore(w)}
}

func (s *sliceStrategy) Name() string { return "testslice" }

func (s *sliceStrategy) Capabilities() deferral.Capabilities {
	return deferral.Capabilities{ReproducibleOrder: true, Order: "recorder order, FIFO within"}
}

func (s *sliceStrategy) World() *ecs.World { return s.core.World() }

func (s *sliceStrategy) NewRecorder() *deferral.Recorder {
	k := &sliceSink{}
	s.mu.Lock()
	s.sinks = append(s.sinks, k)
	s.mu.Unlock()
	return s.core.NewRecorder(k)
}

func (s *sliceStrategy) Commit() error {
	if err := s.core.Begin(); err != nil {
		return err
	}
	for ri, k := range s.sinks {
		for k.done < len(k.items) {
			it := &k.items[k.done]
			at := deferral.Pos{Recorder: ri, Index: k.done}
			var err error
			if it.fn != nil {
				err = s.core.ApplyFunc(at, it.fn)
			} else {
				err = s.core.Apply(at, &it.cmd)
			}
			if err != nil {
				s.core.End(false)
				return err
			}
			k.done++
		}
	}
	s.reset()
	s.core.End(true)
	return nil
}

func (s *sliceStrategy) reset() {
	for _, k := range s.sinks {
		clear(k.items)
		k.items, k.done = k.items[:0], 0
	}
}

func (s *sliceStrategy) Pending() int {
	n := 0
	for _, k := range s.sinks {
		n += len(k.items) - k.done
	}
	return n
}

func (s *sliceStrategy) Discard() int {
	n := s.Pending()
	s.reset()
	s.core.Discarded()
	return n
}

func (s *sliceStrategy) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }

func (s *sliceStrategy) TakeReport() (deferral.Report, error) {
	return s.core.TakeReport(s.Pending())
}

func (s *sliceStrategy) Close() error { return s.core.Close(s.Pending()) }
