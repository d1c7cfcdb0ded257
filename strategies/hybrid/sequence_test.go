package hybrid_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/deferbench/deferbench/strategies/hybrid"
)

// leafErrors returns the leaves of a (possibly joined) error.
func leafErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// TestExecuteSequences: random DAGs executed many times in a row, each Execute with a
// random worker count (serial and parallel, switching between Executes), random nodes
// failing or panicking, sometimes a cancelled context. After every Execute: exactly the
// nodes whose predecessors all succeeded ran (none when ctx was cancelled), and the error
// is exactly those nodes' *NodeErrors in node order plus ctx's error: nothing leaks from one
// Execute into the next.
func TestExecuteSequences(t *testing.T) {
	for seed := range uint64(400) {
		g := rand.New(rand.NewPCG(seed, 9))
		n := 1 + g.IntN(12)
		graph := hybrid.NewGraph()
		preds := make([][]int, n)
		var ran []atomic.Int32
		ran = make([]atomic.Int32, n)
		behave := make([]int, n) // 0 ok, 1 error, 2 panic; set per Execute
		nodes := make([]*hybrid.Node, n)
		for i := range n {
			i := i
			nodes[i] = graph.AddNode(fmt.Sprintf("n%d", i), func(ctx context.Context, _ *hybrid.Node) error {
				ran[i].Add(1)
				switch behave[i] {
				case 1:
					return fmt.Errorf("fail %d", i)
				case 2:
					panic(fmt.Sprintf("panic %d", i))
				}
				return nil
			})
			for j := range i {
				if g.IntN(3) == 0 {
					preds[i] = append(preds[i], j)
					nodes[i].After(nodes[j])
				}
			}
		}
		if err := graph.Compile(); err != nil {
			t.Fatal(err)
		}
		for run := range 30 {
			workers := []int{1, 1, 2, 4, 0, -1}[g.IntN(6)]
			graph.SetWorkers(workers)
			for i := range n {
				behave[i] = 0
				if g.IntN(5) == 0 {
					behave[i] = 1 + g.IntN(2)
				}
				ran[i].Store(0)
			}
			ctx := context.Background()
			cancelled := g.IntN(8) == 0
			if cancelled {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			err := graph.Execute(ctx)
			// Expected: a node runs when no predecessor failed or was skipped.
			runs := make([]bool, n)
			var wantErrs []string
			for i := range n { // node order is a topological order here (preds < i)
				ok := !cancelled
				for _, p := range preds[i] {
					if !runs[p] || behave[p] != 0 {
						ok = false
					}
				}
				runs[i] = ok
				if ok && behave[i] != 0 {
					wantErrs = append(wantErrs, fmt.Sprintf("n%d", i))
				}
			}
			for i := range n {
				want := int32(0)
				if runs[i] {
					want = 1
				}
				if got := ran[i].Load(); got != want {
					t.Fatalf("seed %d run %d workers %d cancelled %v: node %d ran %d times, want %d (behave %v preds %v; err %v)", seed, run, workers, cancelled, i, got, want, behave, preds, err)
				}
			}
			var gotErrs []string
			sawCtx := false
			for _, e := range leafErrors(err) {
				var ne *hybrid.NodeError
				switch {
				case errors.As(e, &ne):
					gotErrs = append(gotErrs, ne.Node)
				case errors.Is(e, context.Canceled):
					sawCtx = true
				default:
					t.Fatalf("seed %d run %d: unexpected error %v", seed, run, e)
				}
			}
			if !slices.Equal(gotErrs, wantErrs) || sawCtx != cancelled {
				t.Fatalf("seed %d run %d workers %d cancelled %v: errors %v ctx %v, want %v ctx %v (behave %v preds %v)", seed, run, workers, cancelled, gotErrs, sawCtx, wantErrs, cancelled, behave, preds)
			}
			if (err == nil) != (len(wantErrs) == 0 && !cancelled) {
				t.Fatalf("seed %d run %d: err %v", seed, run, err)
			}
		}
	}
}

// TestExecuteCancelInNode: a node that cancels the context stops the nodes not
// started yet; the next Execute with a fresh context runs everything and returns nil, in
// serial and parallel mode alike.
func TestExecuteCancelInNode(t *testing.T) {
	for _, w1 := range []int{1, 3} {
		for _, w2 := range []int{1, 3} {
			graph := hybrid.NewGraph()
			var cancel context.CancelFunc
			var count atomic.Int32
			a := graph.AddNode("a", func(context.Context, *hybrid.Node) error {
				count.Add(1)
				if cancel != nil {
					cancel()
				}
				return nil
			})
			b := graph.AddNode("b", func(context.Context, *hybrid.Node) error { count.Add(1); return nil })
			b.After(a)
			c := graph.AddNode("c", func(context.Context, *hybrid.Node) error { count.Add(1); return nil })
			c.After(b)
			if err := graph.Compile(); err != nil {
				t.Fatal(err)
			}
			graph.SetWorkers(w1)
			ctx, cf := context.WithCancel(context.Background())
			cancel = cf
			err := graph.Execute(ctx)
			if !errors.Is(err, context.Canceled) || count.Load() != 1 {
				t.Fatalf("workers %d: first Execute: err %v, %d nodes ran", w1, err, count.Load())
			}
			cancel = nil
			count.Store(0)
			graph.SetWorkers(w2)
			if err := graph.Execute(context.Background()); err != nil || count.Load() != 3 {
				t.Fatalf("workers %d then %d: second Execute: err %v, %d nodes ran, want nil and 3", w1, w2, err, count.Load())
			}
		}
	}
}

// TestEmptyGraphReportsDoneContext: an empty graph executed with a done ctx returns ctx's
// error, as a graph with nodes does (serial and with a pool).
func TestEmptyGraphReportsDoneContext(t *testing.T) {
	for _, w := range []int{1, 4} {
		g := hybrid.NewGraph()
		if err := g.Compile(); err != nil {
			t.Fatal(err)
		}
		g.SetWorkers(w)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := g.Execute(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("workers %d: empty graph, cancelled ctx: Execute = %v, want context.Canceled", w, err)
		}
		if err := g.Execute(context.Background()); err != nil {
			t.Errorf("workers %d: empty graph, then a live ctx: Execute = %v, want nil", w, err)
		}
	}
}
