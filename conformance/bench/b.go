package bench

import (
	"testing"
	"time"
)

// B is what a body uses of a benchmark: its iteration count and timer, and the metrics it
// reports. *testing.B provides it through Testing, for go test -bench; deferbench's runner
// provides its own, which drives the iterations itself (with the clock and allocation
// counts testing uses), so a run and go test execute the same bodies.
//
// A body reads N once per call, before its timed loop, so the loop pays no call per
// iteration. The methods mean what testing.B's of the same names mean: the time and the
// allocations between ResetTimer (or StartTimer) and StopTimer are what is measured, and
// ReportMetric adds a metric, or replaces ns/op, B/op or allocs/op, for the call.
type B interface {
	// N returns the number of iterations the call times.
	N() int
	ResetTimer()
	StartTimer()
	StopTimer()
	// ReportAllocs asks for allocs/op and B/op; deferbench's runner always records them.
	ReportAllocs()
	ReportMetric(n float64, unit string)
	// Elapsed returns the time measured so far in this call.
	Elapsed() time.Duration
}

// Testing returns b as a B, for calling a body from a go test benchmark:
//
//	func BenchmarkMine(b *testing.B) {
//		if err := bench.Stage(bench.Testing(b), mine.Factory, "typed"); err != nil {
//			b.Fatal(err)
//		}
//	}
func Testing(b *testing.B) B { return testingB{b} }

// testingB is a *testing.B as a B.
type testingB struct{ b *testing.B }

func (t testingB) N() int                              { return t.b.N }
func (t testingB) ResetTimer()                         { t.b.ResetTimer() }
func (t testingB) StartTimer()                         { t.b.StartTimer() }
func (t testingB) StopTimer()                          { t.b.StopTimer() }
func (t testingB) ReportAllocs()                       { t.b.ReportAllocs() }
func (t testingB) ReportMetric(n float64, unit string) { t.b.ReportMetric(n, unit) }
func (t testingB) Elapsed() time.Duration              { return t.b.Elapsed() }
