package lazyguarded_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

func BenchmarkStage(b *testing.B)      { conformance.BenchmarkStage(b, lazyguarded.Factory) }
func BenchmarkStageApply(b *testing.B) { conformance.BenchmarkStageApply(b, lazyguarded.Factory) }
func BenchmarkContention(b *testing.B) { conformance.BenchmarkContention(b, lazyguarded.Factory) }
