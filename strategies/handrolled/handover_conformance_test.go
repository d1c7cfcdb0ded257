package handrolled_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

func TestConformanceHandover(t *testing.T) { conformance.TestHandover(t, handrolled.Factory) }
