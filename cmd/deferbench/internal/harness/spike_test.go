package harness

import (
	"math"
	"testing"
)

// TestSpikeRetainedX: a strategy that holds no buffer reads retained-x 1 (not 0/0, which
// left it without a figure, nor 0/96 B = 0, which read as the best); a strategy that keeps its
// spike buffers reads far above 1 (render's TestSpikeRetainedXRanked: the need "bounded
// memory after a spike" is answered by it).
func TestSpikeRetainedX(t *testing.T) {
	for _, c := range []struct {
		held, steady, want float64
	}{{0, 0, 1}, {0, 96, 1}, {96, 0, 1}, {40e3, 40e3, 1}, {36e3, 40e3, 0.9}, {32e6, 40e3, 800}, {32e6, 0, 32e6 / SpikeFloor}} {
		if got := RetainedX(c.held, c.steady); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("RetainedX(%v, %v) = %v, want %v", c.held, c.steady, got, c.want)
		}
	}
}
