package workload_test

import (
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// BenchmarkStep measures one particle frame (movement, lifetime, cleanup, Replace decisions
// at 5%, commit) per op. The Sim's report is taken every frame so receipts do not pile up.
func BenchmarkStep(b *testing.B) {
	for _, f := range factories {
		for _, n := range []int{1_000, 100_000} {
			for _, p := range []int{0, 1, 4} { // 0: Step with ReplaceSerial
				b.Run(fmt.Sprintf("strategy=%s/entities=%d/producers=%d", f.name, n, p), func(b *testing.B) {
					w := ecs.NewWorld()
					if err := workload.Populate(w, n, 1); err != nil {
						b.Fatal(err)
					}
					sim := workload.NewSim(f.make(w))
					serial, parallel := workload.ReplaceSerial(2, 0.05), workload.Replace(2, 0.05)
					step := func() {
						var err error
						if p == 0 {
							err = sim.Step(0.01, serial)
						} else {
							err = sim.StepParallel(0.01, p, parallel)
						}
						if err != nil {
							b.Fatal(err)
						}
						if _, err := sim.TakeReport(); err != nil {
							b.Fatal(err)
						}
					}
					step() // mint recorders, grow buffers
					b.ReportAllocs()
					for b.Loop() {
						step()
					}
				})
			}
		}
	}
}
