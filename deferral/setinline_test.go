package deferral_test

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// TestSetAddOutOfLineKeepBundleOnStack: Recorder.Set and Add are inlined where they are
// called, their out-of-line path a call through a parameter; the Bundle that Component.Value
// builds must still stay in the caller's frame on every path. With room in the sink, none of
// these allocates: a sink without a stream (every record goes out of line), a bundle of two
// values, a value over 24 bytes, and the stream's own fast path.
func TestSetAddOutOfLineKeepBundleOnStack(t *testing.T) {
	w := ecs.NewWorld()
	e, err := w.Create(ecs.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	slice := &fastSliceSink{cmds: make([]deferral.Command, 0, 1024)}
	rs := deferral.NewCore(w).NewRecorder(slice)
	var s deferral.Stream
	rt := deferral.NewCore(w).NewRecorder(&streamKeyedSink{s: &s})
	for range 64 { // the stream grows to its size here, not inside AllocsPerRun
		rt.Set(e, c2W4.Value([4]uint64{1, 2, 3, 4}))
	}
	s.Drop(s.Len(), len(s.Words()))
	var x uint64
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Set, sink without a stream", func() { rs.Set(e, c2U32.Value(uint32(x))) }},
		{"Add, sink without a stream", func() { rs.Add(e, c2V2.Value([2]float64{float64(x)})) }},
		{"Set, stream fast path", func() { rt.Set(e, c2W3.Value([3]uint64{x, x, x})) }},
		{"Add, two values", func() { rt.Add(e, c2U32.Value(uint32(x)).With(c2U8.Value(uint8(x)))) }},
		{"Set, 32-byte value", func() { rt.Set(e, c2W4.Value([4]uint64{x})) }},
		{"Add, 40-byte value", func() { rt.Add(e, c2W5.Value([5]uint64{x})) }},
	} {
		a := testing.AllocsPerRun(100, func() {
			x++
			c.f()
			slice.cmds = slice.cmds[:0]
			if s.Len() > 16 {
				s.Drop(s.Len(), len(s.Words()))
			}
		})
		if a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, a)
		}
	}
	if got := len(slice.slow); got != 0 {
		t.Errorf("%d commands went to the sink's keyed path, want 0", got)
	}
}
