package versioned_test

import (
	"fmt"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/versioned"
)

type Score struct{ Points int32 }

var scoreC = ecs.NewComponent[Score]("Score", nil)

// total sums the scores of the version a reader sees.
func total(w *ecs.World) (sum int32) {
	for e := range w.Query(ecs.MaskOf(scoreC.ID())) {
		s, _ := scoreC.Get(w, e)
		sum += s.Points
	}
	return sum
}

// ExampleNewECS stages a change while a reader reads: the reader sees the previous version
// until the commit publishes the new one, and never waits for the commit.
func ExampleNewECS() {
	w := ecs.NewWorld()
	e, _ := w.Create(scoreC.Value(Score{Points: 1}))
	s := versioned.NewECS(w, versioned.Options{}) // replay resync, no divergence check
	defer s.Close()
	r := s.NewRecorder()

	r.Set(e, scoreC.Value(Score{Points: 10}))
	r.Create(scoreC.Value(Score{Points: 5}))
	read := func() {
		s.ReadVersion(func(w *ecs.World, v uint64) error { // from any goroutine
			fmt.Printf("version %d: total %d\n", v, total(w))
			return nil
		})
	}
	read() // staged commands are not visible: no read-your-writes
	if err := s.Commit(); err != nil {
		panic(err)
	}
	read()
	st := s.Stats()
	fmt.Println("publishes", st.Publishes, "replays", st.Replays, "copies", st.Copies)
	// Output:
	// version 0: total 1
	// version 1: total 15
	// publishes 1 replays 1 copies 0
}
