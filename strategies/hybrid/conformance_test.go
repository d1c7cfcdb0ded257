package hybrid_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/hybrid"
)

func TestConformance(t *testing.T) { conformance.Test(t, hybrid.Factory) }
