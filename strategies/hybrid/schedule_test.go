package hybrid_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deferbench/deferbench/strategies/hybrid"
)

// Random DAGs (explicit edges) on 1…8 workers, some nodes failing or panicking: every node
// that runs runs once, after all its predecessors finished; exactly the nodes downstream of a
// failure are skipped; Execute returns one *NodeError per failed node.
func TestRandomDAGSchedule(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 3))
		n := 1 + rng.IntN(30)
		g := hybrid.NewGraph()
		g.SetWorkers(1 + rng.IntN(8))
		preds := make([][]int, n)
		fail := make([]int, n) // 0 ok, 1 error, 2 panic
		finished := make([]atomic.Bool, n)
		runs := make([]atomic.Int32, n)
		var bad atomic.Value
		nodes := make([]*hybrid.Node, n)
		for i := range n {
			if rng.IntN(8) == 0 {
				fail[i] = 1 + rng.IntN(2)
			}
			for j := range i {
				if rng.IntN(5) == 0 {
					preds[i] = append(preds[i], j)
				}
			}
			nodes[i] = g.AddNode("n"+string(rune('A'+i)), func(context.Context, *hybrid.Node) error {
				runs[i].Add(1)
				for _, p := range preds[i] {
					if !finished[p].Load() {
						bad.Store("node ran before a predecessor finished")
					}
				}
				defer finished[i].Store(true)
				switch fail[i] {
				case 1:
					return errors.New("fails")
				case 2:
					panic("boom")
				}
				return nil
			})
			for _, p := range preds[i] {
				nodes[i].After(nodes[p])
			}
		}
		if err := g.Compile(); err != nil {
			t.Fatal(err)
		}
		// expected: skipped when any predecessor failed or was skipped
		skipped := make([]bool, n)
		wantErrs := 0
		for i := range n {
			for _, p := range preds[i] {
				if skipped[p] || fail[p] != 0 {
					skipped[i] = true
				}
			}
			if !skipped[i] && fail[i] != 0 {
				wantErrs++
			}
		}
		for round := range 3 {
			for i := range n {
				finished[i].Store(false)
				runs[i].Store(0)
			}
			err := g.Execute(context.Background())
			if v := bad.Load(); v != nil {
				t.Fatalf("seed %d round %d: %v", seed, round, v)
			}
			for i := range n {
				want := int32(1)
				if skipped[i] {
					want = 0
				}
				if got := runs[i].Load(); got != want {
					t.Fatalf("seed %d round %d: node %d ran %d times, want %d", seed, round, i, got, want)
				}
			}
			var nerrs int
			if err != nil {
				if j, ok := err.(interface{ Unwrap() []error }); ok {
					nerrs = len(j.Unwrap())
				} else {
					nerrs = 1
				}
			}
			if nerrs != wantErrs {
				t.Fatalf("seed %d round %d: %d errors (%v), want %d", seed, round, nerrs, err, wantErrs)
			}
		}
	}
}

// Execute called concurrently with itself: each call either runs the whole graph or returns
// ErrRunning; appends from the runs that ran are all committed, once.
func TestConcurrentExecute(t *testing.T) {
	target, buf := newInts("buf")
	g := hybrid.NewGraph()
	g.SetWorkers(4)
	const K = 6
	for i := range K {
		g.AddNode("app"+string(rune('a'+i)), func(_ context.Context, n *hybrid.Node) error {
			r := buf.Recorder(n)
			for j := range 10 {
				r.Stage(i*10 + j)
			}
			return nil
		}, hybrid.Append(buf))
	}
	g.AddFlushNode(buf)
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	var ran, refused atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				switch err := g.Execute(context.Background()); {
				case err == nil:
					ran.Add(1)
				case errors.Is(err, hybrid.ErrRunning):
					refused.Add(1)
				default:
					t.Errorf("execute: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if got, want := len(target.v), int(ran.Load())*K*10; got != want {
		t.Errorf("committed %d commands, want %d (%d runs)", got, want, ran.Load())
	}
	for run := 0; run+K*10 <= len(target.v); run += K * 10 {
		for k := range K * 10 {
			if target.v[run+k] != k {
				t.Fatalf("run at %d: command %d is %d, want node order, FIFO", run, k, target.v[run+k])
			}
		}
	}
}

// Random graphs of nodes declaring Read or Write on a few resources and Append on a buffer
// (its flush node declared at a random place), on 1…8 workers: a writer never overlaps
// another accessor of its resource, a reader never overlaps a writer, every pair of
// conflicting accesses runs in declaration order, and every append is flushed.
func TestDerivedEdgesRespected(t *testing.T) {
	type resState struct {
		mu               sync.Mutex
		readers, writers int
	}
	for seed := range uint64(150) {
		rng := rand.New(rand.NewPCG(seed, 9))
		const nres = 3
		var res [nres]resState
		target, buf := newInts("buf")
		g := hybrid.NewGraph()
		g.SetWorkers(1 + rng.IntN(8))
		n := 2 + rng.IntN(14)
		flushAt := rng.IntN(n + 1)
		type decl struct {
			modes    [nres]int // 0 none, 1 read, 2 write
			appends  bool
			idx      int
			start    atomic.Int64
			finished atomic.Int64
		}
		var clock atomic.Int64
		var bad atomic.Value
		decls := make([]*decl, 0, n)
		idx := 0
		for i := 0; i <= n; i++ {
			if i == flushAt {
				g.AddFlushNode(buf)
				idx++
				continue
			}
			if i == n {
				break
			}
			d := &decl{idx: idx}
			idx++
			var acc []hybrid.Access
			for r := range nres {
				switch d.modes[r] = rng.IntN(3); d.modes[r] {
				case 1:
					acc = append(acc, hybrid.Read(&res[r]))
				case 2:
					acc = append(acc, hybrid.Write(&res[r]))
				}
			}
			if d.appends = rng.IntN(2) == 0; d.appends {
				acc = append(acc, hybrid.Append(buf))
			}
			decls = append(decls, d)
			g.AddNode("n"+strconv.Itoa(i), func(_ context.Context, nd *hybrid.Node) error {
				d.start.Store(clock.Add(1))
				for r := range nres {
					if d.modes[r] == 0 {
						continue
					}
					s := &res[r]
					s.mu.Lock()
					if s.writers > 0 || (d.modes[r] == 2 && s.readers > 0) {
						bad.Store("node " + strconv.Itoa(d.idx) + " overlaps a conflicting accessor of resource " + strconv.Itoa(r))
					}
					if d.modes[r] == 2 {
						s.writers++
					} else {
						s.readers++
					}
					s.mu.Unlock()
				}
				if d.appends {
					buf.Recorder(nd).Stage(d.idx)
				}
				runtime.Gosched()
				for r := range nres {
					s := &res[r]
					s.mu.Lock()
					switch d.modes[r] {
					case 1:
						s.readers--
					case 2:
						s.writers--
					}
					s.mu.Unlock()
				}
				d.finished.Store(clock.Add(1))
				return nil
			}, acc...)
		}
		if err := g.Compile(); err != nil {
			t.Fatalf("seed %d: compile: %v", seed, err)
		}
		for round := range 3 {
			target.v = target.v[:0]
			if err := g.Execute(context.Background()); err != nil {
				t.Fatalf("seed %d round %d: %v", seed, round, err)
			}
			if v := bad.Load(); v != nil {
				t.Fatalf("seed %d round %d: %v", seed, round, v)
			}
			for a, da := range decls {
				for _, db := range decls[a+1:] {
					conflict := false
					for r := range nres {
						if da.modes[r] != 0 && db.modes[r] != 0 && (da.modes[r] == 2 || db.modes[r] == 2) {
							conflict = true
						}
					}
					if conflict && da.finished.Load() > db.start.Load() {
						t.Fatalf("seed %d round %d: node %d (declared first) finished after node %d started", seed, round, da.idx, db.idx)
					}
				}
			}
			want := 0
			for _, d := range decls {
				if d.appends {
					want++
				}
			}
			if len(target.v) != want || buf.Pending() != 0 {
				t.Fatalf("seed %d round %d: flushed %d appends, want %d (pending %d)", seed, round, len(target.v), want, buf.Pending())
			}
		}
	}
}
