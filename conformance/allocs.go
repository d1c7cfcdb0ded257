package conformance

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
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
	for range 4 {
		round()
	}
	a := testing.AllocsPerRun(20, round)
	if x.caps.TypedAllocationFree && a != 0 {
		x.Errorf("allocs per round of %d staged and committed one-value commands = %v, want 0 (the strategy declares TypedAllocationFree)", 6*perRound, a)
	}
	if got, err := workload.Position.Get(x.w, e); err != nil || got != (workload.Vec2{X: 3, Y: 3}) {
		x.Errorf("value after the rounds = %v, %v; want {3 3}, nil", got, err)
	}
}
