package hybrid

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// executor is one graph's execution state, reused by every Execute (one at a time).
type executor struct {
	mu        sync.Mutex
	cond      sync.Cond
	g         *Graph
	ctx       context.Context
	ready     []int32 // nodes whose predecessors all finished, FIFO
	head      int     // first unread entry of ready
	preds     []int32 // per node: predecessors not finished yet
	skip      []bool  // per node: a predecessor failed or was skipped
	errs      []error // per node: its error
	remaining int     // nodes neither finished nor skipped
	idle      int     // workers waiting for a ready node
	helpers   int     // goroutines started besides the caller
	limit     int     // most helpers
	wg        sync.WaitGroup
	ctxErr    error
	marked    bool // a node failed or was skipped in this run: errs and skip hold marks to clear
}

// Execute runs every node once, each after its predecessors, independent nodes in parallel
// on a bounded pool: the calling goroutine plus up to SetWorkers−1 helper goroutines (started
// on demand, when more nodes are ready than workers are free, and gone when Execute returns).
// A graph whose ready set never holds more than one node runs entirely on the caller.
//
// A node that fails (returns an error or panics) does not stop the others: every node that
// does not depend on it still runs, and the nodes that depend on it, directly or transitively,
// are skipped — so which nodes ran is a function of which failed, not of the schedule. When ctx
// is done, nodes not started yet are skipped and ctx's error is returned with the rest.
// Execute returns nil when every node succeeded, else the nodes' *NodeErrors in node order,
// joined (errors.Join) when more than one. A failed flush node follows the deferral failure
// policy (see AddFlushNode). Errors besides the nodes': ErrNotCompiled, ErrRunning (an Execute
// is in progress, possibly the caller's own: a node must not execute its graph).
func (g *Graph) Execute(ctx context.Context) error {
	if !g.compiled {
		return fmt.Errorf("execute: %w", ErrNotCompiled)
	}
	if !g.running.CompareAndSwap(false, true) {
		return fmt.Errorf("execute: %w", ErrRunning)
	}
	defer g.running.Store(false)
	if ctx == nil {
		ctx = context.Background()
	}
	x := &g.ex
	x.start(g, ctx)
	if len(g.nodes) == 0 {
		x.ctxErr = ctx.Err() // no node to check it before: a done ctx is still reported
	}
	if x.limit == 0 {
		x.serial()
	} else {
		x.work()
		x.wg.Wait()
	}
	return x.finish()
}

// start resets the state for one run. The scheduler's state (preds, ready) is set only for
// a pool of helpers: serial needs the topological order alone. errs and skip are cleared
// only when the last run marked them.
func (x *executor) start(g *Graph, ctx context.Context) {
	n := len(g.nodes)
	if x.g == nil {
		x.g = g
		x.cond.L = &x.mu
		x.preds = make([]int32, n)
		x.skip = make([]bool, n)
		x.errs = make([]error, n)
		x.ready = make([]int32, 0, n)
	}
	x.ctx, x.ctxErr = ctx, nil
	if x.marked {
		clear(x.skip)
		clear(x.errs)
		x.marked = false
	}
	x.limit = g.workers
	if x.limit <= 0 {
		x.limit = runtime.GOMAXPROCS(0)
	}
	x.limit-- // the caller is a worker
	if x.limit == 0 {
		return
	}
	x.ready, x.head = x.ready[:0], 0
	for i, nd := range g.nodes {
		x.preds[i] = nd.npred
		if nd.npred == 0 {
			x.ready = append(x.ready, int32(i))
		}
	}
	x.remaining = n
	x.idle, x.helpers = 0, 0
}

// work is one worker's loop: take a ready node, run it, release its successors.
func (x *executor) work() {
	x.mu.Lock()
	for {
		for x.head == len(x.ready) && x.remaining > 0 {
			x.idle++
			x.cond.Wait()
			x.idle--
		}
		if x.remaining == 0 {
			x.mu.Unlock()
			return
		}
		i := x.ready[x.head]
		x.head++
		if x.head < len(x.ready) && x.idle == 0 && x.helpers < x.limit {
			// More work is ready than workers are free: start a helper. It starts the next one
			// itself if still needed.
			x.helpers++
			x.wg.Add(1)
			go func() {
				defer x.wg.Done()
				x.work()
			}()
		}
		var err error
		skipped := x.skip[i]
		if !skipped && x.ctxErr == nil {
			x.ctxErr = x.ctx.Err()
		}
		if x.ctxErr != nil {
			skipped = true
		}
		if !skipped {
			x.mu.Unlock()
			err = x.g.nodes[i].call(x.ctx)
			x.mu.Lock()
		}
		x.release(i, err, skipped)
	}
}

// serial runs the nodes in topological order on the caller: the one-worker pool, without
// the scheduler's lock.
func (x *executor) serial() {
	for _, i := range x.g.topo {
		skipped := x.skip[i]
		if !skipped && x.ctxErr == nil {
			x.ctxErr = x.ctx.Err()
		}
		var err error
		if skipped = skipped || x.ctxErr != nil; !skipped {
			err = x.g.nodes[i].call(x.ctx)
		}
		n := x.g.nodes[i]
		if err != nil {
			x.errs[i] = &NodeError{Node: n.name, Index: n.index, Err: err}
		}
		if skipped || err != nil {
			x.marked = true
			for _, s := range n.succ {
				x.skip[s] = true
			}
		}
	}
}

// release records node i's outcome and readies its successors. Called with mu held.
func (x *executor) release(i int32, err error, skipped bool) {
	n := x.g.nodes[i]
	if err != nil {
		x.errs[i] = &NodeError{Node: n.name, Index: n.index, Err: err}
	}
	poison := skipped || err != nil
	x.marked = x.marked || poison
	for _, s := range n.succ {
		if poison {
			x.skip[s] = true
		}
		if x.preds[s]--; x.preds[s] == 0 {
			x.ready = append(x.ready, s)
			if x.idle > 0 {
				x.cond.Signal()
			}
		}
	}
	if x.remaining--; x.remaining == 0 {
		x.cond.Broadcast()
	}
}

// finish collects the errors of the run.
func (x *executor) finish() error {
	if !x.marked && x.ctxErr == nil {
		x.ctx = nil
		return nil
	}
	var errs []error
	for _, err := range x.errs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if x.ctxErr != nil {
		errs = append(errs, fmt.Errorf("execute: %w", x.ctxErr))
	}
	x.ctx = nil
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}
