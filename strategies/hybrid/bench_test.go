package hybrid_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/workload"
)

func BenchmarkStage(b *testing.B)      { conformance.BenchmarkStage(b, hybrid.Factory) }
func BenchmarkStageApply(b *testing.B) { conformance.BenchmarkStageApply(b, hybrid.Factory) }
func BenchmarkContention(b *testing.B) { conformance.BenchmarkContention(b, hybrid.Factory) }

// BenchmarkExecute measures the scheduler: one Execute of a graph of empty nodes, either a
// chain (each node writes the same resource) or a fan (independent readers), per workers.
func BenchmarkExecute(b *testing.B) {
	for _, shape := range []string{"chain", "fan"} {
		for _, nodes := range []int{1, 16} {
			for _, workers := range []int{1, 2, 4} {
				if shape == "chain" && workers > 1 || nodes == 1 && workers > 1 {
					continue
				}
				name := "shape=" + shape + "/nodes=" + strconv.Itoa(nodes) + "/workers=" + strconv.Itoa(workers)
				b.Run(name, func(b *testing.B) {
					g := hybrid.NewGraph()
					g.SetWorkers(workers)
					res := new(int)
					acc := hybrid.Read(res)
					if shape == "chain" {
						acc = hybrid.Write(res)
					}
					for i := range nodes {
						g.AddNode("n"+strconv.Itoa(i), nop, acc)
					}
					if err := g.Compile(); err != nil {
						b.Fatal(err)
					}
					ctx := context.Background()
					b.ReportAllocs()
					for b.Loop() {
						if err := g.Execute(ctx); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkFrame measures one particle frame as a graph (movement … decide[P] … flush,
// render) with the test's replace rule, P = GOMAXPROCS producer nodes; ns/op per frame. The
// world is rebuilt (untimed) every 50 frames so the population stays near its size.
func BenchmarkFrame(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run("strategy=hybrid/entities="+strconv.Itoa(n), func(b *testing.B) {
			procs := runtime.GOMAXPROCS(0)
			decide := replaceRule[testView](1, 0.05)
			build := func() *hybrid.ParticleFrame[testView] {
				w := ecs.NewWorld()
				if err := workload.Populate(w, n, 1); err != nil {
					b.Fatal(err)
				}
				f, err := hybrid.NewParticleFrame(hybrid.NewECS(w), procs, newTestView, decide)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Step(1.0 / 60); err != nil { // warm-up: grows the buffers
					b.Fatal(err)
				}
				return f
			}
			f := build()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%50 == 0 {
					b.StopTimer()
					f = build()
					b.StartTimer()
				}
				if err := f.Step(1.0 / 60); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
