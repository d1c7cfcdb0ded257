package cmdbuffer_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

func BenchmarkStage(b *testing.B)      { conformance.BenchmarkStage(b, cmdbuffer.Factory) }
func BenchmarkStageApply(b *testing.B) { conformance.BenchmarkStageApply(b, cmdbuffer.Factory) }
func BenchmarkContention(b *testing.B) { conformance.BenchmarkContention(b, cmdbuffer.Factory) }

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

	// The same commands staged 64 at a time from a local array (StageAll), against appending
	// the array to a local slice: ns/op per command.
	const batch = 64
	b.Run("strategy=baseline/cmd=generic16-batch64", func(b *testing.B) {
		buf := make([]cmd16, 0, 1<<10)
		var cs [batch]cmd16
		for i := 0; i < b.N; i += batch {
			for j := range cs {
				cs[j] = cmd16{body: uint32(i + j), force: 1}
			}
			if len(buf)+batch > cap(buf) {
				buf = buf[:0]
			}
			buf = append(buf, cs[:min(batch, b.N-i)]...)
		}
		target.sum += float64(len(buf))
	})
	b.Run("strategy=cmdbuffer/cmd=generic16-batch64", func(b *testing.B) {
		buf := cmdbuffer.New(&target, func(t *struct{ sum float64 }, _ deferral.Pos, c *cmd16) error { t.sum += c.force; return nil })
		r := buf.NewRecorder()
		var cs [batch]cmd16
		n := 0
		for i := 0; i < b.N; i += batch {
			for j := range cs {
				cs[j] = cmd16{body: uint32(i + j), force: 1}
			}
			if n+batch > 1<<10 {
				buf.Discard()
				n = 0
			}
			r.StageAll(cs[:min(batch, b.N-i)])
			n += batch
		}
		buf.Discard()
	})
}
