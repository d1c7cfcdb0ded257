package hybrid

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

// ECS is the hybrid strategy for an ecs.World: the cmdbuffer ECS strategy (per-recorder
// buffers of typed deferral.Commands plus the closure tier, committed through a deferral.Core)
// whose commit is a flush node. It implements deferral.Strategy and is a CommandBuffer: graph
// nodes declare Append(s) and stage through s.Recorder(n); a graph's AddFlushNode(s) commits.
//
// Commit, the strategy's own sync point, executes a one-node graph compiled by NewECS: the
// flush node AddFlushNode derives for s, run by the same Execute machinery as any graph
// (inline on the caller, as a single ready node always is).
//
// Recorders stage from any goroutines (each recorder from one at a time); every other method
// runs on the owner's goroutine at a sync point, never while a graph that appends to s or
// flushes it is executing.
type ECS struct {
	cb       *cmdbuffer.ECS
	commit   *Graph
	deciding atomic.Int32 // > 0 between BeginDecisions and its end
}

var (
	_ deferral.Strategy = (*ECS)(nil)
	_ CommandBuffer     = (*ECS)(nil)
)

// Factory makes the hybrid strategy for w.
var Factory deferral.Factory = func(w *ecs.World) deferral.Strategy { return NewECS(w) }

// NewECS returns the hybrid strategy bound to w.
func NewECS(w *ecs.World) *ECS {
	s := &ECS{cb: cmdbuffer.NewECS(w)}
	g := NewGraph()
	g.NameResource(w, "world")
	g.AddFlushNode(s)
	g.SetWorkers(1)
	if err := g.Compile(); err != nil {
		panic(fmt.Sprintf("hybrid: commit graph: %v", err)) // a one-node graph cannot fail to compile
	}
	s.commit = g
	return s
}

// Name returns "hybrid".
func (s *ECS) Name() string { return "hybrid" }

// Capabilities declares a reproducible order that honours sort keys (cmdbuffer's commit).
func (s *ECS) Capabilities() deferral.Capabilities {
	return deferral.Capabilities{
		TypedAllocationFree: true,
		BatchesPerEntity:    true,
		BulkRuns:            true,
		ReproducibleOrder:   true,
		SortKeys:            true,
		Order: "sort key, then recorder number (graph nodes' recorders are minted at Compile in node order), " +
			"then FIFO within a recorder",
		Reads: "reads touch the world directly: staging never blocks them; they wait only for a commit at a sync point",
	}
}

// World returns the target.
func (s *ECS) World() *ecs.World { return s.cb.World() }

// Buffer returns the underlying generic buffer (for inspection).
func (s *ECS) Buffer() *cmdbuffer.Buffer[ecs.World, deferral.Command] { return s.cb.Buffer() }

// NewRecorder mints a recorder for the dynamic (non-graph) path, numbered after those minted
// before it, graph nodes' recorders included.
func (s *ECS) NewRecorder() *deferral.Recorder { return s.cb.NewRecorder() }

// Recorder returns node n's recorder, minted by Compile when n declared Append(s). It panics
// when n did not declare it or its graph is not compiled.
func (s *ECS) Recorder(n *Node) *deferral.Recorder { return n.recorder(s).(*deferral.Recorder) }

// Commit applies every pending command by executing the commit graph's flush node. Errors: as
// cmdbuffer's (a *deferral.CommandError under the failure policy, deferral.ErrClosed), and
// deferral.ErrReentry when called from inside a commit (a closure command) or a frame's
// decisions (BeginDecisions). A panic in a closure command propagates, as with cmdbuffer.
func (s *ECS) Commit() error {
	if s.deciding.Load() > 0 {
		return fmt.Errorf("commit: %w", deferral.ErrReentry)
	}
	err := s.commit.Execute(context.Background())
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrRunning) {
		return fmt.Errorf("commit: %w", deferral.ErrReentry)
	}
	var ne *NodeError
	if errors.As(err, &ne) {
		if pe, ok := ne.Err.(*PanicError); ok {
			panic(pe.Value)
		}
		return ne.Err
	}
	return err
}

// Pending returns the number of staged commands not yet applied.
func (s *ECS) Pending() int { return s.cb.Pending() }

// Discard drops every pending command and returns how many. From inside a frame's decisions
// (BeginDecisions) it drops nothing and returns 0 (discard after the frame).
func (s *ECS) Discard() int {
	if s.deciding.Load() > 0 {
		return 0
	}
	return s.cb.Discard()
}

// Resolve answers what a placeholder became in the last commit.
func (s *ECS) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.cb.Resolve(p) }

// TakeReport returns and resets the receipts. Errors: deferral.ErrPending while commands are
// pending, deferral.ErrReentry inside a frame's decisions (BeginDecisions).
func (s *ECS) TakeReport() (deferral.Report, error) {
	if s.deciding.Load() > 0 {
		return deferral.Report{}, fmt.Errorf("take report: %w", deferral.ErrReentry)
	}
	return s.cb.TakeReport()
}

// Close releases the strategy. Errors: deferral.ErrPendingAtClose while commands are pending
// (the strategy stays open). Closing twice is a no-op.
func (s *ECS) Close() error { return s.cb.Close() }

// BeginDecisions marks the start of a frame's decisions over s — graph nodes that read the
// world and stage through s's recorders, as hybridframe.Frame runs them: until the returned
// end function is called, Commit and TakeReport refuse with deferral.ErrReentry and Discard
// drops nothing, so a decision cannot reach the sync point. Calls nest; call end once.
func (s *ECS) BeginDecisions() (end func()) {
	s.deciding.Add(1)
	var done atomic.Bool
	return func() {
		if !done.Swap(true) {
			s.deciding.Add(-1)
		}
	}
}

// Deciding reports whether a frame's decisions run on s (BeginDecisions without its end).
func (s *ECS) Deciding() bool { return s.deciding.Load() > 0 }

// FlushTarget returns the world: the resource s's flush node writes.
func (s *ECS) FlushTarget() any { return s.World() }

func (s *ECS) mint() any     { return s.NewRecorder() }
func (s *ECS) flush() error  { return s.cb.Commit() }
func (s *ECS) label() string { return "hybrid" }
