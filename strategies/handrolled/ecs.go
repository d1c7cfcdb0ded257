package handrolled

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// ECS is the handrolled strategy for an ecs.World: a Gather[ecs.World, deferral.Command]
// whose commits go through a deferral.Core. It implements deferral.Strategy; recorders stage
// from any goroutines, one recorder per goroutine, and everything else runs on the owner's.
//
// Hand-over point: a producer that is done calls Handover with its recorder; its slice joins
// the gather list then, so the apply order across recorders is completion order. Recorders
// not handed over by the time Commit runs are handed over by Commit, in the order they first
// staged since the previous commit — also goroutine timing. Either way the order is not
// reproducible, and the strategy declares so.
type ECS struct {
	core *deferral.Core
	g    *Gather[ecs.World, deferral.Command]
	recs []*Recorder[ecs.World, deferral.Command] // by recorder number; guarded by g.mu
}

var _ deferral.Strategy = (*ECS)(nil)

// Its recorders take records from a deferral.Recorder without an interface call, into a
// compact record stream.
var _ deferral.StreamSink = (*Recorder[ecs.World, deferral.Command])(nil)

// Factory makes the handrolled strategy for w.
var Factory deferral.Factory = func(w *ecs.World) deferral.Strategy { return NewECS(w) }

// NewECS returns the handrolled strategy bound to w.
func NewECS(w *ecs.World) *ECS {
	core := deferral.NewCore(w)
	g := New(w, func(_ *ecs.World, at deferral.Pos, c *deferral.Command) error { return core.Apply(at, c) })
	g.runFunc = func(_ *ecs.World, at deferral.Pos, fn func(*ecs.World) error) error { return core.ApplyFunc(at, fn) }
	g.applyRun = func(_ *ecs.World, at deferral.Pos, cs []deferral.Command, applied *int) error {
		return core.ApplyRun(at, cs, applied)
	}
	g.SetStream(func(_ *ecs.World, at deferral.Pos, s *deferral.Stream, stop int, next, off *int) error {
		return core.ApplyStream(at, s, stop, next, off)
	}, func(s *deferral.Stream, c deferral.Command) { s.AppendCommand(&c) })
	return &ECS{core: core, g: g}
}

// Name returns "handrolled".
func (s *ECS) Name() string { return "handrolled" }

// Capabilities declares that the cross-recorder order (hand-over order) is not reproducible
// and that sort keys are ignored.
func (s *ECS) Capabilities() deferral.Capabilities {
	return deferral.Capabilities{
		TypedAllocationFree: true,
		BatchesPerEntity:    true,
		BulkRuns:            true,
		ReproducibleOrder:   false,
		SortKeys:            false,
		Order:               "hand-over order: recorders in the order producers handed their slices over (Handover, else first stage since the last commit), which goroutine timing decides; FIFO within a recorder",
		Reads:               "reads touch the world directly: staging never blocks them; they wait only for a commit at a sync point",
	}
}

// World returns the target.
func (s *ECS) World() *ecs.World { return s.core.World() }

// Gather returns the underlying generic gather.
func (s *ECS) Gather() *Gather[ecs.World, deferral.Command] { return s.g }

// NewRecorder mints a recorder with its own slice.
func (s *ECS) NewRecorder() *deferral.Recorder {
	sink := s.g.NewRecorder()
	r := s.core.NewRecorder(sink)
	s.g.mu.Lock()
	sink.index = r.Index()
	for len(s.recs) <= r.Index() {
		s.recs = append(s.recs, nil)
	}
	s.recs[r.Index()] = sink
	s.g.mu.Unlock()
	return r
}

// Handover hands r's slice over: call it from r's goroutine when the producer is done.
// Commands apply in hand-over order across recorders. r must be one of this strategy's
// recorders; Handover panics on a recorder number it never minted.
func (s *ECS) Handover(r *deferral.Recorder) {
	s.g.mu.Lock()
	defer s.g.mu.Unlock()
	i := r.Index()
	if i >= len(s.recs) || s.recs[i] == nil {
		panic(fmt.Sprintf("handrolled: Handover of recorder %d, which this strategy did not mint", i))
	}
	s.recs[i].handoverLocked()
}

// Commit gathers and applies every pending command; see Gather.Commit and the deferral
// failure policy. Errors: *deferral.CommandError, deferral.ErrClosed, deferral.ErrReentry.
func (s *ECS) Commit() error {
	return s.core.Commit(func() error {
		err := s.g.Commit()
		if errors.Is(err, ErrCommitting) {
			err = fmt.Errorf("commit: %w", deferral.ErrReentry)
		}
		return err
	})
}

// Pending returns the number of staged commands not yet applied, those dropped after Close
// included (deferral.Core.Dropped).
func (s *ECS) Pending() int { return s.g.Pending() + s.core.Dropped() }

// Discard drops every pending command and returns how many. It does nothing inside a commit.
func (s *ECS) Discard() int {
	return s.core.Discard(func() (int, bool) {
		n, err := s.g.Discard()
		return n, err == nil
	})
}

// Resolve answers what a placeholder became in the last commit.
func (s *ECS) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }

// TakeReport returns and resets the receipts; deferral.ErrPending while commands are pending.
func (s *ECS) TakeReport() (deferral.Report, error) { return s.core.TakeReport(s.Pending()) }

// Close releases the strategy; deferral.ErrPendingAtClose while commands are pending.
func (s *ECS) Close() error { return s.core.Close(s.Pending()) }
