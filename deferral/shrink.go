package deferral

// Watermark is the shrink policy of a strategy's reusable buffers (a recorder's command
// slice, a commit's gathered slice): buffers keep their capacity from one commit to the next,
// so staging does not allocate, but after a spike — one frame staging far more than usual —
// their capacity returns towards the recent working set instead of staying at the spike's
// size forever. It is what Flecs offers with ecs_shrink, made automatic; Bevy's command
// queues keep their largest capacity.
//
// A buffer's owner calls Use once per cycle (a commit or a discard that empties the buffer),
// never while staging, so the policy costs staging nothing. Over windows of ShrinkWindow
// cycles Watermark keeps the largest use of the current and of the previous window; at the
// end of a window, a buffer whose capacity exceeds twice the target — that recent largest
// use plus a quarter, at least ShrinkFloor elements — is cut to the target. A spike is
// therefore released after 2×ShrinkWindow to 3×ShrinkWindow−1 ordinary cycles (the window it
// falls in and the next one remember it), and a working set whose largest cycle comes at least
// once every 2×ShrinkWindow cycles is never reallocated. The zero Watermark is ready to use.
type Watermark struct {
	cur, prev int // largest use in the current and in the previous window
	n         int // cycles in the current window
}

// The parameters of Watermark: the window, in cycles, and the smallest capacity, in elements,
// a buffer is cut to.
const (
	ShrinkWindow = 8
	ShrinkFloor  = 256
)

// Use records that this cycle used n elements of a buffer of capacity c and returns the
// capacity to cut the buffer to, or 0 to keep it as it is.
func (m *Watermark) Use(n, c int) int {
	m.cur = max(m.cur, n)
	if m.n++; m.n < ShrinkWindow {
		return 0
	}
	recent := max(m.cur, m.prev)
	m.prev, m.cur, m.n = m.cur, 0, 0
	if target := max(recent+recent/4, ShrinkFloor); c > 2*target {
		return target
	}
	return 0
}

// Shrink returns s with capacity c, keeping its elements (c must be at least len(s)): a new
// array when c is below cap(s), else s.
func Shrink[S ~[]E, E any](s S, c int) S {
	if c >= cap(s) || c < len(s) {
		return s
	}
	t := make(S, len(s), c)
	copy(t, s)
	return t
}
