package versioned_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/versioned"
)

func TestConformance(t *testing.T) { conformance.Test(t, versioned.Factory) }

func TestConformanceCopy(t *testing.T) { conformance.Test(t, versioned.FactoryCopy) }
