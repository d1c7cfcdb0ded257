package conformance_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/internal/racetest"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/strategies/versioned"
)

// all is every strategy of the repository, both lazyguarded reader modes included.
var all = []conformance.Factory{cmdbuffer.Factory, lazyguarded.Factory, lazyguarded.FactoryPass, handrolled.Factory, hybrid.Factory, versioned.Factory, versioned.FactoryCopy}

// TestDifferential runs seeded random programs on every strategy against the model.
func TestDifferential(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 150
	}
	if racetest.Enabled {
		// The programs run on the test's goroutine, so the detector watches only the
		// strategies' own goroutines in them: a quarter of the programs under -race, all n
		// in make test's pass without it.
		n /= 4
	}
	conformance.Differential(t, n, all...)
}

// FuzzDifferential fuzzes the program seed: go test -fuzz FuzzDifferential ./conformance.
func FuzzDifferential(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 3, 42} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { conformance.DifferentialSeed(t, seed, all...) })
}

// TestDifferentialFoundSeeds replays the programs that found faults: seed 7 made lazyguarded
// name index 2 for a closure staged after a Discard that dropped commands closures had staged
// during a failed commit (it numbered commands staged during a commit in the next generation,
// whatever the commit's outcome); the model and every other strategy name index 0.
func TestDifferentialFoundSeeds(t *testing.T) {
	for _, seed := range []uint64{7} {
		conformance.DifferentialSeed(t, seed, all...)
	}
}
