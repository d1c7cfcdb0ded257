package harness

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/versioned"
)

// publisher is the optional interface of a strategy that publishes versions to a second
// replica (versioned): its cumulative publish costs and the second replica's storage.
type publisher interface {
	Stats() versioned.Stats
	ReplicaBytes() int
}

// publishMetrics starts measuring st's publishes, when st is a publisher, and returns the
// function that reports, for the publishes since, the publish cost split into its three steps
// — apply-ns/publish, swap-ns/publish, resync-ns/publish (mean wall time per publish) — and
// replica-B/entity, the second replica's storage per live entity. For other strategies both
// do nothing.
func publishMetrics(st deferral.Strategy) func(b *testing.B) {
	p, ok := st.(publisher)
	if !ok {
		return func(*testing.B) {}
	}
	start := p.Stats()
	return func(b *testing.B) {
		s := p.Stats()
		if n := s.Publishes - start.Publishes; n > 0 {
			per := func(d, d0 int64) float64 { return float64(d-d0) / float64(n) }
			b.ReportMetric(per(int64(s.Apply), int64(start.Apply)), "apply-ns/publish")
			b.ReportMetric(per(int64(s.Swap), int64(start.Swap)), "swap-ns/publish")
			b.ReportMetric(per(int64(s.Resync), int64(start.Resync)), "resync-ns/publish")
		}
		if live := st.World().Len(); live > 0 {
			b.ReportMetric(float64(p.ReplicaBytes())/float64(live), "replica-B/entity")
		}
	}
}
