package handrolled_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

func TestConformance(t *testing.T) { conformance.Test(t, handrolled.Factory) }
