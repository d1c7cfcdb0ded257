package harness

import (
	"slices"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// traceStager logs what runAddRemove asks of it, one operation or commit at a time.
type traceStager struct{ log []int } // operation j, or -1 for a commit

func (x *traceStager) stage(_ []ecs.Entity, j, k, _ int) {
	if j >= k || (j < addRemoveRound/2) != (k <= addRemoveRound/2) || k > addRemoveRound {
		panic("stage run crosses a commit")
	}
	for ; j < k; j++ {
		x.log = append(x.log, j)
	}
}

func (x *traceStager) commit() error { x.log = append(x.log, -1); return nil }

// TestRunAddRemoveSplits checks that however b.N splits the rounds, the operations come in
// round order with a commit after each half, exactly n of them per call.
func TestRunAddRemoveSplits(t *testing.T) {
	var want []int
	for range 3 {
		for j := range addRemoveRound {
			want = append(want, j)
			if j == addRemoveRound/2-1 || j == addRemoveRound-1 {
				want = append(want, -1)
			}
		}
	}
	for _, sizes := range [][]int{{1200}, {1, 1199}, {199, 1, 1, 399, 600}, {200, 200, 800}, {7, 393, 401, 399}} {
		var x traceStager
		j := 0
		for _, n := range sizes {
			var err error
			if j, err = runAddRemove(&x, nil, j, n); err != nil {
				t.Fatal(err)
			}
		}
		if j != 0 || !slices.Equal(x.log, want) {
			t.Errorf("sizes %v: ended at %d, log differs from three whole rounds (%d entries, want %d)", sizes, j, len(x.log), len(want))
		}
	}
}
