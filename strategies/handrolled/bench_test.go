package handrolled_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

// batch is how many commands a benchmark stages before it resets the strategy.
const batch = 1 << 12

// BenchmarkStage measures staging one ECS command through the shared contract: an append to
// the producer's own slice. The reset every batch commands (Discard) runs with the timer
// stopped, as in lazyguarded's benchmark.
func BenchmarkStage(b *testing.B) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	b.Run("strategy=handrolled/cmd=typed", func(b *testing.B) {
		s := handrolled.NewECS(w)
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
	b.Run("strategy=handrolled/cmd=closure", func(b *testing.B) {
		s := handrolled.NewECS(w)
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

// BenchmarkStageApply measures staging one typed ECS command plus its share of the commit
// (hand-over, gather copy, apply), committing every batch commands.
func BenchmarkStageApply(b *testing.B) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	b.Run("strategy=handrolled/cmd=typed", func(b *testing.B) {
		s := handrolled.NewECS(w)
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

// BenchmarkContention measures staging with P producers on P goroutines into one strategy:
// appends to their own slices, each handed over when its producer is done. Each round stages about batch commands split across the producers; ns/cmd is the
// wall time per staged command (the reset between rounds runs with the timer stopped).
func BenchmarkContention(b *testing.B) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	{
		for _, p := range []int{1, 2, 4, 8} {
			s := handrolled.NewECS(w)
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
							s.Handover(r)
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
