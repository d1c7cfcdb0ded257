package lazyguarded

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// ECS is the lazyguarded strategy for an ecs.World: a Guarded[ecs.World] whose recorders
// submit every staged command as a parked write job, and whose Commit is the flush, run
// through a deferral.Core. It implements deferral.Strategy; recorders stage from any
// goroutines, one recorder per goroutine, and Commit, Discard, Pending, Resolve, TakeReport
// and Close run on the owner's. Reads of the world go through Read, which obeys the reader
// mode.
type ECS struct {
	core *deferral.Core
	g    *Guarded[ecs.World]
}

var _ deferral.Strategy = (*ECS)(nil)

// Factory makes the lazyguarded strategy in ReadersWait mode for w.
var Factory deferral.Factory = func(w *ecs.World) deferral.Strategy { return NewECS(w, ReadersWait) }

// FactoryPass makes the lazyguarded strategy in ReadersPass mode for w.
var FactoryPass deferral.Factory = func(w *ecs.World) deferral.Strategy { return NewECS(w, ReadersPass) }

// NewECS returns the lazyguarded strategy bound to w, with reads in the given mode.
func NewECS(w *ecs.World, mode ReaderMode) *ECS {
	return &ECS{core: deferral.NewCore(w), g: newGuarded(w, mode)}
}

// Name returns "lazyguarded" (ReadersWait) or "lazyguarded-pass" (ReadersPass).
func (s *ECS) Name() string {
	if s.g.mode == ReadersPass {
		return "lazyguarded-pass"
	}
	return "lazyguarded"
}

// Capabilities declares that the cross-recorder order is not reproducible and that sort keys
// are ignored: commands apply in pipe order, the order stages took the pipe's mutex. In
// ReadersWait mode reads wait behind parked writes (ReadsWaitForStaged); in ReadersPass they
// pass them and see the state before them.
func (s *ECS) Capabilities() deferral.Capabilities {
	c := deferral.Capabilities{
		ReproducibleOrder: false,
		SortKeys:          false,
		Order:             "pipe order: the order stages acquired the target's pipe mutex (goroutine timing, not reproducible); FIFO within a recorder",
		Reads:             "reads pass parked writes and see the state before them (" + s.g.mode.String() + ", stale reads)",
	}
	if s.g.mode == ReadersWait {
		c.ReadsWaitForStaged = true
		c.Reads = "reads queue on the target's pipe behind parked writes (" + s.g.mode.String() + ")"
	}
	return c
}

// World returns the target.
func (s *ECS) World() *ecs.World { return s.core.World() }

// Guarded returns the pipe in front of the world (to submit reads and writes of one's own).
func (s *ECS) Guarded() *Guarded[ecs.World] { return s.g }

// Read submits a read job on the world's pipe; see Guarded.Read and the reader mode.
func (s *ECS) Read(fn func(w *ecs.World) error) *Task { return s.g.Read(fn) }

// NewRecorder mints a recorder whose every staged command becomes a parked write job.
func (s *ECS) NewRecorder() *deferral.Recorder {
	core := s.core
	sink := newRecorder(s.g,
		func(_ *ecs.World, at deferral.Pos, c *deferral.Command) error { return core.Apply(at, c) },
		func(_ *ecs.World, at deferral.Pos, fn func(*ecs.World) error) error { return core.ApplyFunc(at, fn) })
	r := core.NewRecorder(&compactSink{sink, core})
	sink.index = r.Index()
	return r
}

// compactSink is the ECS flavour's sink: a command whose compact record fits in 32 bytes (a
// one-value Add or Set of at most 16 bytes, a Remove, a Destroy; deferral.Compress) parks as
// a write job that holds that record instead of the 72-byte Command; the rest park as
// Recorder.Stage parks them. Either way one job per command on the pipe.
type compactSink struct {
	*Recorder[ecs.World, deferral.Command]
	core *deferral.Core
}

func (s *compactSink) StageKeyed(_ uint64, c deferral.Command) {
	rec, ok := deferral.Compress(&c)
	if !ok {
		s.Stage(c)
		return
	}
	r, core := s.Recorder, s.core
	r.g.Write(func(*ecs.World) error {
		c := rec.Command() // on the flushing goroutine's stack: Apply keeps no pointer to it
		if err := core.Apply(r.at(), &c); err != nil {
			return err
		}
		r.done++
		return nil
	})
}

// Commit is the flush: it applies the parked commands in pipe order under one write hold, by
// the lenient rules. On a failing command it returns its *deferral.CommandError; that command
// and the ones behind it stay parked, and the next Commit resumes there. Errors also:
// deferral.ErrClosed, deferral.ErrReentry (a commit from inside a command).
func (s *ECS) Commit() error {
	return s.core.Commit(func() error {
		err := s.g.Flush()
		if errors.Is(err, ErrFlushing) {
			err = fmt.Errorf("commit: %w", deferral.ErrReentry)
		}
		return err
	})
}

// Pending returns the number of parked commands, plus those staged after Close, which are
// dropped instead of parked (deferral.Core.Dropped).
func (s *ECS) Pending() int { return s.g.Pending() + s.core.Dropped() }

// Discard drops every parked command and returns how many. It does nothing inside a commit.
func (s *ECS) Discard() int {
	return s.core.Discard(func() (int, bool) {
		n, err := s.g.Discard()
		return n, err == nil
	})
}

// Resolve answers what a placeholder became in the last commit.
func (s *ECS) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }

// TakeReport returns and resets the receipts; deferral.ErrPending while commands are parked.
func (s *ECS) TakeReport() (deferral.Report, error) { return s.core.TakeReport(s.Pending()) }

// Close releases the strategy; deferral.ErrPendingAtClose while commands are parked.
func (s *ECS) Close() error { return s.core.Close(s.Pending()) }
