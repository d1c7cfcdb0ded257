package workload_test

import (
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/workload"
)

// factories are the strategies the frame is driven through in these tests.
var factories = []struct {
	name string
	make deferral.Factory
}{
	{"testslice", func(w *ecs.World) deferral.Strategy { return newSliceStrategy(w) }},
	{"cmdbuffer", cmdbuffer.Factory},
}

// TestReplaceAnyProducers runs Replace over each strategy with several producer counts and
// compares world hashes with the serial run: a strategy that commits in sort-key order must
// reach the same world whatever the producer count and goroutine timing.
func TestReplaceAnyProducers(t *testing.T) {
	const frames, n = 20, 2000
	for _, f := range factories {
		t.Run("strategy="+f.name, func(t *testing.T) {
			run := func(producers int) uint64 {
				w := ecs.NewWorld()
				if err := workload.Populate(w, n, 11); err != nil {
					t.Fatal(err)
				}
				s := f.make(w)
				defer func() {
					if err := s.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
				}()
				sim := workload.NewSim(s)
				for range frames {
					var err error
					if producers == 0 {
						err = sim.Step(0.05, workload.ReplaceSerial(5, 0.1))
					} else {
						err = sim.StepParallel(0.05, producers, workload.Replace(5, 0.1))
					}
					if err != nil {
						t.Fatalf("producers=%d frame %d: %v", producers, sim.Frame(), err)
					}
				}
				return w.Hash()
			}
			serial := run(0)
			for _, p := range []int{1, 2, 4, 16} {
				for rep := range 2 {
					if h := run(p); h != serial {
						t.Errorf("producers=%d rep %d: hash %x, serial %x", p, rep, h, serial)
					}
				}
			}
		})
	}
}

func TestDecisionErrorEachStrategy(t *testing.T) {
	for _, f := range factories {
		t.Run("strategy="+f.name, func(t *testing.T) {
			w := ecs.NewWorld()
			if err := workload.Populate(w, 10, 1); err != nil {
				t.Fatal(err)
			}
			sim := workload.NewSim(f.make(w))
			if err := sim.Step(0.1, stageThenFail); err == nil {
				t.Fatal("Step succeeded with a failing decision")
			}
			if p := sim.Strategy().Pending(); p != 1 {
				t.Fatalf("Pending = %d, want 1", p)
			}
			if err := sim.Strategy().Close(); err == nil {
				t.Error("Close with pending commands succeeded")
			}
			if err := sim.Commit(); err != nil {
				t.Fatal(err)
			}
			if w.Len() != 11 {
				t.Errorf("Len = %d after retry, want 11", w.Len())
			}
		})
	}
}

// TestRenderQueueThroughCmdbuffer defers Submit calls through cmdbuffer's generic buffer with
// ApplyDraw, keyed by draw index, and checks the committed queue equals direct submission.
func TestRenderQueueThroughCmdbuffer(t *testing.T) {
	var direct, deferred workload.RenderQueue
	buf := cmdbuffer.New(&deferred, workload.ApplyDraw)
	recs := []*cmdbuffer.Recorder[workload.RenderQueue, workload.DrawCmd]{buf.NewRecorder(), buf.NewRecorder()}
	for i := range 100 {
		c := workload.DrawCmd{Mesh: uint32(i), Material: uint32(i % 7), X: float32(i), Y: -float32(i)}
		direct.Submit(c)
		recs[(i/10)%2].StageKeyed(uint64(i), c) // alternate recorders in runs of ten
	}
	if err := buf.Commit(); err != nil {
		t.Fatal(err)
	}
	if direct.Hash() != deferred.Hash() {
		t.Errorf("deferred queue differs: %d vs %d draws", len(deferred.Draws), len(direct.Draws))
	}
}

func ExampleSim_StepParallel() {
	w := ecs.NewWorld()
	if err := workload.Populate(w, 10_000, 1); err != nil {
		panic(err)
	}
	strategy := cmdbuffer.NewECS(w)
	defer strategy.Close()
	sim := workload.NewSim(strategy)
	decide := workload.Replace(2, 0.05)
	for range 5 {
		if err := sim.StepParallel(1.0/60, 8, decide); err != nil {
			panic(err)
		}
	}
	fmt.Println(sim.Frame(), w.Len() > 9000)
	// Output: 5 true
}
