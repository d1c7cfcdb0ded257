package hybrid_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/hybrid"
)

func TestConformanceGraph(t *testing.T) { conformance.TestGraph(t, hybrid.Factory, makeGraph) }

// TestConformanceGraphSerial runs the graph suite on one worker, where Execute takes its
// serial path (the nodes in topological order on the caller, no pool).
func TestConformanceGraphSerial(t *testing.T) {
	conformance.TestGraph(t, hybrid.Factory, func(s deferral.Strategy) conformance.Graph {
		g := makeGraph(s).(*graph)
		g.g.SetWorkers(1)
		return g
	})
}

// graph is a hybrid.Graph over one hybrid.ECS, as conformance.Graph.
type graph struct {
	s     *hybrid.ECS
	g     *hybrid.Graph
	nodes map[string]*hybrid.Node
}

// TestConformanceGraphWide runs the graph suite on a pool of 6 workers, more than the nodes
// most rows declare, whatever GOMAXPROCS is: several workers sit idle when the last node
// ends, and each must be woken for Execute to return.
func TestConformanceGraphWide(t *testing.T) {
	conformance.TestGraph(t, hybrid.Factory, func(s deferral.Strategy) conformance.Graph {
		g := makeGraph(s).(*graph)
		g.g.SetWorkers(6)
		return g
	})
}

func makeGraph(s deferral.Strategy) conformance.Graph {
	return &graph{s: s.(*hybrid.ECS), g: hybrid.NewGraph(), nodes: map[string]*hybrid.Node{}}
}

// body returns the node function f, or nil when the suite declared a nil function (a
// declaration error Execute must report).
func body(declaredNil bool, f hybrid.Func) hybrid.Func {
	if declaredNil {
		return nil
	}
	return f
}

func (g *graph) Append(name string, fn func(r *deferral.Recorder) error) {
	g.nodes[name] = g.g.AddNode(name, body(fn == nil, func(_ context.Context, n *hybrid.Node) error { return fn(g.s.Recorder(n)) }), hybrid.Append(g.s))
}

func (g *graph) Flush() { g.g.AddFlushNode(g.s) }

func (g *graph) Read(name string, fn func(w *ecs.World) error) {
	g.nodes[name] = g.g.AddNode(name, body(fn == nil, func(context.Context, *hybrid.Node) error { return fn(g.s.World()) }), hybrid.Read(g.s.World()))
}

func (g *graph) Write(name string, fn func(w *ecs.World) error) {
	g.nodes[name] = g.g.AddNode(name, body(fn == nil, func(context.Context, *hybrid.Node) error { return fn(g.s.World()) }), hybrid.Write(g.s.World()))
}

func (g *graph) ReadAppend(name string, fn func(w *ecs.World, r *deferral.Recorder) error) {
	g.nodes[name] = g.g.AddNode(name, body(fn == nil, func(_ context.Context, n *hybrid.Node) error { return fn(g.s.World(), g.s.Recorder(n)) }),
		hybrid.Read(g.s.World()), hybrid.Append(g.s))
}

func (g *graph) CycleNodes(err error) ([]string, bool) {
	var ce *hybrid.CycleError
	if !errors.As(err, &ce) || !errors.Is(err, hybrid.ErrCycle) {
		return nil, false
	}
	return ce.Nodes, true
}

func (g *graph) SetWorkers(n int) { g.g.SetWorkers(n) }

func (g *graph) After(name, pred string) { g.nodes[name].After(g.nodes[pred]) }

func (g *graph) Before(name, succ string) { g.nodes[name].Before(g.nodes[succ]) }

func (g *graph) Execute() error { return g.ExecuteContext(context.Background()) }

func (g *graph) ExecuteContext(ctx context.Context) error {
	if !g.g.Compiled() {
		if err := g.g.Compile(); err != nil {
			return err
		}
	}
	return g.g.Execute(ctx)
}

func TestConformanceHooks(t *testing.T) {
	conformance.TestHooks(t, hybrid.Factory, func(s deferral.Strategy, h conformance.Hooks) {
		s.(*hybrid.ECS).Buffer().SetHooks(cmdbuffer.Hooks[deferral.Command](h))
	})
}
