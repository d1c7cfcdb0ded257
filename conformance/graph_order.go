package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// runLog returns a maker of reader functions that append their node's name to *ran, under a
// lock (nodes may run on several workers).
func runLog(ran *[]string) func(name string) func(*ecs.World) error {
	var mu sync.Mutex
	return func(name string) func(*ecs.World) error {
		return func(*ecs.World) error {
			mu.Lock()
			defer mu.Unlock()
			*ran = append(*ran, name)
			return nil
		}
	}
}

// checkGraphAfter: an explicit edge orders two nodes no access orders (two readers of the
// world), whatever their declaration order: the node declared first runs second.
func checkGraphAfter(x *fixture, g Graph) {
	var ran []string
	read := runLog(&ran)
	g.Read("second", read("second"))
	g.Read("first", read("first"))
	g.After("second", "first")
	for k := range 3 {
		ran = ran[:0]
		x.wantNil("execute", g.Execute())
		if !slices.Equal(ran, []string{"first", "second"}) {
			x.Errorf("execute %d: nodes ran in the order %q, want [first second] (second declared after first)", k, ran)
		}
	}
}

// checkGraphBefore: Before orders two readers as After does, from the other end: the node
// declared first runs second.
func checkGraphBefore(x *fixture, g Graph) {
	var ran []string
	read := runLog(&ran)
	g.Read("second", read("second"))
	g.Read("first", read("first"))
	g.Read("third", read("third"))
	g.Before("first", "second")
	g.Before("second", "third")
	for k := range 3 {
		ran = ran[:0]
		x.wantNil("execute", g.Execute())
		if !slices.Equal(ran, []string{"first", "second", "third"}) {
			x.Errorf("execute %d: nodes ran in the order %q, want [first second third] (first before second before third)", k, ran)
		}
	}
}

// checkGraphIndependent: nodes no edge orders — five readers, the one declared last (taken
// last) running longest — each run once per Execute, which returns when the last ends, round
// after round: the other workers sit idle by then, and an executor that wakes too few of them
// when the last node ends hangs here (the row's watchdog reports it).
func checkGraphIndependent(x *fixture, g Graph) {
	var mu sync.Mutex
	runs := map[string]int{}
	for i := range 5 {
		name := fmt.Sprintf("reader%d", i)
		g.Read(name, func(*ecs.World) error {
			if i == 4 {
				time.Sleep(2 * time.Millisecond)
			}
			mu.Lock()
			runs[name]++
			mu.Unlock()
			return nil
		})
	}
	for round := range 20 {
		x.wantNil(fmt.Sprintf("execute %d", round), g.Execute())
	}
	for i := range 5 {
		name := fmt.Sprintf("reader%d", i)
		want(x, "runs of "+name+" over 20 executes", runs[name], 20)
	}
}

// checkGraphInvalid: a graph with an appender but no flush node (its commands would never be
// committed), one with two nodes of one name, one with two flush nodes, and ones with a node
// declared with a nil function (a reader, an appender), each fail Execute with an error that
// is not a cycle error, run no node, stage nothing, and fail the next Execute too.
func checkGraphInvalid(x *fixture, mk MakeGraph) {
	ran := 0
	count := func(*ecs.World) error { ran++; return nil }
	unflushed := mk(x.s)
	unflushed.Read("reader", count)
	unflushed.Append("append", func(r *deferral.Recorder) error { ran++; r.Create(pt(1, 1)); return nil })
	twins := mk(x.s)
	twins.Read("twin", count)
	twins.Read("twin", count)
	flushes := mk(x.s)
	flushes.Append("append", func(r *deferral.Recorder) error { ran++; r.Create(pt(1, 1)); return nil })
	flushes.Flush()
	flushes.Flush()
	nilRead := mk(x.s)
	nilRead.Read("reader", count)
	nilRead.Read("nil", nil)
	nilAppend := mk(x.s)
	nilAppend.Append("append", func(r *deferral.Recorder) error { ran++; r.Create(pt(1, 1)); return nil })
	nilAppend.Append("nil", nil)
	nilAppend.Flush()
	for _, c := range []struct {
		what string
		g    Graph
	}{{"an appender and no flush node", unflushed}, {"two nodes named twin", twins}, {"two flush nodes", flushes},
		{"a reader with a nil function", nilRead}, {"an appender with a nil function", nilAppend}} {
		for k := range 2 {
			err := c.g.Execute()
			if _, cycle := c.g.CycleNodes(err); err == nil || cycle {
				x.Errorf("execute %d of a graph with %s: got %v, want an error that is not a cycle error", k, c.what, err)
			}
		}
		want(x, "nodes run by a graph with "+c.what, ran, 0)
		want(x, "pending after a graph with "+c.what, x.s.Pending(), 0)
	}
	want(x, "live entities", x.w.Len(), 0)
}

// checkGraphCycleOnly: a cycle error names the nodes of the cycle only, not a node that
// merely depends on it: with a after b, b after a and d (declared first) after b, the cycle
// is a and b.
func checkGraphCycleOnly(x *fixture, g Graph) {
	none := func(*ecs.World) error { return nil }
	g.Read("d", none)
	g.Read("a", none)
	g.Read("b", none)
	g.After("a", "b")
	g.After("b", "a")
	g.After("d", "b")
	err := g.Execute()
	nodes, ok := g.CycleNodes(err)
	switch {
	case !ok:
		x.Errorf("execute: got %v, want the cycle error", err)
	case len(nodes) != 3 || nodes[0] != nodes[2] || !slices.Contains(nodes, "a") || !slices.Contains(nodes, "b"):
		x.Errorf("cycle names %q, want a and b, the first repeated at the end", nodes)
	}
}

// checkGraphCancelledRunsNothing: Execute under a context already cancelled runs no node and
// returns an error wrapping context.Canceled; nothing is staged or committed, and the next
// Execute runs the graph as usual.
func checkGraphCancelled(x *fixture, g Graph) {
	ran := 0
	g.Append("append", func(r *deferral.Recorder) error {
		ran++
		r.Create(pt(1, 1))
		return nil
	})
	g.Flush()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := g.ExecuteContext(ctx)
	if !errors.Is(err, context.Canceled) {
		x.Errorf("execute under a cancelled context: got %v, want an error wrapping context.Canceled", err)
	}
	want(x, "appender runs under a cancelled context", ran, 0)
	want(x, "pending after the cancelled execute", x.s.Pending(), 0)
	want(x, "live entities after the cancelled execute", x.w.Len(), 0)
	x.wantNil("execute after the cancelled one", g.Execute())
	want(x, "appender runs after the next execute", ran, 1)
	want(x, "live entities after the next execute", x.w.Len(), 1)
}

// checkGraphExecuteFromNode: a node that executes its own graph gets an error, and that inner
// Execute runs no node (each node runs once per outer Execute); the outer Execute succeeds
// and commits what the appender staged, twice over two outer runs.
func checkGraphExecuteFromNode(x *fixture, g Graph) {
	var appends, reenters atomic.Int32
	var inner []error
	g.Append("append", func(r *deferral.Recorder) error {
		appends.Add(1)
		r.Create(pt(7, 7))
		return nil
	})
	g.Flush()
	var inside atomic.Bool // a graph that ran the inner Execute would recurse without end
	g.Read("reenter", func(*ecs.World) error {
		reenters.Add(1)
		if !inside.CompareAndSwap(false, true) {
			return errors.New("the inner Execute ran this node again")
		}
		inner = append(inner, g.Execute())
		inside.Store(false)
		return nil
	})
	for round := range 2 {
		x.wantNil(fmt.Sprintf("outer execute %d", round), g.Execute())
	}
	want(x, "inner executes", len(inner), 2)
	for i, err := range inner {
		if err == nil {
			x.Errorf("execute %d from inside a running node returned nil, want an error (the graph is executing)", i)
		}
	}
	want(x, "runs of append over 2 outer executes", appends.Load(), 2)
	want(x, "runs of reenter over 2 outer executes", reenters.Load(), 2)
	want(x, "pending after the outer executes", x.s.Pending(), 0)
	want(x, "live entities after the outer executes", x.w.Len(), 2)
}
