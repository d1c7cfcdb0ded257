package lazyguarded

import (
	"github.com/deferbench/deferbench/deferral"
)

// ApplyFunc applies one typed command c to the target t. at names the command (recorder
// number, index in its FIFO) for error messages. An error stops the flush at c.
type ApplyFunc[T, C any] func(t *T, at deferral.Pos, c *C) error

// Recorder stages typed commands C and closures as write jobs on a Guarded[T]'s pipe. It
// implements deferral.Stager[T, C]. Every staged command becomes a full job (closure, control
// block, completion channel) enqueued under the pipe's mutex: that per-command cost and
// contention is what design 1 pays. Use a recorder from one goroutine at a time; mint one
// per producer with NewRecorder. Sort keys are accepted and ignored: the apply order is pipe
// order.
type Recorder[T, C any] struct {
	g       *Guarded[T]
	apply   ApplyFunc[T, C]
	runFunc func(t *T, at deferral.Pos, fn func(*T) error) error
	index   int
	// Positions are counted when a command applies, on the flushing goroutine: the pipe keeps
	// each recorder's commands in FIFO order, so the command applying now is the recorder's
	// done-th since the last drained flush or discard. Counting at staging time instead cannot
	// know whether a command a job stages during a flush belongs to that flush's retry (the
	// flush fails: numbering goes on) or to the next generation (it drains: numbering restarts).
	gen  uint64 // the Guarded's drain generation done counts in
	done int    // commands of this recorder applied in generation gen
}

var _ deferral.Stager[struct{}, int] = (*Recorder[struct{}, int])(nil)

// NewRecorder mints a recorder that stages typed commands for g, applied at flush by apply. A
// closure staged with StageFunc that returns an error fails the flush with a
// *deferral.CommandError of verb VerbFunc. Recorders are numbered from 0 per Guarded.
func NewRecorder[T, C any](g *Guarded[T], apply ApplyFunc[T, C]) *Recorder[T, C] {
	r := newRecorder(g, apply, runClosure[T])
	r.index = int(g.nrec.Add(1) - 1)
	return r
}

func newRecorder[T, C any](g *Guarded[T], apply ApplyFunc[T, C], run func(t *T, at deferral.Pos, fn func(*T) error) error) *Recorder[T, C] {
	return &Recorder[T, C]{g: g, apply: apply, runFunc: run}
}

func runClosure[T any](t *T, at deferral.Pos, fn func(*T) error) error {
	if err := fn(t); err != nil {
		return &deferral.CommandError{Pos: at, Verb: deferral.VerbFunc, Err: err}
	}
	return nil
}

// Index returns the recorder's number, 0 for the first minted on its Guarded.
func (r *Recorder[T, C]) Index() int { return r.index }

// at names the command applying now: the recorder's FIFO index counted from the last drained
// flush or discard. Called on the flushing goroutine only.
func (r *Recorder[T, C]) at() deferral.Pos {
	if gen := r.g.gen.Load(); gen != r.gen {
		r.gen, r.done = gen, 0
	}
	return deferral.Pos{Recorder: r.index, Index: r.done}
}

// Stage submits typed command c as a write job and returns its task, which completes when a
// flush applied c (with apply's error) or Discard dropped it.
func (r *Recorder[T, C]) Stage(c C) *Task {
	return r.g.Write(func(t *T) error {
		if err := r.apply(t, r.at(), &c); err != nil {
			return err
		}
		r.done++
		return nil
	})
}

// StageFunc submits closure fn as a write job and returns its task. A nil fn never panics:
// it is staged as deferral.NilClosure, and the flush fails at it with a
// *deferral.CommandError (verb VerbFunc) wrapping deferral.ErrInvalidCommand, leaving it and
// the jobs behind it in the pipe, as any failing command.
func (r *Recorder[T, C]) StageFunc(fn func(t *T) error) *Task {
	if fn == nil {
		fn = deferral.NilClosure[T]
	}
	return r.g.Write(func(t *T) error {
		if err := r.runFunc(t, r.at(), fn); err != nil {
			return err
		}
		r.done++
		return nil
	})
}

// StageKeyed stages c like Stage; the sort key is ignored (deferral.Stager).
func (r *Recorder[T, C]) StageKeyed(_ uint64, c C) { r.Stage(c) }

// StageFuncKeyed stages fn like StageFunc; the sort key is ignored (deferral.Stager).
func (r *Recorder[T, C]) StageFuncKeyed(_ uint64, fn func(t *T) error) { r.StageFunc(fn) }
