package hybrid_test

import (
	"testing"

	"github.com/deferbench/deferbench/internal/spiketest"
	"github.com/deferbench/deferbench/strategies/hybrid"
)

// TestSpikeReleased: after a spike frame, ordinary frames release the buffers' capacity.
func TestSpikeReleased(t *testing.T) { spiketest.Released(t, hybrid.Factory) }
