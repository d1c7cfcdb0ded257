package hybrid_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/hybrid"
)

// ints is a generic target: a list of ints. Commands append their value; -1 fails.
type ints struct{ v []int }

var errNegative = errors.New("negative command")

func applyInt(t *ints, at deferral.Pos, c *int) error {
	if *c < 0 {
		return fmt.Errorf("recorder %d command %d: %w", at.Recorder, at.Index, errNegative)
	}
	t.v = append(t.v, *c)
	return nil
}

func newInts(name string) (*ints, *hybrid.Buffer[ints, int]) {
	t := &ints{}
	return t, hybrid.NewBuffer(name, t, applyInt)
}

func nop(context.Context, *hybrid.Node) error { return nil }

// watchdog bounds every wait in these tests, so a broken scheduler fails instead of hanging.
const watchdog = 10 * time.Second

// wait receives from ch or fails after the watchdog.
func wait(ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-time.After(watchdog):
		return fmt.Errorf("watchdog: %s did not happen within %v", what, watchdog)
	}
}

func edgeStrings(g *hybrid.Graph) []string {
	var s []string
	for _, e := range g.Edges() {
		s = append(s, fmt.Sprintf("%d→%d", e.From.Index(), e.To.Index()))
	}
	return s
}

// TestDerivedEdges builds graphs from access declarations written as "r:A" (read A), "w:A"
// (write A), "a:buf" (append to buf), "flush:buf", "after:i", where A and B are plain
// resources, buf a command buffer and T its target, and checks the derived edges.
func TestDerivedEdges(t *testing.T) {
	tests := []struct {
		name  string
		nodes []string // one per node: space-separated declarations
		want  []string // "from→to" by node index, sorted
	}{
		{"read/read", []string{"r:A", "r:A"}, nil},
		{"write/read", []string{"w:A", "r:A"}, []string{"0→1"}},
		{"read/write", []string{"r:A", "w:A"}, []string{"0→1"}},
		{"write/write", []string{"w:A", "w:A"}, []string{"0→1"}},
		{"readers between writers", []string{"w:A", "r:A", "r:A", "w:A"}, []string{"0→1", "0→2", "0→3", "1→3", "2→3"}},
		{"different resources", []string{"w:A", "w:B", "r:A", "r:B"}, []string{"0→2", "1→3"}},
		{"two resources", []string{"w:A r:B", "w:B"}, []string{"0→1"}},
		{"append/append", []string{"a:buf", "a:buf", "flush:buf"}, []string{"0→2", "1→2"}},
		{"appender declared after flush", []string{"flush:buf", "a:buf", "a:buf"}, []string{"1→0", "2→0"}},
		{"append does not touch the target", []string{"a:buf", "r:T", "w:T", "flush:buf"}, []string{"0→3", "1→2", "1→3", "2→3"}},
		{"flush vs target accessors", []string{"r:T", "a:buf", "flush:buf", "r:T", "w:T"}, []string{"0→2", "0→4", "1→2", "2→3", "2→4", "3→4"}},
		{"append vs read of the buffer", []string{"a:buf", "r:buf", "a:buf", "flush:buf"}, []string{"0→1", "0→3", "1→2", "1→3", "2→3"}},
		{"append vs write of the buffer", []string{"w:buf", "a:buf", "flush:buf"}, []string{"0→1", "0→2", "1→2"}},
		// A node may declare one access twice (access lists built by helpers): no edge to itself.
		{"write declared twice", []string{"w:A w:A", "r:A"}, []string{"0→1"}},
		{"append declared twice", []string{"a:buf a:buf", "flush:buf"}, []string{"0→1"}},
		{"explicit after", []string{"r:A", "r:A after:0"}, []string{"0→1"}},
		{"explicit after, redundant with derived", []string{"w:A", "r:A after:0"}, []string{"0→1"}},
		{"seed rendering example", []string{"a:buf r:B", "a:buf r:A", "flush:buf", "r:T w:C"}, []string{"0→2", "1→2", "2→3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := hybrid.NewGraph()
			target, buf := newInts("buf")
			res := map[string]any{"A": new(int), "B": new(int), "C": new(int), "T": target, "buf": buf}
			var nodes []*hybrid.Node
			for i, decl := range tt.nodes {
				var acc []hybrid.Access
				var after []int
				flush := false
				for _, d := range strings.Fields(decl) {
					mode, r, _ := strings.Cut(d, ":")
					switch mode {
					case "r":
						acc = append(acc, hybrid.Read(res[r]))
					case "w":
						acc = append(acc, hybrid.Write(res[r]))
					case "a":
						acc = append(acc, hybrid.Append(buf))
					case "flush":
						flush = true
					case "after":
						k, _ := strconv.Atoi(r)
						after = append(after, k)
					}
				}
				var n *hybrid.Node
				if flush {
					n = g.AddFlushNode(buf)
				} else {
					n = g.AddNode("n"+strconv.Itoa(i), nop, acc...)
				}
				for _, k := range after {
					n.After(nodes[k])
				}
				nodes = append(nodes, n)
			}
			if err := g.Compile(); err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if got := edgeStrings(g); !slices.Equal(got, tt.want) {
				t.Errorf("edges = %v, want %v\n%v", got, tt.want, g.Edges())
			}
			if err := g.Execute(context.Background()); err != nil {
				t.Fatalf("Execute: %v", err)
			}
		})
	}
}

func TestEdgeReasons(t *testing.T) {
	g := hybrid.NewGraph()
	target, buf := newInts("draws")
	g.NameResource(target, "queue")
	a := g.AddNode("animate", nop, hybrid.Append(buf))
	f := g.AddFlushNode(buf)
	d := g.AddNode("draw", nop, hybrid.Read(target))
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	want := []hybrid.Edge{
		{From: a, To: f, Reason: "append→flush on draws"},
		{From: f, To: d, Reason: "write→read on queue"},
	}
	if got := g.Edges(); !slices.Equal(got, want) {
		t.Fatalf("edges = %v, want %v", got, want)
	}
	if f.Name() != "flush(draws)" {
		t.Fatalf("flush node name = %q", f.Name())
	}
}

func TestCycleNamesNodes(t *testing.T) {
	t.Run("explicit", func(t *testing.T) {
		g := hybrid.NewGraph()
		a := new(int)
		x := g.AddNode("x", nop, hybrid.Write(a))
		y := g.AddNode("y", nop, hybrid.Read(a))
		g.AddNode("z", nop)
		x.After(y)
		err := g.Compile()
		var ce *hybrid.CycleError
		if !errors.Is(err, hybrid.ErrCycle) || !errors.As(err, &ce) {
			t.Fatalf("Compile = %v, want a CycleError", err)
		}
		if want := []string{"x", "y", "x"}; !slices.Equal(ce.Nodes, want) && !slices.Equal(ce.Nodes, []string{"y", "x", "y"}) {
			t.Fatalf("cycle = %v, want %v (any rotation)", ce.Nodes, want)
		}
		if !strings.Contains(err.Error(), "x → y") && !strings.Contains(err.Error(), "y → x") {
			t.Fatalf("error %q does not name the cycle", err)
		}
		if g.Compiled() {
			t.Fatal("graph compiled despite the cycle")
		}
		if err := g.Execute(context.Background()); !errors.Is(err, hybrid.ErrNotCompiled) {
			t.Fatalf("Execute after a failed Compile = %v, want ErrNotCompiled", err)
		}
	})
	// Mutual deferral: a node that reads the buffer's target after its flush
	// and also appends to the buffer.
	t.Run("mutual deferral", func(t *testing.T) {
		g := hybrid.NewGraph()
		target, buf := newInts("cb")
		g.AddNode("before", nop, hybrid.Read(new(int)))
		g.AddFlushNode(buf)
		g.AddNode("record", nop, hybrid.Read(target), hybrid.Append(buf))
		err := g.Compile()
		var ce *hybrid.CycleError
		if !errors.As(err, &ce) {
			t.Fatalf("Compile = %v, want a CycleError", err)
		}
		got := slices.Clone(ce.Nodes[:len(ce.Nodes)-1])
		slices.Sort(got)
		if want := []string{"flush(cb)", "record"}; !slices.Equal(got, want) {
			t.Fatalf("cycle names %v, want %v", ce.Nodes, want)
		}
	})
}

func TestDeclarationErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(g *hybrid.Graph)
		want  string
	}{
		{"nil function", func(g *hybrid.Graph) { g.AddNode("f", nil) }, "nil function"},
		{"duplicate names", func(g *hybrid.Graph) { g.AddNode("a", nop); g.AddNode("a", nop) }, "both named"},
		{"nil resource", func(g *hybrid.Graph) { g.AddNode("a", nop, hybrid.Read(nil)) }, "nil resource"},
		{"not comparable", func(g *hybrid.Graph) { g.AddNode("a", nop, hybrid.Read([]int{})) }, "not comparable"},
		{"two modes", func(g *hybrid.Graph) {
			r := new(int)
			g.AddNode("a", nop, hybrid.Read(r), hybrid.Write(r))
		}, "twice"},
		{"no flush", func(g *hybrid.Graph) {
			_, b := newInts("lost")
			g.AddNode("a", nop, hybrid.Append(b))
		}, "no flush node"},
		{"two flushes", func(g *hybrid.Graph) {
			_, b := newInts("b")
			g.AddFlushNode(b)
			g.AddNode("other", nop).After(g.AddFlushNode(b))
		}, "two flush nodes"},
		{"edge to another graph", func(g *hybrid.Graph) {
			g.AddNode("a", nop).After(hybrid.NewGraph().AddNode("b", nop))
		}, "another graph"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := hybrid.NewGraph()
			tt.build(g)
			err := g.Compile()
			if !errors.Is(err, hybrid.ErrDeclaration) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compile = %v, want ErrDeclaration mentioning %q", err, tt.want)
			}
		})
	}
}

func TestCompileOnce(t *testing.T) {
	g := hybrid.NewGraph()
	n := g.AddNode("a", nop)
	if err := g.Execute(context.Background()); !errors.Is(err, hybrid.ErrNotCompiled) {
		t.Fatalf("Execute before Compile = %v, want ErrNotCompiled", err)
	}
	if err := n.Run(context.Background()); !errors.Is(err, hybrid.ErrNotCompiled) {
		t.Fatalf("Run before Compile = %v, want ErrNotCompiled", err)
	}
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	if err := g.Compile(); !errors.Is(err, hybrid.ErrCompiled) {
		t.Fatalf("second Compile = %v, want ErrCompiled", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("AddNode after Compile did not panic")
		}
	}()
	g.AddNode("late", nop)
}

// TestOverlap proves that nodes without a conflict run at the same time: each waits at a
// barrier the other must reach too, which cannot happen if they ran one after the other.
func TestOverlap(t *testing.T) {
	_, buf := newInts("b")
	shared := new(int)
	for _, tc := range []struct {
		name string
		acc  []hybrid.Access
	}{
		{"readers", []hybrid.Access{hybrid.Read(shared)}},
		{"appenders", []hybrid.Access{hybrid.Append(buf)}},
		{"disjoint writers", nil}, // each writes its own resource, below
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := hybrid.NewGraph()
			g.SetWorkers(2)
			var arrived sync.WaitGroup
			arrived.Add(2)
			all := make(chan struct{})
			go func() { arrived.Wait(); close(all) }()
			body := func(_ context.Context, n *hybrid.Node) error {
				arrived.Done()
				return wait(all, "the other node reaching the barrier")
			}
			for i := range 2 {
				acc := tc.acc
				if acc == nil {
					acc = []hybrid.Access{hybrid.Write(new(int))}
				}
				g.AddNode("n"+strconv.Itoa(i), body, acc...)
			}
			if tc.name == "appenders" {
				g.AddFlushNode(buf)
			}
			if err := g.Compile(); err != nil {
				t.Fatal(err)
			}
			if err := g.Execute(context.Background()); err != nil {
				t.Fatalf("Execute: %v", err)
			}
		})
	}
}

// TestOrderedSeeWrites: a reader ordered after a writer sees its write (and -race sees the
// happens-before edge the scheduler provides).
func TestOrderedSeeWrites(t *testing.T) {
	g := hybrid.NewGraph()
	g.SetWorkers(4)
	x := new(int)
	var got []int
	var mu sync.Mutex
	g.AddNode("w", func(context.Context, *hybrid.Node) error { *x = 42; return nil }, hybrid.Write(x))
	for i := range 4 {
		g.AddNode("r"+strconv.Itoa(i), func(context.Context, *hybrid.Node) error {
			mu.Lock()
			got = append(got, *x)
			mu.Unlock()
			return nil
		}, hybrid.Read(x))
	}
	g.AddNode("w2", func(context.Context, *hybrid.Node) error { *x = 7; return nil }, hybrid.Write(x))
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	if err := g.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int{42, 42, 42, 42}) || *x != 7 {
		t.Fatalf("readers saw %v, final %d; want [42 42 42 42], 7", got, *x)
	}
}

// TestRepeatedExecute runs one compiled graph many times; each run executes every node once,
// after its predecessors, and the recorders are reused.
func TestRepeatedExecute(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			g := hybrid.NewGraph()
			g.SetWorkers(workers)
			target, buf := newInts("b")
			a, b := new(int), new(int)
			var clock atomic.Int64
			stamp := make([]int64, 7)
			mark := func(i int, stage int) hybrid.Func {
				return func(_ context.Context, n *hybrid.Node) error {
					stamp[i] = clock.Add(1)
					if stage >= 0 {
						buf.Recorder(n).Stage(stage)
					}
					return nil
				}
			}
			g.AddNode("wa", mark(0, -1), hybrid.Write(a))
			g.AddNode("p1", mark(1, 1), hybrid.Read(a), hybrid.Append(buf))
			g.AddNode("p2", mark(2, 2), hybrid.Read(a), hybrid.Append(buf))
			g.AddNode("wb", mark(3, -1), hybrid.Write(b))
			g.AddNode("p3", mark(4, 3), hybrid.Read(b), hybrid.Append(buf))
			g.AddFlushNode(buf)
			g.AddNode("read", mark(6, -1), hybrid.Read(target))
			if err := g.Compile(); err != nil {
				t.Fatal(err)
			}
			edges := g.Edges()
			const runs = 200
			for run := range runs {
				clear(stamp)
				stamp[5] = -1
				if err := g.Execute(context.Background()); err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				for i, s := range stamp {
					if i != 5 && s == 0 {
						t.Fatalf("run %d: node %d did not run", run, i)
					}
				}
				for _, e := range edges {
					f, to := e.From.Index(), e.To.Index()
					if f != 5 && to != 5 && stamp[f] >= stamp[to] {
						t.Fatalf("run %d: edge %v violated", run, e)
					}
				}
			}
			if len(target.v) != 3*runs {
				t.Fatalf("target holds %d commands, want %d", len(target.v), 3*runs)
			}
			for i := 0; i < len(target.v); i += 3 {
				if !slices.Equal(target.v[i:i+3], []int{1, 2, 3}) {
					t.Fatalf("run %d committed %v, want node order [1 2 3]", i/3, target.v[i:i+3])
				}
			}
			if buf.Pending() != 0 {
				t.Fatalf("pending = %d after the runs", buf.Pending())
			}
		})
	}
}

// TestCommitOrderIsNodeOrder: the commit order is node order even when the nodes finish in
// the reverse order (forced with channels).
func TestCommitOrderIsNodeOrder(t *testing.T) {
	g := hybrid.NewGraph()
	g.SetWorkers(3)
	target, buf := newInts("b")
	done := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
	for i := range 3 {
		g.AddNode("p"+strconv.Itoa(i), func(_ context.Context, n *hybrid.Node) error {
			if i < 2 { // p0 waits for p1, p1 for p2: completion order p2, p1, p0
				if err := wait(done[i+1], fmt.Sprintf("p%d finishing", i+1)); err != nil {
					return err
				}
			}
			r := buf.Recorder(n)
			r.Stage(10*i + 1)
			r.Stage(10*i + 2)
			close(done[i])
			return nil
		}, hybrid.Append(buf))
	}
	g.AddFlushNode(buf)
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	if err := g.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 11, 12, 21, 22}; !slices.Equal(target.v, want) {
		t.Fatalf("committed %v, want %v", target.v, want)
	}
}

// TestExecuteFailure: a failing node's error is returned, its dependents are skipped, and the
// independent nodes still run.
func TestExecuteFailure(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) { testExecuteFailure(t, workers) })
	}
}

func testExecuteFailure(t *testing.T, workers int) {
	boom := errors.New("boom")
	g := hybrid.NewGraph()
	g.SetWorkers(workers)
	a := new(int)
	ran := make([]atomic.Bool, 5)
	body := func(i int, err error) hybrid.Func {
		return func(context.Context, *hybrid.Node) error {
			ran[i].Store(true)
			return err
		}
	}
	g.AddNode("ok", body(0, nil), hybrid.Read(new(int)))
	g.AddNode("fails", body(1, boom), hybrid.Write(a))
	g.AddNode("after-fail", body(2, nil), hybrid.Read(a))
	g.AddNode("after-after", body(3, nil), hybrid.Write(a))
	g.AddNode("panics", func(context.Context, *hybrid.Node) error { ran[4].Store(true); panic("kaboom") })
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the graph stays usable
		for i := range ran {
			ran[i].Store(false)
		}
		err := g.Execute(context.Background())
		var ne *hybrid.NodeError
		if !errors.Is(err, boom) || !errors.As(err, &ne) || ne.Node != "fails" || ne.Index != 1 {
			t.Fatalf("Execute = %v, want boom from node 1 (fails)", err)
		}
		var pe *hybrid.PanicError
		if !errors.As(err, &pe) || pe.Value != "kaboom" {
			t.Fatalf("Execute = %v, want the panic too", err)
		}
		got := []bool{ran[0].Load(), ran[1].Load(), ran[2].Load(), ran[3].Load(), ran[4].Load()}
		if want := []bool{true, true, false, false, true}; !slices.Equal(got, want) {
			t.Fatalf("ran = %v, want %v", got, want)
		}
	}
}

// TestFlushFailurePolicy: a failing flush keeps the failing command and its suffix pending;
// re-running the flush node alone resumes there, without replaying the prefix.
func TestFlushFailurePolicy(t *testing.T) {
	g := hybrid.NewGraph()
	target, buf := newInts("b")
	var stage []int
	g.AddNode("p", func(_ context.Context, n *hybrid.Node) error {
		for _, c := range stage {
			buf.Recorder(n).Stage(c)
		}
		return nil
	}, hybrid.Append(buf))
	flush := g.AddFlushNode(buf)
	readerRan := false
	g.AddNode("reader", func(context.Context, *hybrid.Node) error { readerRan = true; return nil }, hybrid.Read(target))
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	stage = []int{1, 2, -1, 3}
	err := g.Execute(context.Background())
	var ne *hybrid.NodeError
	if !errors.Is(err, errNegative) || !strings.Contains(err.Error(), "recorder 0 command 2") || !errors.As(err, &ne) || ne.Node != flush.Name() {
		t.Fatalf("Execute = %v, want the flush's error at recorder 0 command 2", err)
	}
	if readerRan {
		t.Fatal("the reader after a failed flush ran")
	}
	if !slices.Equal(target.v, []int{1, 2}) || buf.Pending() != 2 {
		t.Fatalf("after failure: target %v pending %d, want [1 2] and 2", target.v, buf.Pending())
	}
	// The retry fails on the same command, without replaying the prefix.
	if err := flush.Run(context.Background()); !errors.Is(err, errNegative) {
		t.Fatalf("retry = %v, want the same failure", err)
	}
	if !slices.Equal(target.v, []int{1, 2}) {
		t.Fatalf("retry replayed the prefix: %v", target.v)
	}
	if n := buf.Discard(); n != 2 {
		t.Fatalf("Discard = %d, want 2", n)
	}
	stage = []int{4}
	if err := g.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(target.v, []int{1, 2, 4}) || !readerRan {
		t.Fatalf("target %v reader %v, want [1 2 4] true", target.v, readerRan)
	}
}

// TestSkippedFlushCarries: a failed producer skips the flush; what the others staged is
// committed by the next Execute's flush, before that run's commands of the same recorder.
func TestSkippedFlushCarries(t *testing.T) {
	g := hybrid.NewGraph()
	target, buf := newInts("b")
	run := 0
	g.AddNode("p0", func(_ context.Context, n *hybrid.Node) error {
		buf.Recorder(n).Stage(100 + run)
		return nil
	}, hybrid.Append(buf))
	g.AddNode("p1", func(_ context.Context, n *hybrid.Node) error {
		if run == 0 {
			return errors.New("first run fails")
		}
		buf.Recorder(n).Stage(200 + run)
		return nil
	}, hybrid.Append(buf))
	g.AddFlushNode(buf)
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	if err := g.Execute(context.Background()); err == nil {
		t.Fatal("Execute with a failing producer = nil")
	}
	if buf.Pending() != 1 || len(target.v) != 0 {
		t.Fatalf("pending %d target %v, want 1 and empty", buf.Pending(), target.v)
	}
	run = 1
	if err := g.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []int{100, 101, 201}; !slices.Equal(target.v, want) {
		t.Fatalf("target %v, want %v", target.v, want)
	}
}

func TestExecuteReentry(t *testing.T) {
	g := hybrid.NewGraph()
	var inner error
	var n *hybrid.Node
	n = g.AddNode("self", func(ctx context.Context, _ *hybrid.Node) error {
		inner = g.Execute(ctx)
		if err := n.Run(ctx); !errors.Is(err, hybrid.ErrRunning) {
			return fmt.Errorf("Run inside Execute = %v, want ErrRunning", err)
		}
		return nil
	})
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	if err := g.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, hybrid.ErrRunning) {
		t.Fatalf("Execute inside Execute = %v, want ErrRunning", inner)
	}
}

func TestExecuteCancelled(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			g := hybrid.NewGraph()
			g.SetWorkers(workers)
			ctx, cancel := context.WithCancel(context.Background())
			ran := make([]bool, 3)
			g.AddNode("a", func(context.Context, *hybrid.Node) error { ran[0] = true; return nil })
			g.AddNode("b", func(context.Context, *hybrid.Node) error { ran[1] = true; cancel(); return nil }, hybrid.Write(new(int)))
			g.AddNode("c", func(context.Context, *hybrid.Node) error { ran[2] = true; return nil }).After(g.Nodes()[1])
			if err := g.Compile(); err != nil {
				t.Fatal(err)
			}
			if err := g.Execute(ctx); !errors.Is(err, context.Canceled) || !ran[1] || ran[2] {
				t.Fatalf("Execute = %v, ran %v; want context.Canceled, b run and c not", err, ran)
			}
			clear(ran)
			if err := g.Execute(ctx); !errors.Is(err, context.Canceled) || slices.Contains(ran, true) {
				t.Fatalf("Execute(cancelled) = %v, ran %v; want context.Canceled and nothing run", err, ran)
			}
			if err := g.Execute(context.Background()); err != nil || slices.Contains(ran, false) {
				t.Fatalf("Execute after = %v, ran %v", err, ran)
			}
		})
	}
}

func TestRecorderUndeclared(t *testing.T) {
	g := hybrid.NewGraph()
	_, buf := newInts("b")
	_, other := newInts("other")
	g.AddNode("p", func(_ context.Context, n *hybrid.Node) error {
		other.Recorder(n).Stage(1)
		return nil
	}, hybrid.Append(buf))
	g.AddFlushNode(buf)
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	err := g.Execute(context.Background())
	var pe *hybrid.PanicError
	if !errors.As(err, &pe) || !strings.Contains(fmt.Sprint(pe.Value), "did not declare Append(other)") {
		t.Fatalf("Execute = %v, want a panic about the undeclared append", err)
	}
}

// TestSingleNodeAllocs: executing a one-node graph (the ECS strategy's commit path) runs on
// the caller and does not allocate.
func TestSingleNodeAllocs(t *testing.T) {
	g := hybrid.NewGraph()
	g.AddNode("a", nop)
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if a := testing.AllocsPerRun(100, func() { _ = g.Execute(ctx) }); a != 0 {
		t.Fatalf("allocs per Execute = %v, want 0", a)
	}
}

func TestEmptyGraphAndBefore(t *testing.T) {
	empty := hybrid.NewGraph()
	if err := empty.Compile(); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		empty.SetWorkers(workers)
		if err := empty.Execute(context.Background()); err != nil {
			t.Fatalf("empty graph, workers %d: %v", workers, err)
		}
	}
	g := hybrid.NewGraph()
	var order []string
	rec := func(name string) hybrid.Func {
		return func(context.Context, *hybrid.Node) error { order = append(order, name); return nil }
	}
	late := g.AddNode("late", rec("late"))
	g.AddNode("early", rec("early")).Before(late)
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	if got := edgeStrings(g); !slices.Equal(got, []string{"1→0"}) {
		t.Fatalf("edges = %v, want [1→0]", got)
	}
	if err := g.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{"early", "late"}) {
		t.Fatalf("order = %v", order)
	}
}

// TestNodeNilClosure: a graph node that stages a nil closure on its buffer's recorder does not
// panic (the node does not fail): the flush node fails at it with a *deferral.CommandError
// wrapping deferral.ErrInvalidCommand, the commands before it applied, it and those after it
// pending, and a retry fails at it again.
func TestNodeNilClosure(t *testing.T) {
	g := hybrid.NewGraph()
	target, buf := newInts("b")
	g.AddNode("p", func(_ context.Context, n *hybrid.Node) error {
		r := buf.Recorder(n)
		r.Stage(1)
		r.StageFunc(nil)
		r.Stage(2)
		return nil
	}, hybrid.Append(buf))
	flush := g.AddFlushNode(buf)
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	check := func(op string, err error) {
		t.Helper()
		var ne *hybrid.NodeError
		var ce *deferral.CommandError
		if !errors.As(err, &ne) || ne.Node != flush.Name() || !errors.As(err, &ce) ||
			ce.Pos != (deferral.Pos{Recorder: 0, Index: 1}) || ce.Verb != deferral.VerbFunc || !errors.Is(err, deferral.ErrInvalidCommand) {
			t.Fatalf("%s = %v, want the flush node's *deferral.CommandError (func) at recorder 0 command 1 wrapping ErrInvalidCommand", op, err)
		}
		if !slices.Equal(target.v, []int{1}) || buf.Pending() != 2 {
			t.Fatalf("after the %s: target %v pending %d, want [1] and 2", op, target.v, buf.Pending())
		}
	}
	check("execute", g.Execute(context.Background()))
	check("retry", flush.Run(context.Background()))
	if n := buf.Discard(); n != 2 {
		t.Fatalf("Discard = %d, want 2", n)
	}
}
