package cmdbuffer

import (
	"sync"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// ECS is the cmdbuffer strategy for an ecs.World: a Buffer[ecs.World, deferral.Command] whose
// commits go through a deferral.Core. It implements deferral.Strategy; recorders stage from
// any goroutines, one recorder per goroutine, and everything else runs on the owner's.
type ECS struct {
	core *deferral.Core
	buf  *Buffer[ecs.World, deferral.Command]
	// reported is buf.Coalesced() at the last TakeReport: the commands hooks dropped since
	// then are added to the report's Applied.
	reported int
	mint     sync.Mutex // numbers the buffer recorder and the deferral.Recorder as one step
}

var _ deferral.Strategy = (*ECS)(nil)

// Factory makes the cmdbuffer strategy for w.
var Factory deferral.Factory = func(w *ecs.World) deferral.Strategy { return NewECS(w) }

// NewECS returns the cmdbuffer strategy bound to w.
func NewECS(w *ecs.World) *ECS {
	core := deferral.NewCore(w)
	buf := New(w, func(_ *ecs.World, at deferral.Pos, c *deferral.Command) error { return core.Apply(at, c) })
	buf.SetRunApplier(func(_ *ecs.World, at deferral.Pos, cs []deferral.Command, applied *int) error {
		return core.ApplyRun(at, cs, applied)
	})
	buf.SetStream(func(_ *ecs.World, at deferral.Pos, s *deferral.Stream, stop int, next, off *int) error {
		return core.ApplyStream(at, s, stop, next, off)
	}, deferral.AppendCommands)
	buf.SetClosureRunner(func(_ *ecs.World, at deferral.Pos, fn func(*ecs.World) error) error {
		return core.ApplyFunc(at, fn)
	})
	return &ECS{core: core, buf: buf}
}

// Name returns "cmdbuffer".
func (s *ECS) Name() string { return "cmdbuffer" }

// Capabilities declares a reproducible order that honours sort keys.
func (s *ECS) Capabilities() deferral.Capabilities {
	return deferral.Capabilities{
		TypedAllocationFree: true,
		BatchesPerEntity:    true,
		BulkRuns:            true,
		ReproducibleOrder:   true,
		SortKeys:            true,
		Order:               "sort key, then recorder creation order, then FIFO within a recorder",
		Reads:               "reads touch the world directly: staging never blocks them; they wait only for a commit at a sync point",
	}
}

// World returns the target.
func (s *ECS) World() *ecs.World { return s.core.World() }

// Buffer returns the underlying generic buffer (for hooks and inspection).
func (s *ECS) Buffer() *Buffer[ecs.World, deferral.Command] { return s.buf }

// NewRecorder mints a recorder with its own private buffer.
// It may be called from any goroutine.
func (s *ECS) NewRecorder() *deferral.Recorder {
	s.mint.Lock()
	defer s.mint.Unlock()
	return s.core.NewRecorder(s.buf.NewRecorder())
}

// Commit applies every pending command; see Buffer.Commit and the deferral failure policy.
// A closure that panics leaves itself and the rest pending, as a failing command would, and
// the panic goes on to the caller.
func (s *ECS) Commit() error { return s.core.Commit(s.buf.Commit) }

// Pending returns the number of staged commands not yet applied, those dropped after Close
// included (deferral.Core.Dropped).
func (s *ECS) Pending() int { return s.buf.Pending() + s.core.Dropped() }

// Discard drops every pending command and returns how many. From inside a commit (a closure
// command) it is refused: it drops nothing and returns 0.
func (s *ECS) Discard() int {
	return s.core.Discard(func() (int, bool) { return s.buf.Discard(), true })
}

// Resolve answers what a placeholder became in the last commit.
func (s *ECS) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }

// TakeReport returns and resets the receipts; deferral.ErrPending while commands are pending.
// Commands the buffer's Dedup or Reduce hook dropped count in Report.Applied: they were
// consumed.
func (s *ECS) TakeReport() (deferral.Report, error) {
	rep, err := s.core.TakeReport(s.Pending())
	if err == nil {
		c := s.buf.Coalesced()
		rep.Applied += c - s.reported
		s.reported = c
	}
	return rep, err
}

// Close releases the strategy; deferral.ErrPendingAtClose while commands are pending.
func (s *ECS) Close() error { return s.core.Close(s.Pending()) }
