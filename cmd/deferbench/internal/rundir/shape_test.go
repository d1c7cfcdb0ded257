package rundir

import "testing"

// TestRunShape: the partial marks and the interrupt line count benchmarks and repetitions
// in words that agree with the numbers ("× 1 repetition", not "× 1 repetitions").
func TestRunShape(t *testing.T) {
	for _, tt := range []struct {
		total, count int
		want         string
	}{
		{147, 3, "49 benchmarks × 3 repetitions"},
		{24, 1, "24 benchmarks × 1 repetition"},
		{3, 3, "1 benchmark × 3 repetitions"},
		{1, 0, "1 benchmark × 1 repetition"},
	} {
		if got := runShape(tt.total, tt.count); got != tt.want {
			t.Errorf("runShape(%d, %d) = %q, want %q", tt.total, tt.count, got, tt.want)
		}
	}
}
