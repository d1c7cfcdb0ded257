package handrolled_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

func TestConformanceGeneric(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		return genericGather{handrolled.New(t, conformance.ApplyInt)}
	}, conformance.GenericOptions{Order: conformance.ByHandover})
}

type genericGather struct {
	*handrolled.Gather[conformance.Ints, int]
}

func (g genericGather) NewRecorder() conformance.GenericRecorder {
	return genericRecorder{g.Gather.NewRecorder()}
}

// Discard drops what is pending; its error (a Discard during a commit) cannot occur at the
// suite's sync points.
func (g genericGather) Discard() int {
	n, _ := g.Gather.Discard()
	return n
}

type genericRecorder struct {
	*handrolled.Recorder[conformance.Ints, int]
}

func (r genericRecorder) Done() { r.Handover() }
