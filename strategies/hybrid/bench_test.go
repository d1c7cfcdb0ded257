package hybrid_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/hybrid"
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
