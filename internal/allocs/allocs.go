// Package allocs counts heap allocations for the tests that assert a path allocates nothing.
package allocs

import "runtime"

// Count returns every heap allocation of runs calls of f, on one P as testing.AllocsPerRun
// counts them, but the total rather than a mean rounded down. It counts twice and returns the
// smaller count: the code's own allocations repeat, while a stray one of another goroutine
// (seen under the race detector or a loaded machine, once in some runs) does not land in both.
// The counts are process-wide (runtime.MemStats.Mallocs).
func Count(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var least uint64
	for i := range 2 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; i == 0 || n < least {
			least = n
		}
	}
	return least
}
