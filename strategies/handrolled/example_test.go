package handrolled_test

import (
	"fmt"
	"sync"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

// Producers fill their own slices and hand them over when done; the commit gathers and
// applies them in hand-over order.
func Example() {
	total := 0
	g := handrolled.New(&total, func(t *int, _ deferral.Pos, c *int) error { *t += *c; return nil })
	var wg sync.WaitGroup
	for p := 1; p <= 3; p++ {
		r := g.NewRecorder()
		wg.Go(func() {
			for range 10 {
				r.Stage(p)
			}
			r.Handover() // this producer is done
		})
	}
	wg.Wait()
	fmt.Println("pending:", g.Pending())
	if err := g.Commit(); err != nil {
		fmt.Println(err)
	}
	fmt.Println("total:", total)
	// Output:
	// pending: 30
	// total: 60
}

// The ECS flavour behind the shared contract; Handover marks a producer done.
func ExampleNewECS() {
	w := ecs.NewWorld()
	s := handrolled.NewECS(w)
	r := s.NewRecorder()
	p := r.Create(pos.Value(vec{1, 2}))
	r.Add(p, vel.Value(vec{0, 1}))
	s.Handover(r)
	if err := s.Commit(); err != nil {
		fmt.Println(err)
	}
	e, _ := s.Resolve(p)
	v, _ := vel.Get(w, e)
	fmt.Println(s.Name(), "entities:", w.Len(), "velocity:", v)
	// Output:
	// handrolled entities: 1 velocity: {0 1}
}
