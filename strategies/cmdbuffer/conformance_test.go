package cmdbuffer_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

func TestConformance(t *testing.T) { conformance.Test(t, cmdbuffer.Factory) }
