package lazyguarded_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

func TestConformance(t *testing.T)     { conformance.Test(t, lazyguarded.Factory) }
func TestConformancePass(t *testing.T) { conformance.Test(t, lazyguarded.FactoryPass) }
