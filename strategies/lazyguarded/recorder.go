package lazyguarded

import (
	"fmt"

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
	gen     uint64 // the Guarded's drain generation n counts from
	n       int    // commands staged since the last drained flush or discard
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
	return &Recorder[T, C]{g: g, apply: apply, runFunc: run, gen: g.gen.Load()}
}

func runClosure[T any](t *T, at deferral.Pos, fn func(*T) error) error {
	if err := fn(t); err != nil {
		return &deferral.CommandError{Pos: at, Verb: deferral.VerbFunc, Err: err}
	}
	return nil
}

// Index returns the recorder's number, 0 for the first minted on its Guarded.
func (r *Recorder[T, C]) Index() int { return r.index }

// pos names the next staged command: its FIFO index counts from the last drained flush. A
// command a job stages during a flush counts in the generation after it, as it is applied by
// the next flush.
func (r *Recorder[T, C]) pos() deferral.Pos {
	gen := r.g.gen.Load()
	if r.g.inFlush.Load() {
		gen++
	}
	if gen != r.gen {
		r.gen, r.n = gen, 0
	}
	at := deferral.Pos{Recorder: r.index, Index: r.n}
	r.n++
	return at
}

// Stage submits typed command c as a write job and returns its task, which completes when a
// flush applied c (with apply's error) or Discard dropped it.
func (r *Recorder[T, C]) Stage(c C) *Task {
	at, apply := r.pos(), r.apply
	return r.g.Write(func(t *T) error { return apply(t, at, &c) })
}

// StageFunc submits closure fn as a write job and returns its task.
func (r *Recorder[T, C]) StageFunc(fn func(t *T) error) *Task {
	if fn == nil {
		panic(fmt.Sprintf("lazyguarded: recorder %d: nil closure", r.index))
	}
	at, run := r.pos(), r.runFunc
	return r.g.Write(func(t *T) error { return run(t, at, fn) })
}

// StageKeyed stages c like Stage; the sort key is ignored (deferral.Stager).
func (r *Recorder[T, C]) StageKeyed(_ uint64, c C) { r.Stage(c) }

// StageFuncKeyed stages fn like StageFunc; the sort key is ignored (deferral.Stager).
func (r *Recorder[T, C]) StageFuncKeyed(_ uint64, fn func(t *T) error) { r.StageFunc(fn) }
