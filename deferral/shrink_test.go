package deferral_test

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
)

// TestWatermarkReleasesSpike: a buffer sized by a spike is cut back towards the working set
// within two windows of ordinary cycles, and a steady buffer is never cut.
func TestWatermarkReleasesSpike(t *testing.T) {
	var m deferral.Watermark
	buf := make([]int, 0, 1<<20) // after a 1M-element spike
	cut := -1
	for cycle := 1; cycle <= 2*deferral.ShrinkWindow; cycle++ {
		buf = append(buf[:0], make([]int, 1000)...)
		if c := m.Use(len(buf), cap(buf)); c > 0 {
			buf = deferral.Shrink(buf[:0], c)
			cut = cycle
			break
		}
	}
	if cut < 0 {
		t.Fatalf("capacity %d kept after %d ordinary cycles of 1000 elements", cap(buf), 2*deferral.ShrinkWindow)
	}
	if cap(buf) > 2*1250 || cap(buf) < 1000 {
		t.Errorf("cut to capacity %d, want the recent working set (1000) plus a quarter", cap(buf))
	}
	// Steady use never cuts.
	var s deferral.Watermark
	for range 10 * deferral.ShrinkWindow {
		if c := s.Use(1000, 1300); c != 0 {
			t.Fatalf("steady buffer (1000 used of 1300) cut to %d", c)
		}
	}
}

func TestShrinkKeepsElements(t *testing.T) {
	s := append(make([]int, 0, 100), 1, 2, 3)
	got := deferral.Shrink(s, 10)
	if cap(got) != 10 || len(got) != 3 || got[2] != 3 {
		t.Errorf("Shrink = %v (cap %d), want [1 2 3] with cap 10", got, cap(got))
	}
	if got := deferral.Shrink(s, 2); cap(got) != 100 {
		t.Errorf("Shrink below len changed the slice (cap %d)", cap(got))
	}
}
