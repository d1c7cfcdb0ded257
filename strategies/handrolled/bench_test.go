package handrolled_test

import (
	"testing"

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
