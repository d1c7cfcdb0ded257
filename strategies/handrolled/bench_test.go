package handrolled_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

func BenchmarkStage(b *testing.B)      { conformance.BenchmarkStage(b, handrolled.Factory) }
func BenchmarkStageApply(b *testing.B) { conformance.BenchmarkStageApply(b, handrolled.Factory) }
func BenchmarkContention(b *testing.B) { conformance.BenchmarkContention(b, handrolled.Factory) }
