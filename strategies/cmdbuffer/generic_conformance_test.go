package cmdbuffer_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

func TestConformanceGeneric(t *testing.T) {
	conformance.TestGeneric(t, makeGeneric, conformance.GenericOptions{Order: conformance.ByRecorder, SortKeys: true})
}

// makeGeneric is a cmdbuffer.Buffer over t, as conformance.Generic.
func makeGeneric(t *conformance.Ints) conformance.Generic {
	return genericBuffer{cmdbuffer.New(t, conformance.ApplyInt)}
}

type genericBuffer struct {
	*cmdbuffer.Buffer[conformance.Ints, int]
}

func (g genericBuffer) NewRecorder() conformance.GenericRecorder {
	return genericRecorder{g.Buffer.NewRecorder()}
}

type genericRecorder struct {
	*cmdbuffer.Recorder[conformance.Ints, int]
}

func (genericRecorder) Done() {}
