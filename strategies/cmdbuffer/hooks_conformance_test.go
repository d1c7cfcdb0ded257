package cmdbuffer_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

func TestConformanceHooks(t *testing.T) { conformance.TestHooks(t, cmdbuffer.Factory, setHooks) }

func setHooks(s deferral.Strategy, h conformance.Hooks) {
	s.(*cmdbuffer.ECS).Buffer().SetHooks(cmdbuffer.Hooks[deferral.Command](h))
}
