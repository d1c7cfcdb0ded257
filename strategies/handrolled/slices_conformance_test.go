package handrolled_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

// factorySlices makes the handrolled strategy with its gather's record stream turned off, so
// that recorders keep their commands as slices of deferral.Command and a commit applies them
// through the Gather's slice path (what a Gather over a target of the user's own runs): the
// same suite holds on that path.
// That path applies one command at a time (deferral.Core.ApplyRun): it declares neither
// per-entity batching nor bulk runs.
func factorySlices(w *ecs.World) deferral.Strategy {
	s := handrolled.NewECS(w)
	s.Gather().SetStream(nil, nil)
	return sliced{s}
}

type sliced struct{ *handrolled.ECS }

func (s sliced) Capabilities() deferral.Capabilities {
	c := s.ECS.Capabilities()
	c.BatchesPerEntity, c.BulkRuns = false, false
	return c
}

func TestConformanceSlices(t *testing.T)         { conformance.Test(t, factorySlices) }
func TestConformanceHandoverSlices(t *testing.T) { conformance.TestHandover(t, factorySlices) }
