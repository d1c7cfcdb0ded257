package harness

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/deferbench/deferbench/conformance/bench"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/conformance"
)

var determinismScenario = Scenario{
	Scenario: suite.Determinism,
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
		// One case, whatever -procs lists: the sweep above is its GOMAXPROCS values, set by
		// the benchmark itself. At 0 the plan would run the whole sweep once per -procs
		// value, each a copy of the others under another -N suffix, counted as verdicts of
		// their own.
		return []Variant{{Params: []Param{{"runs", strconv.Itoa(d.Runs * len(d.Procs))}, {"frames", strconv.Itoa(d.Frames)}}, Arg: d, Procs: runtime.GOMAXPROCS(0)}}
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil // nothing to commit
		}
		d := v.Arg.(conformance.Determinism)
		return func(b bench.B) error { return determinism(b, s, d) }
	},
}

// determinismSeed counts evaluations process-wide, so every one draws a different jitter.
var determinismSeed uint64

// determinism evaluates d b.N times, each with a new jitter seed, and reports the largest
// number of distinct final states seen as distinct-states (and its time as ns/op).
func determinism(b bench.B, s StrategyInfo, d conformance.Determinism) error {
	worst := 0
	b.ReportAllocs()
	for range b.N() {
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
