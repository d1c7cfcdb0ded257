package counts

import (
	"context"
	"runtime"
	"sync"
)

// CountAll counts every child with Count, jobs of them at a time (jobs < 1: runtime.NumCPU()),
// and calls emit with each row's index in children, its row and its error, from one goroutine
// at a time, in the order they finish. Counts do not move with the load, so rows may run side
// by side on every CPU: only their wall time grows. CountAll returns when all have finished
// or ctx is done (rows not started then are not emitted); it returns ctx's error, if any.
func CountAll(ctx context.Context, children []Child, opt Options, jobs int, emit func(i int, r Row, err error)) error {
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(jobs, len(children)) {
		wg.Go(func() {
			for i := range next {
				r, err := Count(ctx, children[i], opt)
				mu.Lock()
				emit(i, r, err)
				mu.Unlock()
			}
		})
	}
feed:
	for i := range children {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}
