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

// cmd16 is a 16-byte typed command of the generic tier (a body index and a force).
type cmd16 struct {
	body  uint32
	_     uint32
	force float64
}

// BenchmarkStageGeneric measures staging one 16-byte command through the generic tier
// (Recorder.Stage), against appending it to a local slice in the same loop shape. Buffers
// are dropped every 1024 commands.
func BenchmarkStageGeneric(b *testing.B) {
	var target struct{ sum float64 }
	b.Run("strategy=baseline/cmd=generic16", func(b *testing.B) {
		buf := make([]cmd16, 0, 1<<10)
		for i := 0; i < b.N; i++ {
			if len(buf) == cap(buf) {
				buf = buf[:0]
			}
			buf = append(buf, cmd16{body: uint32(i), force: 1})
		}
		target.sum += float64(len(buf))
	})
	b.Run("strategy=cmdbuffer/cmd=generic16", func(b *testing.B) {
		buf := cmdbuffer.New(&target, func(t *struct{ sum float64 }, _ deferral.Pos, c *cmd16) error { t.sum += c.force; return nil })
		r := buf.NewRecorder()
		n := 0
		for i := 0; i < b.N; i++ {
			if n == 1<<10 {
				buf.Discard()
				n = 0
			}
			r.Stage(cmd16{body: uint32(i), force: 1})
			n++
		}
		buf.Discard()
	})
	// The batch form: commands built in a local slice of 64, staged with one StageMany.
	b.Run("strategy=cmdbuffer/cmd=generic16-batch64", func(b *testing.B) {
		buf := cmdbuffer.New(&target, func(t *struct{ sum float64 }, _ deferral.Pos, c *cmd16) error { t.sum += c.force; return nil })
		r := buf.NewRecorder()
		local := make([]cmd16, 0, 64)
		n := 0
		for i := 0; i < b.N; i++ {
			local = append(local, cmd16{body: uint32(i), force: 1})
			if len(local) == cap(local) {
				if n == 1<<10 {
					buf.Discard()
					n = 0
				}
				r.StageMany(local)
				n += len(local)
				local = local[:0]
			}
		}
		r.StageMany(local)
		buf.Discard()
	})
}
