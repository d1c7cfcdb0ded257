// Package spiketest holds the one test of the bounded-memory policy that every buffering
// strategy shares (deferral.Watermark): after a frame that stages a spike of commands,
// ordinary frames bring the buffers back towards the working set. Each strategy's test calls
// Released with its factory.
package spiketest

import (
	"runtime"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

type vec struct{ X, Y float64 }

var pos = ecs.NewComponent[vec]("spiketest.pos", nil)

// Released stages a spike of 2^18 Set commands (18 MiB of records) in one frame, then runs
// 3×deferral.ShrinkWindow frames of 100 commands, and fails t when the strategy still holds
// more than 2 MiB of live heap.
func Released(t *testing.T, f deferral.Factory) {
	t.Helper()
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	s := f(w)
	r := s.NewRecorder()
	frame := func(n int) {
		for range n {
			r.Set(e, pos.Value(vec{1, 1}))
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	h0 := heap()
	frame(1 << 18)
	for range 3 * deferral.ShrinkWindow {
		frame(100)
	}
	if held := heap() - h0; held > 2<<20 {
		t.Errorf("live heap held after a spike of %d commands and %d small frames: %d bytes, want under 2 MiB", 1<<18, 3*deferral.ShrinkWindow, held)
	}
	runtime.KeepAlive(s)
}
