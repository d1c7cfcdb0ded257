package lazyguarded_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

// batch is how many commands a benchmark stages before it resets the strategy.
const batch = 1 << 12

// BenchmarkStage measures staging one ECS command through the shared contract: every command
// becomes a parked write job (closure, task, completion channel, pipe mutex). The reset every
// batch commands (Discard) runs with the timer stopped.
func BenchmarkStage(b *testing.B) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	for _, mode := range []lazyguarded.ReaderMode{lazyguarded.ReadersWait, lazyguarded.ReadersPass} {
		name := lazyguarded.NewECS(w, mode).Name()
		b.Run("strategy="+name+"/cmd=typed", func(b *testing.B) {
			s := lazyguarded.NewECS(w, mode)
			r := s.NewRecorder()
			n := 0
			for b.Loop() {
				if n == batch {
					b.StopTimer()
					s.Discard()
					b.StartTimer()
					n = 0
				}
				r.Set(e, pos.Value(vec{1, 2}))
				n++
			}
			s.Discard()
		})
		b.Run("strategy="+name+"/cmd=closure", func(b *testing.B) {
			s := lazyguarded.NewECS(w, mode)
			r := s.NewRecorder()
			n := 0
			for b.Loop() {
				if n == batch {
					b.StopTimer()
					s.Discard()
					b.StartTimer()
					n = 0
				}
				r.Do(func(w *ecs.World) error { return pos.Set(w, e, vec{1, 2}) })
				n++
			}
			s.Discard()
		})
	}
}

// BenchmarkStageApply measures staging one typed ECS command plus its share of the commit
// (the flush), committing every batch commands.
func BenchmarkStageApply(b *testing.B) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	for _, mode := range []lazyguarded.ReaderMode{lazyguarded.ReadersWait, lazyguarded.ReadersPass} {
		s := lazyguarded.NewECS(w, mode)
		b.Run("strategy="+s.Name()+"/cmd=typed", func(b *testing.B) {
			r := s.NewRecorder()
			n := 0
			for b.Loop() {
				if n == batch {
					if err := s.Commit(); err != nil {
						b.Fatal(err)
					}
					n = 0
				}
				r.Set(e, pos.Value(vec{1, 2}))
				n++
			}
			if err := s.Commit(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkContention measures staging with P producers on P goroutines into one strategy:
// parked write jobs on one pipe: every stage takes the pipe mutex. Each round stages about batch commands split across the producers; ns/cmd is the
// wall time per staged command (the reset between rounds runs with the timer stopped).
func BenchmarkContention(b *testing.B) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	for _, mode := range []lazyguarded.ReaderMode{lazyguarded.ReadersWait, lazyguarded.ReadersPass} {
		for _, p := range []int{1, 2, 4, 8} {
			s := lazyguarded.NewECS(w, mode)
			b.Run(fmt.Sprintf("strategy=%s/producers=%d", s.Name(), p), func(b *testing.B) {
				recs := make([]*deferral.Recorder, p)
				for i := range recs {
					recs[i] = s.NewRecorder()
				}
				per := batch / p
				cmds := 0
				for cmds < b.N {
					var wg sync.WaitGroup
					for _, r := range recs {
						wg.Go(func() {
							for range per {
								r.Set(e, pos.Value(vec{1, 2}))
							}
						})
					}
					wg.Wait()
					cmds += per * p
					b.StopTimer()
					s.Discard()
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cmds), "ns/cmd")
			})
		}
	}
}
