package hybridframe_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/hybrid/hybridframe"
	"github.com/deferbench/deferbench/workload"
)

func TestConformanceFrame(t *testing.T) { conformance.TestFrame(t, hybrid.Factory, makeFrame) }

// makeFrame is the particle frame graph over a hybrid strategy, as conformance.Framer.
func makeFrame(s deferral.Strategy, producers int, decide workload.ParallelDecisions) (conformance.Framer, error) {
	f, err := hybridframe.New(s.(*hybrid.ECS), producers, workload.NewView, decide)
	if err != nil {
		return nil, err
	}
	return f, nil
}
