package conformance

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// spikeShape is what the spike frame of a SpikeReleased row stages.
type spikeShape uint8

const (
	spikeTyped   spikeShape = iota // Set commands
	spikeClosure                   // closures (Recorder.Do)
	spikeMixed                     // Set and closure alternately
	spikeKeyed                     // Set commands with a sort key (a keyed commit's storage)
)

// Sizes of the SpikeReleased rows: the spike, in commands (fewer under -short); the ordinary
// frames that follow it, in frames and commands; and the most live heap a strategy may still
// hold after them. Buffers that kept the spike's capacity hold megabytes (a typed record or
// a closure slot is 16 to 64 bytes); the bound is four bytes per spike command, far above
// the steady state (tens of KiB) and far below any per-command slot.
const (
	spikeCommands      = 1 << 18
	spikeCommandsShort = 1 << 17
	spikeFrames        = 3*deferral.ShrinkWindow - 1 // the most deferral.Watermark may take
	spikeFrameCommands = 100
)

// checkSpikeReleased returns the SpikeReleased row for one shape: one frame stages a spike of
// commands through one recorder, then ordinary frames of the same shape follow, and the
// strategy must release the spike's storage within 3×ShrinkWindow−1 ordinary commits (the
// bound deferral.Watermark promises, whichever cycle of its window the spike falls in), its
// typed records and its closure tier alike: after them the live heap (after a
// full collection) may exceed what it was before the spike by at most four bytes per spike
// command.
//
// Every commit also runs a closure that stages, during the commit, a Set and a closure on the
// same recorder, so that the commits that shrink a buffer find commands staged during them in
// it: each must apply, in order, in the next commit.
func checkSpikeReleased(shape spikeShape) func(x *fixture) {
	return func(x *fixture) {
		n := spikeCommands
		if testing.Short() {
			n = spikeCommandsShort
		}
		e := x.create(x.w, pt(0, 0))
		late := x.create(x.w, pt(-2, 0)) // written by the Set staged during each commit
		r := x.rec()
		if shape == spikeKeyed {
			r.SetSortKey(7) // the Sets staged during each commit as well
		}
		ran, lateRan := 0, -2
		count := func(*ecs.World) error { ran++; return nil }
		staged := 0 // closures staged by the frames (not during commits)
		frame := func(k, n int) bool {
			for i := range n {
				if shape == spikeClosure || shape == spikeMixed && i%2 == 1 {
					r.Do(count)
					staged++
					continue
				}
				r.Set(e, pt(float64(k), float64(i)))
			}
			r.Do(func(*ecs.World) error {
				r.Set(late, pt(float64(k), 0))
				r.Do(func(*ecs.World) error { lateRan = k; return nil })
				return nil
			})
			if !x.commit("commit of frame "+strconv.Itoa(k), x.s) {
				return false
			}
			// What the previous frame's commit staged applied first in this one.
			if !want(x, "frame "+strconv.Itoa(k)+": the Set staged during the commit before", x.pos("read late", x.w, late), v2(float64(k-1), 0)) ||
				!want(x, "frame "+strconv.Itoa(k)+": the closure staged during the commit before ran", lateRan, k-1) ||
				!want(x, "frame "+strconv.Itoa(k)+": pending after the commit (what its closure staged)", x.s.Pending(), 2) {
				return false
			}
			return true
		}
		// Warm: the strategy's steady buffers exist before the heap is first read.
		if !frame(-1, spikeFrameCommands) {
			return
		}
		h0 := liveHeap()
		if !frame(0, n) {
			return
		}
		for k := 1; k <= spikeFrames; k++ {
			if !frame(k, spikeFrameCommands) {
				return
			}
		}
		h1 := liveHeap()
		x.commit("last commit", x.s)
		want(x, "closures run", ran, staged)
		want(x, "the last closure staged during a commit ran", lateRan, spikeFrames)
		held, bound := int64(h1)-int64(h0), int64(4*n)
		x.Logf("live heap held after a spike of %d commands (%s) and %d frames: %d bytes (bound %d)", n, shape, spikeFrames, held, bound)
		if held > bound {
			x.Errorf("live heap held after a spike of %d commands (%s) and %d frames of %d: %d bytes more than before it, want at most %d (4 bytes per spike command)",
				n, shape, spikeFrames, spikeFrameCommands, held, bound)
		}
		runtime.KeepAlive(x.s)
	}
}

func (s spikeShape) String() string {
	return [...]string{"typed", "closures", "typed and closures", "typed with a sort key"}[s]
}

// liveHeap returns the live heap after a full collection, in bytes.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// checkWorkingSetKept: buffers keep the capacity of a working set whose largest frame comes
// once every 2×ShrinkWindow commits (deferral.Watermark remembers the previous window as well
// as the current one), so such a frame allocates no more than when it comes every
// ShrinkWindow commits, where no window lacks it. Frames stage typed commands and closures
// alike, with no sort key and with one (a keyed commit's order index is storage too); what is
// compared is the bytes a large frame allocates (staging and commit), as a mean over four
// periods after three of warm-up.
func checkWorkingSetKept(x *fixture) {
	const big, small = 4096, 16
	noop := func(*ecs.World) error { return nil }
	bytesPerBigFrame := func(period int, key uint64) float64 {
		w, s := x.pair()
		e := x.create(w, pt(0, 0))
		r := s.NewRecorder()
		r.SetSortKey(key)
		frame := func(n int) {
			for i := range n {
				if i%2 == 1 {
					r.Do(noop)
					continue
				}
				r.Set(e, pt(float64(i), 0))
			}
			x.commit("commit", s)
		}
		const warm, periods = 3, 4
		var total uint64
		for p := range warm + periods {
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			frame(big)
			runtime.ReadMemStats(&ms1)
			if p >= warm {
				total += ms1.TotalAlloc - ms0.TotalAlloc
			}
			for range period - 1 {
				frame(small)
			}
		}
		return float64(total) / periods
	}
	every := bytesPerBigFrame(deferral.ShrinkWindow, 0)
	everyOther := bytesPerBigFrame(2*deferral.ShrinkWindow, 0)
	keyed := bytesPerBigFrame(2*deferral.ShrinkWindow, 7)
	x.Logf("bytes a frame of %d commands allocates: %.0f when it comes every %d commits, %.0f every %d, %.0f every %d with sort key 7",
		big, every, deferral.ShrinkWindow, everyOther, 2*deferral.ShrinkWindow, keyed, 2*deferral.ShrinkWindow)
	if everyOther > every+4*big {
		x.Errorf("a frame of %d commands coming every %d commits allocates %.0f bytes, %.0f more than when it comes every %d: its buffers were cut between two of its frames, want them kept (the previous window's largest use counts)",
			big, 2*deferral.ShrinkWindow, everyOther, everyOther-every, deferral.ShrinkWindow)
	}
	if keyed > every+4*big {
		x.Errorf("a frame of %d commands with sort key 7 coming every %d commits allocates %.0f bytes, %.0f more than without a key every %d: the keyed commit's storage was not kept",
			big, 2*deferral.ShrinkWindow, keyed, keyed-every, deferral.ShrinkWindow)
	}
}
