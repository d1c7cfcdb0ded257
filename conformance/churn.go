package conformance

import (
	"runtime"

	"github.com/deferbench/deferbench/ecs"
)

// checkChurnBounded: creating and destroying entities through the strategy, frame after
// frame, with a small live set, holds bounded memory: the world reuses the destroyed slots
// and drops the tombstones of its live order, and the strategy's storage does not grow.
// 400 frames create 256 entities each and destroy them in the next commit (102,400 of each);
// the live heap after them may exceed what it was after 10 such frames by at most 128 KiB
// (one word per entity created would be 800 KiB).
func checkChurnBounded(x *fixture) {
	const perFrame, frames, warm = 256, 400, 10
	r := x.rec()
	ps := make([]ecs.Entity, perFrame)
	es := make([]ecs.Entity, perFrame)
	frame := func() bool {
		for i := range ps {
			ps[i] = r.Create(pt(float64(i), 0))
		}
		if !x.commit("commit of the creates", x.s) {
			return false
		}
		for i, p := range ps {
			es[i] = x.resolve("placeholder", x.s, p)
		}
		for _, e := range es {
			r.Destroy(e)
		}
		if !x.commit("commit of the destroys", x.s) {
			return false
		}
		_, err := x.s.TakeReport()
		return x.wantNil("take report", err)
	}
	for range warm {
		if !frame() {
			return
		}
	}
	h0 := liveHeap()
	for range frames {
		if !frame() {
			return
		}
	}
	h1 := liveHeap()
	want(x, "live entities after the churn", x.w.Len(), 0)
	held := int64(h1) - int64(h0)
	x.Logf("live heap after %d frames of %d creates and destroys: %d bytes over the heap after %d frames", frames, perFrame, held, warm)
	if held > 128<<10 {
		x.Errorf("live heap grew by %d bytes over %d frames that create and destroy %d entities each, want at most 128 KiB (memory grows with entities created, not live)",
			held, frames, perFrame)
	}
	runtime.KeepAlive(x.s)
}
