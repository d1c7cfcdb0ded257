package cmdbuffer_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

// factorySlices makes the cmdbuffer strategy with its buffer's record stream and run applier
// turned off, so that recorders keep their commands as slices of deferral.Command and a
// commit applies them one at a time through the Buffer's slice path (what a Buffer over a
// target of the user's own runs): the same suite, hooks included, holds on that path. It
// declares neither per-entity batching nor bulk runs, which need the stream.
func factorySlices(w *ecs.World) deferral.Strategy {
	s := cmdbuffer.NewECS(w)
	s.Buffer().SetStream(nil, nil)
	s.Buffer().SetRunApplier(nil)
	return sliced{s}
}

type sliced struct{ *cmdbuffer.ECS }

func (s sliced) Capabilities() deferral.Capabilities {
	c := s.ECS.Capabilities()
	c.BatchesPerEntity, c.BulkRuns = false, false
	return c
}

func TestConformanceSlices(t *testing.T) { conformance.Test(t, factorySlices) }
func TestConformanceHooksSlices(t *testing.T) {
	conformance.TestHooks(t, factorySlices, func(s deferral.Strategy, h conformance.Hooks) {
		s.(sliced).Buffer().SetHooks(cmdbuffer.Hooks[deferral.Command](h))
	})
}
