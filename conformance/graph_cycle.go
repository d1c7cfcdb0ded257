package conformance

import (
	"fmt"
	"slices"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// checkGraphCycles: a node that reads the world and appends (mutual deferral: it must run
// before the flush, as an appender, and after it, as a reader declared after it) makes a
// cycle exactly when it is declared after the flush; in every declaration order of it, the
// flush and an ordinary writer of the world, Execute either runs or returns the cycle error
// naming both nodes, the first name repeated at the end, and never panics.
func checkGraphCycles(x *fixture, mk MakeGraph) {
	for _, order := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		g := mk(x.s)
		flushAt, loopAt := 0, 0
		for at, k := range order {
			switch k {
			case 0:
				g.Write("writer", func(*ecs.World) error { return nil })
			case 1:
				g.Flush()
				flushAt = at
			case 2:
				g.ReadAppend("loop", func(_ *ecs.World, r *deferral.Recorder) error { r.Create(pt(1, 1)); return nil })
				loopAt = at
			}
		}
		label := fmt.Sprintf("declaration order %v (0 writer, 1 flush, 2 loop)", order)
		err := g.Execute()
		nodes, isCycle := g.CycleNodes(err)
		if loopAt < flushAt {
			x.wantNil(label+": execute", err)
			continue
		}
		switch {
		case !isCycle:
			x.Errorf("%s: execute: got %v, want the cycle error", label, err)
		case len(nodes) != 3 || nodes[0] != nodes[2] || !slices.Contains(nodes, "loop") || slices.Contains(nodes, "writer"):
			x.Errorf("%s: cycle names %q, want the loop node and the flush, the first repeated at the end", label, nodes)
		}
		want(x, label+": pending (nothing ran)", x.s.Pending(), 0)
	}
}
