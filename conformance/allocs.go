package conformance

import (
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/internal/allocs"
	"github.com/deferbench/deferbench/workload"
)

// allocsName names the steady-state allocation row after the declared capability.
func allocsName(caps deferral.Capabilities) string {
	if caps.TypedAllocationFree {
		return "TypedAllocationFree"
	}
	return "TypedAllocationNotClaimed"
}

// checkTypedAllocs stages and commits rounds of one-value typed commands — through the Bundle
// API (Recorder.Set, Add, Remove) and the generic entry points (deferral.Set, Add) — and, for
// a strategy that declares Capabilities.TypedAllocationFree, asserts that a round allocates
// nothing once the buffers have grown. Every strategy must leave the value the last command
// wrote. Allocation counts are deterministic, so this is exact, also under the race detector.
func checkTypedAllocs(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	const perRound = 64
	round := func() {
		for i := range perRound {
			r.Set(e, pt(float64(i), 1))
			deferral.Set(r, e, workload.Position, workload.Vec2{X: 1, Y: float64(i)})
			r.Remove(e, workload.Position.ID())
			r.Add(e, pt(2, 2))
			r.Remove(e, workload.Position.ID())
			deferral.Add(r, e, workload.Position, workload.Vec2{X: 3, Y: 3})
		}
		if err := x.s.Commit(); err != nil {
			x.Fatalf("typed round: commit: %v", err)
		}
		if _, err := x.s.TakeReport(); err != nil {
			x.Fatalf("typed round: take report: %v", err)
		}
	}
	// Warm up over two shrink windows, then count every allocation of three more: a buffer
	// cut back at each window's end and grown again allocates a few times per window, which
	// testing.AllocsPerRun (it rounds the mean down) reads as 0.
	for range 2 * deferral.ShrinkWindow {
		round()
	}
	if n := allocs.Count(3*deferral.ShrinkWindow, round); x.caps.TypedAllocationFree && n != 0 {
		x.Errorf("%d allocations in %d rounds of %d staged and committed one-value commands, want 0 (the strategy declares TypedAllocationFree)", n, 3*deferral.ShrinkWindow, 6*perRound)
	}
	// The same rounds dropped by Discard instead of committed: the other end of a frame.
	discarded := func() {
		for i := range perRound {
			r.Set(e, pt(float64(i), 1))
			deferral.Set(r, e, workload.Position, workload.Vec2{X: 1, Y: float64(i)})
		}
		if n := x.s.Discard(); n != 2*perRound {
			x.Fatalf("typed round: Discard = %d, want %d", n, 2*perRound)
		}
	}
	for range 2 * deferral.ShrinkWindow {
		discarded()
	}
	if n := allocs.Count(3*deferral.ShrinkWindow, discarded); x.caps.TypedAllocationFree && n != 0 {
		x.Errorf("%d allocations in %d rounds of %d staged and discarded Sets, want 0 (the strategy declares TypedAllocationFree)", n, 3*deferral.ShrinkWindow, 2*perRound)
	}
	if got, err := workload.Position.Get(x.w, e); err != nil || got != (workload.Vec2{X: 3, Y: 3}) {
		x.Errorf("value after the rounds = %v, %v; want {3 3}, nil", got, err)
	}
}
