package cmdbuffer_test

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

// BenchmarkStage measures staging one typed command through the shared contract, against
// appending the same record to a preallocated slice.
func BenchmarkStage(b *testing.B) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	b.Run("strategy=baseline/cmd=typed", func(b *testing.B) {
		buf := make([]deferral.Command, 0, 1<<10)
		for i := 0; i < b.N; i++ {
			if len(buf) == cap(buf) {
				buf = buf[:0]
			}
			buf = append(buf, deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: pos.Value(vec{1, 2})})
		}
	})
	b.Run("strategy=cmdbuffer/cmd=typed", func(b *testing.B) {
		s := cmdbuffer.NewECS(w)
		r := s.NewRecorder()
		n := 0
		for i := 0; i < b.N; i++ {
			if n == 1<<10 {
				s.Discard()
				n = 0
			}
			r.Set(e, pos.Value(vec{1, 2}))
			n++
		}
		s.Discard()
	})
}
