package hybrid_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/hybrid"
)

// TestConformanceGeneric drives a hybrid.Buffer's dynamic path (NewRecorder, Commit), which
// is cmdbuffer's.
func TestConformanceGeneric(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		return genericBuffer{hybrid.NewBuffer("ints", t, conformance.ApplyInt)}
	}, conformance.GenericOptions{Order: conformance.ByRecorder, SortKeys: true})
}

type genericBuffer struct {
	*hybrid.Buffer[conformance.Ints, int]
}

func (g genericBuffer) NewRecorder() conformance.GenericRecorder {
	return genericRecorder{g.Buffer.NewRecorder()}
}

type genericRecorder struct {
	*cmdbuffer.Recorder[conformance.Ints, int]
}

func (genericRecorder) Done() {}
