package cmdbuffer_test

import (
	"fmt"
	"sync"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

type Health struct{ HP int32 }

var healthC = ecs.NewComponent[Health]("Health", nil)

// ExampleNewECS defers structural changes decided by two producer goroutines while they
// walk the world, then commits them at the sync point in a reproducible order.
func ExampleNewECS() {
	w := ecs.NewWorld()
	for hp := range int32(4) {
		if _, err := w.Create(healthC.Value(Health{HP: hp})); err != nil {
			panic(err)
		}
	}
	var alive []ecs.Entity
	for e := range w.Query(ecs.MaskOf(healthC.ID())) {
		alive = append(alive, e)
	}

	s := cmdbuffer.NewECS(w)
	var wg sync.WaitGroup
	for i, part := range [][]ecs.Entity{alive[:2], alive[2:]} {
		r := s.NewRecorder() // one recorder per producer goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, e := range part {
				if hp, _ := healthC.Get(w, e); hp.HP == 0 {
					r.Destroy(e)                                            // dead: despawn
					p := r.Create(healthC.Value(Health{HP: 10 + int32(i)})) // and respawn
					r.Set(p, healthC.Value(Health{HP: 20 + int32(i)}))      // placeholders are usable at once
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Commit(); err != nil { // the sync point
		panic(err)
	}
	rep, _ := s.TakeReport()
	fmt.Println("destroyed", rep.Destroyed, "created", len(rep.Created), "alive", w.Len())
	for e := range w.Entities() {
		hp, _ := healthC.Get(w, e)
		fmt.Print(hp.HP, " ")
	}
	fmt.Println()
	// Output:
	// destroyed 1 created 1 alive 4
	// 1 2 3 20
}
