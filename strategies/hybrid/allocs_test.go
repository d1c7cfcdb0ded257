package hybrid_test

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/hybrid"
)

var allocPos = ecs.NewComponent[[2]float64]("hybrid.allocs.pos", nil)

// TestTypedAllocs: in steady state, staging and committing one-value Sets, Adds and Removes —
// through the Bundle API and deferral.Set/Add — allocates nothing.
func TestTypedAllocs(t *testing.T) {
	w := ecs.NewWorld()
	s := hybrid.Factory(w)
	r := s.NewRecorder()
	e, err := w.Create(allocPos.Value([2]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	round := func() {
		for i := range 64 {
			r.Set(e, allocPos.Value([2]float64{float64(i), 1}))
			deferral.Set(r, e, allocPos, [2]float64{1, float64(i)})
			r.Remove(e, allocPos.ID())
			r.Add(e, allocPos.Value([2]float64{2, 2}))
			r.Remove(e, allocPos.ID())
			deferral.Add(r, e, allocPos, [2]float64{3, 3})
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TakeReport(); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		round()
	}
	if a := testing.AllocsPerRun(50, round); a != 0 {
		t.Errorf("allocs per round of 384 staged and committed commands = %v, want 0", a)
	}
	if got, _ := allocPos.Get(w, e); got != ([2]float64{3, 3}) {
		t.Errorf("value after the rounds = %v, want [3 3]", got)
	}
}
