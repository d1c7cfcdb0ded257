package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Graph is a task graph over one strategy, the extension point of strategies whose commit is a
// node of a schedule: nodes stage through recorders of their own, a flush node commits, and
// the schedule derives the order from what each node declares, not from the order the nodes
// are declared in. Its contract, which TestGraph asserts:
//
//   - the flush node runs after every appending node, declared before or after it, so one
//     Execute commits everything its nodes staged;
//   - appending nodes commit in declaration order (FIFO within a node), whatever the schedule;
//   - a reading node runs before the flush when declared before it, after it when declared
//     after it;
//   - a failed flush leaves the failing command and its suffix pending (the deferral failure
//     policy); the next Execute's flush applies them before that run's appends;
//   - a node that fails skips the nodes that depend on it (directly or transitively: an
//     appender's flush, and what is ordered after that), every other node runs, and Execute
//     returns an error wrapping the node's;
//   - a node that panics fails as if it returned an error: no panic leaves Execute, whose
//     error wraps a panic value that is an error (errors.Is) and says what was passed to
//     panic, and the next Execute runs the graph again;
//   - an Execute called from inside one of the graph's own running nodes fails with an
//     error and runs no node; the outer Execute runs every node once and commits;
//   - a declaration error (an appender and no flush node, two nodes of one name, two flush
//     nodes, a node declared with a nil function) fails every Execute with an error that is
//     not a cycle error, and no node runs.
type Graph interface {
	// Append declares a node that runs fn with a recorder of the strategy minted for the node.
	Append(name string, fn func(r *deferral.Recorder) error)
	// Flush declares the node that commits the strategy.
	Flush()
	// Read declares a node that reads the strategy's world.
	Read(name string, fn func(w *ecs.World) error)
	// Write declares a node that reads and changes the strategy's world.
	Write(name string, fn func(w *ecs.World) error)
	// ReadAppend declares a node that reads the world and records with a recorder of its own.
	ReadAppend(name string, fn func(w *ecs.World, r *deferral.Recorder) error)
	// After declares that node name runs after node pred (an explicit edge, beside those the
	// nodes' declared accesses derive); both were declared before.
	After(name, pred string)
	// Before declares that node name runs before node succ (After with its nodes swapped);
	// both were declared before.
	Before(name, succ string)
	// Execute compiles the graph the first time and runs every node once.
	Execute() error
	// ExecuteContext is Execute under ctx: once ctx is done, nodes not started yet are
	// skipped and the error returned wraps ctx.Err().
	ExecuteContext(ctx context.Context) error
	// CycleNodes returns the nodes an error of Execute names as a cycle, in order, the first
	// repeated at the end; ok is false when err is not a cycle error.
	CycleNodes(err error) (nodes []string, ok bool)
}

// GraphWorkers is implemented by a Graph whose Execute runs nodes on a bounded pool: at most
// SetWorkers(n) nodes run at once (called before the first Execute).
type GraphWorkers interface{ SetWorkers(n int) }

// MakeGraph returns an empty Graph over s, a strategy the suite's factory made.
type MakeGraph func(s deferral.Strategy) Graph

// TestGraph runs the task-graph suite against strategies f makes, with graphs g builds over
// them; each row is a subtest on a fresh World, strategy and graph:
//
//	func TestConformanceGraph(t *testing.T) { conformance.TestGraph(t, hybrid.Factory, makeGraph) }
func TestGraph(t *testing.T, f Factory, g MakeGraph) {
	t.Helper()
	if g == nil {
		t.Fatal("conformance.TestGraph: MakeGraph is nil")
	}
	graph := func(fn func(x *fixture, g Graph)) func(x *fixture) {
		return func(x *fixture) { fn(x, g(x.s)) }
	}
	rows := []row{
		{"GraphFlushDeclaredFirst", graph(checkGraphFlushFirst), 0},
		{"GraphFlushDeclaredLast", graph(checkGraphFlushLast), 0},
		{"GraphFlushBetweenAppenders", graph(checkGraphFlushBetween), 0},
		{"GraphReadersAroundFlush", graph(checkGraphReaders), 0},
		{"GraphFailedFlushRetried", graph(checkGraphFailedFlush), varyCmd},
		{"GraphFailedNodeSkipsDependents", graph(checkGraphFailedNode), 0},
		{"GraphPanickingNodeFails", graph(checkGraphPanickingNode), 0},
		{"GraphCyclesNamed", func(x *fixture) { checkGraphCycles(x, g) }, 0},
		{"GraphAfterOrders", graph(checkGraphAfter), 0},
		{"GraphBeforeOrders", graph(checkGraphBefore), 0},
		{"GraphIndependentNodesEachRunOnce", graph(checkGraphIndependent), 0},
		{"GraphInvalidDeclarationsRunNothing", func(x *fixture) { checkGraphInvalid(x, g) }, 0},
		{"GraphCycleNamesOnlyItsNodes", graph(checkGraphCycleOnly), 0},
		{"GraphCancelledRunsNothing", graph(checkGraphCancelled), 0},
		{"GraphExecuteFromNodeRefused", graph(checkGraphExecuteFromNode), 0},
	}
	if probeGraph(f, g) {
		rows = append(rows, row{"GraphWorkersBound", func(x *fixture) { checkGraphWorkers(x, g) }, 0})
	}
	runRows(t, "TestGraph", f, rows)
}

// checkGraphFlushFirst: a flush node declared before every appender still runs after them.
func checkGraphFlushFirst(x *fixture, g Graph) {
	e := x.create(x.w, pt(0, 0))
	g.Flush()
	for k := range 3 {
		g.Append(fmt.Sprintf("append%d", k), func(r *deferral.Recorder) error {
			r.Create(pt(float64(k), 1))
			return nil
		})
	}
	g.Append("set", func(r *deferral.Recorder) error { r.Set(e, pt(9, 9)); return nil })
	x.wantNil("execute", g.Execute())
	want(x, "pending after one execute (the flush runs after its appenders)", x.s.Pending(), 0)
	want(x, "live entities after one execute", x.w.Len(), 4)
	want(x, "position of e", x.pos("e", x.w, e), v2(9, 9))
	x.wantNil("second execute", g.Execute())
	want(x, "pending after the second execute", x.s.Pending(), 0)
	want(x, "live entities after the second execute", x.w.Len(), 7)
}

// checkGraphFlushLast: a flush node declared after every appender, which declare nothing but
// their appends (no access to the world orders them before the flush), still runs after
// them: an appender that pauses between two commands (flushGrace/4, time for a flush
// scheduled beside it to run) has both committed.
func checkGraphFlushLast(x *fixture, g Graph) {
	e := x.create(x.w, pt(0, 0))
	g.Append("slow", func(r *deferral.Recorder) error {
		r.Set(e, pt(1, 1))
		time.Sleep(flushGrace / 4)
		r.Set(e, pt(2, 2))
		return nil
	})
	g.Append("quick", func(r *deferral.Recorder) error { r.Create(pt(3, 3)); return nil })
	g.Flush()
	x.wantNil("execute", g.Execute())
	want(x, "pending after one execute (the flush runs after the appenders declared before it)", x.s.Pending(), 0)
	want(x, "position of e", x.pos("e", x.w, e), v2(2, 2))
	want(x, "live entities", x.w.Len(), 2)
}

// checkGraphFlushBetween: appenders declared before and after the flush both commit in it,
// in declaration order.
func checkGraphFlushBetween(x *fixture, g Graph) {
	e := x.create(x.w, pt(0, 0))
	g.Append("first", func(r *deferral.Recorder) error { r.Set(e, pt(1, 1)); r.Add(e, vl(1, 1)); return nil })
	g.Flush()
	g.Append("second", func(r *deferral.Recorder) error { r.Set(e, pt(2, 2)); return nil })
	g.Append("third", func(r *deferral.Recorder) error { r.Remove(e, workload.Velocity.ID()); return nil })
	x.wantNil("execute", g.Execute())
	want(x, "pending", x.s.Pending(), 0)
	want(x, "position of e (the later-declared appender commits last)", x.pos("e", x.w, e), v2(2, 2))
	if _, ok := vel(x.w, e); ok {
		x.Errorf("velocity of e: present, want removed by the third appender after the first added it")
	}
}

// checkGraphReaders: a reader declared before the flush sees the world before it, one
// declared after sees what it committed.
func checkGraphReaders(x *fixture, g Graph) {
	e := x.create(x.w, pt(0, 0))
	var seenBefore, seenAfter float64
	g.Read("before", func(w *ecs.World) error {
		time.Sleep(flushGrace / 4) // time for a flush scheduled beside it to run
		seenBefore = x.pos("read before", w, e).X
		return nil
	})
	g.Append("set", func(r *deferral.Recorder) error { r.Set(e, pt(5, 5)); return nil })
	g.Flush()
	g.Read("after", func(w *ecs.World) error { seenAfter = x.pos("read after", w, e).X; return nil })
	x.wantNil("execute", g.Execute())
	want(x, "reader declared before the flush: x", seenBefore, 0)
	want(x, "reader declared after the flush: x", seenAfter, 5)
}

// checkGraphFailedNode: an appender that fails skips the flush, which depends on it, and the
// reader ordered after the flush; an independent appender still runs; Execute returns the
// node's error. The next Execute, the node mended, commits what both staged.
func checkGraphFailedNode(x *fixture, g Graph) {
	e := x.create(x.w, pt(0, 0))
	errNode := errors.New("conformance: the node fails on purpose")
	fail, goodRuns, readRuns := true, 0, 0
	g.Append("failing", func(r *deferral.Recorder) error {
		r.Set(e, pt(1, 1))
		if fail {
			return errNode
		}
		return nil
	})
	g.Append("good", func(r *deferral.Recorder) error { goodRuns++; r.Create(pt(2, 2)); return nil })
	g.Flush()
	g.Read("after", func(*ecs.World) error { readRuns++; return nil })
	if err := g.Execute(); !errors.Is(err, errNode) {
		x.Errorf("execute with a failing appender: got %v, want an error wrapping %v", err, errNode)
	}
	want(x, "runs of the independent appender", goodRuns, 1)
	want(x, "runs of the reader after the flush (skipped: it depends on the failed node)", readRuns, 0)
	want(x, "pending (the flush was skipped: both appenders' commands)", x.s.Pending(), 2)
	want(x, "position of e", x.pos("e", x.w, e), v2(0, 0))
	fail = false
	x.wantNil("second execute", g.Execute())
	want(x, "pending after the second execute", x.s.Pending(), 0)
	want(x, "position of e", x.pos("e", x.w, e), v2(1, 1))
	want(x, "live entities (one create per execute)", x.w.Len(), 3)
	want(x, "runs of the reader", readRuns, 1)
}

// checkGraphPanickingNode: an appender that panics with an error value, and a reader that
// panics with a string, fail as nodes that return errors do: no panic leaves Execute, whose
// error wraps the error value and names the string; the flush, which depends on the
// appender, is skipped and an independent appender still runs. The next Execute, neither
// panicking, commits what both appenders staged.
func checkGraphPanickingNode(x *fixture, g Graph) {
	e := x.create(x.w, pt(0, 0))
	errPanic := errors.New("conformance: the node panics with this error")
	const text = "conformance: the reader panics with this string"
	panics, goodRuns := true, 0
	g.Append("panicking", func(r *deferral.Recorder) error {
		r.Set(e, pt(1, 1))
		if panics {
			panic(errPanic)
		}
		return nil
	})
	g.Append("good", func(r *deferral.Recorder) error { goodRuns++; r.Create(pt(2, 2)); return nil })
	g.Read("reader", func(*ecs.World) error {
		if panics {
			panic(text)
		}
		return nil
	})
	g.Flush()
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				x.Fatalf("execute with panicking nodes: the panic %v left Execute", p)
			}
		}()
		err = g.Execute()
	}()
	if !errors.Is(err, errPanic) || !strings.Contains(fmt.Sprint(err), text) {
		x.Errorf("execute with panicking nodes: got %v, want an error wrapping %v and naming %q", err, errPanic, text)
	}
	want(x, "runs of the independent appender", goodRuns, 1)
	want(x, "pending (the flush was skipped: both appenders' commands)", x.s.Pending(), 2)
	want(x, "position of e", x.pos("e", x.w, e), v2(0, 0))
	panics = false
	x.wantNil("second execute", g.Execute())
	want(x, "pending after the second execute", x.s.Pending(), 0)
	want(x, "position of e after the second execute", x.pos("e", x.w, e), v2(1, 1))
	want(x, "live entities (one create per execute)", x.w.Len(), 3)
}

// checkGraphFailedFlush: a failed flush keeps the failing command and its suffix pending;
// the next Execute applies them before its own appends.
func checkGraphFailedFlush(x *fixture, g Graph) {
	e := x.create(x.w, pt(0, 0))
	broken := new(bool)
	var cause error
	run := 0
	g.Flush()
	g.Append("stage", func(r *deferral.Recorder) error {
		run++
		if run == 1 {
			r.Set(e, pt(1, 1))
			cause = x.failing(r, e, v2(1, 1), broken)
			r.Set(e, pt(2, 2))
			return nil
		}
		r.Set(e, pt(3, 3))
		return nil
	})
	err := g.Execute()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || !errors.Is(err, cause) {
		x.Fatalf("execute with a failing command: got %v, want a *deferral.CommandError wrapping %v", err, cause)
	}
	want(x, "position of e (the prefix applied)", x.pos("e", x.w, e), v2(1, 1))
	want(x, "pending (the failing command and its suffix)", x.s.Pending(), 2)
	x.fixFailing(e, broken)
	x.wantNil("second execute", g.Execute())
	want(x, "pending after the second execute", x.s.Pending(), 0)
	want(x, "position of e (the suffix before the second run's append)", x.pos("e", x.w, e), v2(3, 3))
}

// checkGraphWorkers: with a GraphWorkers bound of n (1, 2, 3), eight independent reading
// nodes, each holding its place a few milliseconds, never run more than n at once, and each
// runs once. TestGraph runs the row for a GraphWorkers only.
func checkGraphWorkers(x *fixture, mk MakeGraph) {
	for _, n := range []int{1, 2, 3} {
		g := mk(x.s)
		g.(GraphWorkers).SetWorkers(n) // TestGraph runs the row only for a GraphWorkers
		var active, most, ran atomic.Int32
		for i := range 8 {
			g.Read(fmt.Sprint("reader", i), func(*ecs.World) error {
				now := active.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(2 * time.Millisecond)
				active.Add(-1)
				ran.Add(1)
				return nil
			})
		}
		x.wantNil(fmt.Sprintf("execute on %d workers", n), g.Execute())
		if m := most.Load(); m > int32(n) {
			x.Errorf("execute on %d workers ran %d nodes at once", n, m)
		}
		want(x, fmt.Sprintf("nodes run on %d workers", n), ran.Load(), 8)
	}
}

// probeGraph reports whether the Graph mk makes over a strategy of f is a GraphWorkers.
func probeGraph(f Factory, mk MakeGraph) bool {
	if f == nil {
		return false
	}
	s := f(ecs.NewWorld())
	defer s.Close()
	_, ok := mk(s).(GraphWorkers)
	return ok
}
