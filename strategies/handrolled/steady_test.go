package handrolled_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/internal/allocs"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/workload"
)

// TestHandoverDiscardAllocationFree: a producer that stages typed Sets, hands them over and
// has them discarded, frame after frame (the Stage benchmark's cycle), allocates nothing once
// its arrays have grown, over several shrink windows. The spare array used to be cut back
// every deferral.ShrinkWindow discards and grown again.
func TestHandoverDiscardAllocationFree(t *testing.T) {
	w, ents, err := bench.NewTargets()
	if err != nil {
		t.Fatal(err)
	}
	st := handrolled.Factory(w)
	r := st.NewRecorder()
	cycle := func() {
		for i, e := range ents {
			r.Set(e, workload.Position.Value(workload.Vec2{X: float64(i)}))
		}
		bench.Handover(st, r)
		st.Discard()
	}
	for range 2 * deferral.ShrinkWindow { // warm both arrays and the watermark
		cycle()
	}
	// Counted over all cycles together (testing.AllocsPerRun rounds down per run, and the
	// fault allocated a few times per window).
	if n := allocs.Count(3*deferral.ShrinkWindow, cycle); n != 0 {
		t.Errorf("stage %d Sets, hand over, discard: %d allocations in %d cycles in steady state, want 0", len(ents), n, 3*deferral.ShrinkWindow)
	}
}
