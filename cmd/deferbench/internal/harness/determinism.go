package harness

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/deferbench/deferbench/conformance"
)

var determinismScenario = Scenario{
	Name: "Determinism",
	Description: "the order-sensitive parallel particle frame (conformance.Determinism: 4 producers, a shared last-writer-wins entity) " +
		"repeated across runs, GOMAXPROCS 1, NumCPU and 2×NumCPU, with seeded scheduling jitter; distinct-states = distinct final world hashes (1 = reproducible)",
	Variants: func(cfg VariantConfig) []Variant {
		d := conformance.Determinism{Runs: 3, Frames: 8}
		if cfg.Quick {
			d = conformance.Determinism{Runs: 2, Frames: 4}
		}
		d.Procs = cfg.Procs
		if len(d.Procs) == 0 {
			n := runtime.NumCPU()
			d.Procs = []int{1, n, 2 * n}
			if n == 1 {
				d.Procs = d.Procs[1:]
			}
		}
		return []Variant{{Params: []Param{{"runs", strconv.Itoa(d.Runs * len(d.Procs))}, {"frames", strconv.Itoa(d.Frames)}}, Arg: d}}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // nothing to commit
		}
		d := v.Arg.(conformance.Determinism)
		return func(b *testing.B) error { return determinism(b, s, d) }
	},
	Headlines: []Headline{{Unit: "distinct-states", Need: "reproducible order (lockstep, replays)", Meets: allEqual(1),
		Requires: func(t Traits) (bool, string) {
			if !t.Caps.ReproducibleOrder {
				return false, "does not declare ReproducibleOrder"
			}
			return true, "declares ReproducibleOrder: " + t.Caps.Order
		}}},
	OwnProcs: true,
	Charts: []Chart{{Name: PlotDeterminism, Title: "distinct final states over the runs (1 = reproducible)", YLabel: "distinct final states",
		Units: []string{"distinct-states"}, Linear: true, CountOf: "runs"}},
}

// determinismSeed counts evaluations process-wide, so every one draws a different jitter.
var determinismSeed uint64

// determinism evaluates d b.N times, each with a new jitter seed, and reports the largest
// number of distinct final states seen as distinct-states (and its time as ns/op).
func determinism(b *testing.B, s StrategyInfo, d conformance.Determinism) error {
	worst := 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		determinismSeed++
		d.JitterSeed = determinismSeed
		n, err := d.DistinctStates(s.Factory)
		if err != nil {
			return fmt.Errorf("determinism: %w", err)
		}
		worst = max(worst, n)
	}
	b.ReportMetric(float64(worst), "distinct-states")
	return nil
}
