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

// TestWatermarkRemembersTwoWindows pins the documented timing: a spike is released after
// 2×ShrinkWindow to 3×ShrinkWindow−1 ordinary cycles, wherever in its window it falls, and a
// working set whose largest cycle recurs every 2×ShrinkWindow cycles is never cut, while one
// that recurs less often is.
func TestWatermarkRemembersTwoWindows(t *testing.T) {
	const w = deferral.ShrinkWindow
	for pos := 1; pos <= w; pos++ { // the spike is the pos-th cycle of its window
		var m deferral.Watermark
		for range pos - 1 {
			m.Use(1000, 1<<20)
		}
		if c := m.Use(1<<20, 1<<20); c != 0 {
			t.Fatalf("spike at position %d: cut to %d at the spike itself", pos, c)
		}
		after := 0
		for {
			after++
			if c := m.Use(1000, 1<<20); c != 0 {
				break
			}
			if after > 4*w {
				t.Fatalf("spike at position %d: not released after %d ordinary cycles", pos, after)
			}
		}
		if after < 2*w || after > 3*w-1 {
			t.Errorf("spike at position %d released after %d ordinary cycles, want %d…%d", pos, after, 2*w, 3*w-1)
		}
	}
	for _, every := range []int{2 * w, 3 * w} {
		var m deferral.Watermark
		cut := false
		for cycle := 1; cycle <= 10*w && !cut; cycle++ {
			n := 100
			if (cycle-1)%every == 0 { // from the first cycle on
				n = 5000
			}
			cut = m.Use(n, 5000) != 0
		}
		if want := every > 2*w; cut != want {
			t.Errorf("largest cycle every %d cycles: cut = %v, want %v", every, cut, want)
		}
	}
}
