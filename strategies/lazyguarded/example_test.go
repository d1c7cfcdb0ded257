package lazyguarded_test

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

// A render queue behind a lazy pipe: draws staged by a recorder park until the flush; a
// readers-wait read submitted behind them sees them all.
func Example() {
	type draw struct{ mesh, material int }
	queue := []draw{}
	g := lazyguarded.NewReadersWait(&queue)
	r := lazyguarded.NewRecorder(g, func(q *[]draw, _ deferral.Pos, d *draw) error {
		*q = append(*q, *d)
		return nil
	})
	r.Stage(draw{mesh: 1, material: 7})
	last := r.Stage(draw{mesh: 2, material: 3}) // every staged command is a task
	seen := 0
	count := g.Read(func(q *[]draw) error { seen = len(*q); return nil })
	fmt.Println("parked:", g.Pending())
	if err := g.Flush(); err != nil {
		fmt.Println(err)
	}
	fmt.Println("last draw applied:", last.Wait() == nil)
	count.Wait()
	fmt.Println("reader sees", seen, "draws")
	// Output:
	// parked: 2
	// last draw applied: true
	// reader sees 2 draws
}

// In readers-pass mode a read runs at once against the pre-flush state.
func ExampleNewReadersPass() {
	n := 0
	g := lazyguarded.NewReadersPass(&n)
	g.Write(func(n *int) error { *n = 42; return nil })
	g.Read(func(n *int) error { fmt.Println("before flush:", *n); return nil }).Wait()
	g.Flush()
	g.Read(func(n *int) error { fmt.Println("after flush:", *n); return nil }).Wait()
	// Output:
	// before flush: 0
	// after flush: 42
}

// The ECS flavour behind the shared contract.
func ExampleNewECS() {
	w := ecs.NewWorld()
	s := lazyguarded.NewECS(w, lazyguarded.ReadersWait)
	r := s.NewRecorder()
	p := r.Create(pos.Value(vec{1, 2}))
	r.Add(p, vel.Value(vec{0, 1}))
	fmt.Println(s.Name(), "pending:", s.Pending(), "entities:", w.Len())
	if err := s.Commit(); err != nil {
		fmt.Println(err)
	}
	e, _ := s.Resolve(p)
	v, _ := vel.Get(w, e)
	fmt.Println("entities:", w.Len(), "velocity:", v)
	// Output:
	// lazyguarded pending: 2 entities: 0
	// entities: 1 velocity: {0 1}
}
