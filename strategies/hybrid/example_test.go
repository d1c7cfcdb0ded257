package hybrid_test

import (
	"cmp"
	"context"
	"fmt"

	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/workload"
)

// The rendering example: game-side nodes record draw
// commands in parallel without touching the render queue, a flush node applies them sorted by
// material, and a render-side node consumes the queue. Every edge is derived from the declared
// accesses; a HUD node that reads the queue before the flush sees the previous frame.
func Example_renderQueue() {
	queue := &workload.RenderQueue{}
	draws := hybrid.NewBuffer("draws", queue, workload.ApplyDraw)
	draws.SetHooks(cmdbuffer.Hooks[workload.DrawCmd]{
		Sort: func(a, b *workload.DrawCmd) int { return cmp.Compare(a.Material, b.Material) },
	})
	skeletal := []workload.DrawCmd{{Mesh: 1, Material: 3}, {Mesh: 2, Material: 1}}
	emitters := []workload.DrawCmd{{Mesh: 7, Material: 2}}
	var submitted []uint32 // stands in for the GPU context

	g := hybrid.NewGraph()
	g.NameResource(queue, "render queue")
	g.NameResource(&submitted, "rhi")
	g.AddNode("hud", func(context.Context, *hybrid.Node) error {
		fmt.Println("hud sees", len(queue.Draws), "draws")
		return nil
	}, hybrid.Read(queue))
	g.AddNode("animate", func(_ context.Context, n *hybrid.Node) error {
		rec := draws.Recorder(n)
		for _, d := range skeletal {
			rec.Stage(d)
		}
		return nil
	}, hybrid.Read(&skeletal), hybrid.Append(draws))
	g.AddNode("scatter", func(_ context.Context, n *hybrid.Node) error {
		rec := draws.Recorder(n)
		for _, d := range emitters {
			rec.Stage(d)
		}
		return nil
	}, hybrid.Read(&emitters), hybrid.Append(draws))
	g.AddFlushNode(draws)
	g.AddNode("draw", func(context.Context, *hybrid.Node) error {
		for _, d := range queue.Draws {
			submitted = append(submitted, d.Mesh)
		}
		queue.Reset()
		return nil
	}, hybrid.Write(queue), hybrid.Write(&submitted))
	if err := g.Compile(); err != nil {
		panic(err)
	}
	for _, e := range g.Edges() {
		fmt.Println(e)
	}
	for range 2 {
		if err := g.Execute(context.Background()); err != nil {
			panic(err)
		}
	}
	fmt.Println("meshes submitted:", submitted)

	// The dynamic path: a recorder outside the graph, committed directly.
	debug := draws.NewRecorder()
	debug.Stage(workload.DrawCmd{Mesh: 99})
	if err := draws.Commit(); err != nil {
		panic(err)
	}
	fmt.Println("after the debug commit:", queue.Draws)
	// Output:
	// hud → flush(draws) (read→write on render queue)
	// hud → draw (read→write on render queue)
	// animate → flush(draws) (append→flush on draws)
	// scatter → flush(draws) (append→flush on draws)
	// flush(draws) → draw (write→write on render queue)
	// hud sees 0 draws
	// hud sees 0 draws
	// meshes submitted: [2 7 1 2 7 1]
	// after the debug commit: [{99 0 0 0}]
}
