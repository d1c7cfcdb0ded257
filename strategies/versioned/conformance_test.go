package versioned_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/versioned"
)

func TestConformance(t *testing.T) { conformance.Test(t, versioned.Factory) }

func TestConformanceCopy(t *testing.T) { conformance.Test(t, versioned.FactoryCopy) }

// TestConformanceReplay runs the suite with every typed batch replayed, whatever a copy would
// cost (the default may copy a batch that is large against the world).
func TestConformanceReplay(t *testing.T) {
	conformance.Test(t, factory(versioned.Options{Resync: versioned.ResyncReplay}))
}

// TestConformanceChecked runs the suite with every typed batch replayed and the replicas'
// hashes compared after it: what it declares (allocation-free typed frames among it) must
// hold with the check too.
func TestConformanceChecked(t *testing.T) {
	conformance.Test(t, factory(versioned.Options{Resync: versioned.ResyncReplay, CheckDivergence: true}))
}
