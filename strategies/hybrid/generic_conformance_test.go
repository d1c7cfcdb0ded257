package hybrid_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/hybrid"
)

// TestConformanceGeneric drives a hybrid.Buffer's dynamic path (NewRecorder, Commit), which
// is cmdbuffer's.
func TestConformanceGeneric(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		return genericBuffer{hybrid.NewBuffer("ints", t, conformance.ApplyInt)}
	}, conformance.GenericOptions{Order: conformance.ByRecorder, SortKeys: true})
}

type genericBuffer struct {
	*hybrid.Buffer[conformance.Ints, int]
}

func (g genericBuffer) NewRecorder() conformance.GenericRecorder {
	return genericRecorder{g.Buffer.NewRecorder()}
}

type genericRecorder struct {
	*cmdbuffer.Recorder[conformance.Ints, int]
}

func (genericRecorder) Done() {}

// TestConformanceGenericGraph drives a hybrid.Buffer (wrapping a cmdbuffer.Buffer) through a
// compiled Graph: each recorder
// the suite asks for is the recorder of one more appender node (staging from outside a run),
// and a commit is one Execute, whose derived flush node commits the buffer.
func TestConformanceGenericGraph(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		b := hybrid.Wrap("ints", cmdbuffer.New(t, conformance.ApplyInt))
		g := hybrid.NewGraph()
		nodes := make([]*hybrid.Node, graphRecorders)
		for k := range nodes {
			nodes[k] = g.AddNode(fmt.Sprintf("append%d", k), func(context.Context, *hybrid.Node) error { return nil }, hybrid.Append(b))
		}
		g.AddFlushNode(b)
		if err := g.Compile(); err != nil {
			panic(err)
		}
		return &graphBuffer{genericBuffer{b}, g, nodes, 0}
	}, conformance.GenericOptions{Order: conformance.ByRecorder, SortKeys: true})
}

// graphRecorders bounds the recorders one TestConformanceGenericGraph row may ask for.
const graphRecorders = 64

type graphBuffer struct {
	genericBuffer
	g     *hybrid.Graph
	nodes []*hybrid.Node
	next  int // the next node whose recorder NewRecorder returns
}

func (g *graphBuffer) NewRecorder() conformance.GenericRecorder {
	if g.next == len(g.nodes) {
		panic(fmt.Sprintf("more than %d recorders: raise graphRecorders", len(g.nodes)))
	}
	g.next++
	return genericRecorder{g.Buffer.Recorder(g.nodes[g.next-1])}
}

func (g *graphBuffer) Commit() error { return g.g.Execute(context.Background()) }
