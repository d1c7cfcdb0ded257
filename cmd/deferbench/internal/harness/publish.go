package harness

import (
	"github.com/deferbench/deferbench/conformance/bench"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/versioned"
)

// publisher is the optional interface of a strategy that publishes versions to a second
// replica (versioned): its cumulative publish costs and the second replica's storage.
type publisher interface {
	Stats() versioned.Stats
	ReplicaBytes() int
}

// publishMeter sums the publishes of one or more publisher strategies over the timed part of
// a benchmark and reports, per publish, the publish cost split into its three steps —
// apply-ns/publish, swap-ns/publish, resync-ns/publish (mean wall time) — and
// replica-B/entity, the second replica's storage per live entity of the last strategy
// measured. For other strategies it reports nothing.
type publishMeter struct {
	p          publisher
	live       func() int
	from, sum  versioned.Stats
	replicaB   int
	liveAtStop int
}

// start begins measuring st (a no-op unless st is a publisher).
func (m *publishMeter) start(st deferral.Strategy) {
	m.p, _ = st.(publisher)
	if m.p != nil {
		m.from, m.live = m.p.Stats(), func() int { return st.World().Len() }
	}
}

// stop adds st's publishes since start.
func (m *publishMeter) stop() {
	if m.p == nil {
		return
	}
	s := m.p.Stats()
	m.sum.Publishes += s.Publishes - m.from.Publishes
	m.sum.Apply += s.Apply - m.from.Apply
	m.sum.Swap += s.Swap - m.from.Swap
	m.sum.Resync += s.Resync - m.from.Resync
	m.replicaB, m.liveAtStop = m.p.ReplicaBytes(), m.live()
	m.p = nil
}

// report stops measuring and reports the metrics.
func (m *publishMeter) report(b bench.B) {
	m.stop()
	if n := float64(m.sum.Publishes); n > 0 {
		b.ReportMetric(float64(m.sum.Apply)/n, "apply-ns/publish")
		b.ReportMetric(float64(m.sum.Swap)/n, "swap-ns/publish")
		b.ReportMetric(float64(m.sum.Resync)/n, "resync-ns/publish")
	}
	if m.liveAtStop > 0 {
		b.ReportMetric(float64(m.replicaB)/float64(m.liveAtStop), "replica-B/entity")
	}
}
