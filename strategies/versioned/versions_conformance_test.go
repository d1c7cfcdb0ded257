package versioned_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/versioned"
)

// One run of the versioned-read suite per resync mode, and with the divergence check.
func TestConformanceVersionsAuto(t *testing.T) { conformance.TestVersions(t, versioned.Factory) }
func TestConformanceVersionsReplay(t *testing.T) {
	conformance.TestVersions(t, factory(versioned.Options{Resync: versioned.ResyncReplay}))
}
func TestConformanceVersionsCopy(t *testing.T) { conformance.TestVersions(t, versioned.FactoryCopy) }
func TestConformanceVersionsReplayClosures(t *testing.T) {
	conformance.TestVersions(t, factory(versioned.Options{Resync: versioned.ResyncReplayClosures}))
}
func TestConformanceVersionsChecked(t *testing.T) {
	conformance.TestVersions(t, factory(versioned.Options{Resync: versioned.ResyncReplayClosures, CheckDivergence: true}))
}

func factory(o versioned.Options) deferral.Factory {
	return func(w *ecs.World) deferral.Strategy { return versioned.NewECS(w, o) }
}
