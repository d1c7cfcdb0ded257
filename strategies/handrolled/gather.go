package handrolled

import (
	"errors"
	"fmt"
	"sync"

	"github.com/deferbench/deferbench/deferral"
)

// ErrCommitting: Commit or Discard was called while a commit is running (from inside a
// command).
var ErrCommitting = errors.New("a commit is already running")

// ApplyFunc applies one typed command c to the target t. at names the command (recorder
// number, index in its FIFO) for error messages. An error stops the commit at c.
type ApplyFunc[T, C any] func(t *T, at deferral.Pos, c *C) error

// fnAt is one staged closure and its place in a slice of typed records: the record at that
// index is a zero C that holds the closure's place in the FIFO and is never applied. Keeping
// closures beside the records keeps a producer's slice a plain []C, pointer-free, that a
// deferral.Recorder can append to directly (deferral.SliceSink).
type fnAt[T any] struct {
	at int
	fn func(t *T) error
}

// handout is one slice a producer handed over, with the FIFO index of its first command. In
// stream mode (SetStream) st holds its records instead, the recorder's array handed over as
// is; items is nil.
type handout[T, C any] struct {
	r     *Recorder[T, C]
	items []C
	st    deferral.Stream
	fns   []fnAt[T] // the closures among items, by index in items
	base  int
}

// count returns the number of commands (records and closures' places) in h.
func (h *handout[T, C]) count() int { return len(h.items) + h.st.Len() }

// release gives h's storage back to its recorder, emptied (Recorder.reuse); fns must hold no
// closures any more. used is the words h's stream held when handed over: unless the recorder
// has a spare array already, h's goes back to it. After a spike both of the recorder's arrays
// are cut to the recent working set (its Watermark). Called at a sync point.
func (h *handout[T, C]) release(used int) {
	h.r.reuse(h.items, h.fns)
	r := h.r
	if h.st.Cap() == 0 || r.spare.Cap() != 0 {
		return
	}
	h.st.Drop(h.st.Len(), len(h.st.Words()))
	if c := r.wm.Use(used, max(h.st.Cap(), r.st.Cap())); c > 0 {
		if h.st.Cap() > c {
			h.st.Resize(c)
		}
		if r.st.Cap() > c && len(r.st.Words()) <= c {
			r.st.Resize(c)
		}
	}
	r.spare.Swap(&h.st)
}

// segment maps a run of the gathered slice back to the recorder it came from.
type segment[T, C any] struct {
	start int // index in gathered of the run's first command
	r     *Recorder[T, C]
	base  int // FIFO index in r of the run's first command
}

// Gather defers commands of type C to a target of type T the way a careful programmer does
// without a library (design 3): every producer appends to its own slice; a producer
// that is done hands its slice over to a mutex-guarded list; Commit gathers the handed-over
// slices, in hand-over order, into one slice and applies it. There are no hooks, no arena and
// no sort: the apply order across producers is the hand-over order, i.e. completion order,
// which goroutine timing decides.
//
// NewRecorder may be called from any goroutine; each recorder is used from one goroutine.
// Commit, Discard and Pending run on the owner's goroutine at a sync point where no recorder
// is staging.
type Gather[T, C any] struct {
	target  *T
	apply   ApplyFunc[T, C]
	runFunc func(t *T, at deferral.Pos, fn func(*T) error) error
	// applyRun, when set (the ECS flavour: deferral.Core.ApplyRun), applies a run of one
	// recorder's consecutive typed records in one call, as apply would one by one, adding one
	// to *applied (g.next) after each record that applied, so that a record that fails or
	// panics stays pending with the rest; it returns the failing record's error.
	applyRun func(t *T, at deferral.Pos, cs []C, applied *int) error
	// stream and put, when set (SetStream), keep the typed records in compact record streams
	// instead of slices of C: each recorder's, each hand-over's and the gathered ones (gst,
	// goff the word offset of record next). A closure's place is a slot record.
	stream func(t *T, at deferral.Pos, s *deferral.Stream, stop int, next, off *int) error
	put    func(s *deferral.Stream, c C)
	gst    deferral.Stream
	goff   int

	mu     sync.Mutex
	nrec   int
	open   []*Recorder[T, C] // recorders that staged since the last commit, in first-stage order
	handed []handout[T, C]   // hand-overs not yet gathered, in hand-over order

	// Owner-only: the gathered slice and its pending suffix.
	gathered    []C
	gfns        []fnAt[T]          // the gathered closures, by index in gathered
	fnext       int                // first pending closure of gfns
	gwm         deferral.Watermark // shrinks gathered and segs after a spike
	gfwm        deferral.Watermark // shrinks gfns after a spike of closures
	segs        []segment[T, C]
	next, snext int // first pending command of gathered; its segment
	committing  bool
	applying    bool // past the gather step of a commit: hand-overs now belong to the next commit
}

// New returns a Gather bound to target that applies typed commands with apply. A closure that
// returns an error fails the commit with a *deferral.CommandError of verb VerbFunc.
func New[T, C any](target *T, apply ApplyFunc[T, C]) *Gather[T, C] {
	return &Gather[T, C]{target: target, apply: apply, runFunc: runClosure[T]}
}

func runClosure[T any](t *T, at deferral.Pos, fn func(*T) error) error {
	if err := fn(t); err != nil {
		return &deferral.CommandError{Pos: at, Verb: deferral.VerbFunc, Err: err}
	}
	return nil
}

// SetStream makes the Gather keep typed records in compact record streams (deferral.Stream)
// that a deferral.Recorder writes directly (deferral.StreamSink) — the ECS flavour's records,
// sized to what they carry — instead of slices of C: put appends one C to a stream (Stage), and
// run applies the gathered records from record *next (at word *off) up to record stop,
// advancing both after each record that applied, and returns the failing record's error
// (deferral.Core.ApplyStream). Call it before minting recorders.
func (g *Gather[T, C]) SetStream(run func(t *T, at deferral.Pos, s *deferral.Stream, stop int, next, off *int) error, put func(s *deferral.Stream, c C)) {
	g.stream, g.put = run, put
}

// glen returns the number of gathered commands, applied or not.
func (g *Gather[T, C]) glen() int {
	if g.stream != nil {
		return g.gst.Len()
	}
	return len(g.gathered)
}

// Target returns the target commands are committed to.
func (g *Gather[T, C]) Target() *T { return g.target }

// NewRecorder mints a recorder with its own slice, numbered after those minted before it.
// Hand it to one producer goroutine; reuse it across commits.
func (g *Gather[T, C]) NewRecorder() *Recorder[T, C] {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := &Recorder[T, C]{g: g, index: g.nrec, unlisted: true, streamed: g.stream != nil}
	r.st.Hold(true) // unlisted: the first record goes through Stage, which lists the recorder
	g.nrec++
	return r
}

// Pending returns the number of staged commands not yet applied: still in a producer's
// slice, handed over, or gathered and not applied.
func (g *Gather[T, C]) Pending() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.glen() - g.next
	for _, h := range g.handed {
		n += h.count()
	}
	for _, r := range g.open {
		n += r.Len()
	}
	return n
}

// Commit hands over the slice of every recorder that has not handed its slice over (in the
// order those recorders first staged since the last commit), gathers every handed-over slice
// into one slice in hand-over order (after the pending suffix of a failed commit), and
// applies it command by command. On a failing command it returns the error (apply's, or a
// *deferral.CommandError for a closure): the commands before it stay applied, it and the ones
// after it stay pending in the gathered slice, and the next Commit resumes there.
// Commands staged during the commit (by a closure) are left for the next Commit.
// Errors also: ErrCommitting from inside a command.
func (g *Gather[T, C]) Commit() error {
	if g.committing {
		return fmt.Errorf("commit: %w", ErrCommitting)
	}
	g.committing = true
	defer func() { g.committing = false }()
	g.gather()
	g.applying = true
	defer func() { g.applying = false }()
	t := g.target
	for g.next < g.glen() {
		for g.snext+1 < len(g.segs) && g.segs[g.snext+1].start <= g.next {
			g.snext++
		}
		sg := &g.segs[g.snext]
		at := deferral.Pos{Recorder: sg.r.index, Index: sg.base + g.next - sg.start}
		if g.fnext < len(g.gfns) && g.gfns[g.fnext].at == g.next {
			if err := g.runFunc(t, at, g.gfns[g.fnext].fn); err != nil {
				return err
			}
			g.fnext++
			g.next++
			if g.stream != nil {
				g.goff += g.gst.RecordWords(g.goff) // the closure's slot
			}
			continue
		}
		if g.stream != nil || g.applyRun != nil {
			// The typed records up to the end of this recorder's segment or the next closure.
			stop := g.glen()
			if g.snext+1 < len(g.segs) {
				stop = g.segs[g.snext+1].start
			}
			if g.fnext < len(g.gfns) {
				stop = min(stop, g.gfns[g.fnext].at)
			}
			if g.stream != nil {
				if err := g.stream(t, at, &g.gst, stop, &g.next, &g.goff); err != nil {
					return err
				}
				continue
			}
			if err := g.applyRun(t, at, g.gathered[g.next:stop], &g.next); err != nil {
				return err
			}
			continue
		}
		if err := g.apply(t, at, &g.gathered[g.next]); err != nil {
			return err
		}
		g.next++
	}
	for _, sg := range g.segs {
		sg.r.handed -= sg.r.inCommit // what closures handed over meanwhile stays counted
		sg.r.inCommit = 0
	}
	g.resetGathered()
	g.next, g.snext = 0, 0
	return nil
}

// resetGathered empties the gathered slice, its closures and its segments, cutting their
// capacity after a spike.
func (g *Gather[T, C]) resetGathered() {
	clear(g.gfns) // drop the closures; typed records hold no pointers
	if c := g.gfwm.Use(len(g.gfns), cap(g.gfns)); c > 0 {
		g.gfns = deferral.Shrink(g.gfns[:0], c)
	}
	g.gfns, g.fnext = g.gfns[:0], 0
	if c := g.gwm.Use(len(g.gathered), cap(g.gathered)); c > 0 {
		g.gathered = deferral.Shrink(g.gathered[:0], c)
		g.segs = deferral.Shrink(g.segs[:0], min(cap(g.segs), c))
	}
	g.gathered, g.segs = g.gathered[:0], g.segs[:0]
	g.gst.Drop(g.gst.Len(), len(g.gst.Words()))
	g.goff = 0
}

// reuse gives r back the slices items and fns it handed over, emptied, unless r already has
// new ones; after a spike each is cut back (the recorder's deferral.Watermarks). fns must
// hold no closures any more.
func (r *Recorder[T, C]) reuse(items []C, fns []fnAt[T]) {
	if r.fns == nil {
		r.fns = fns[:0]
		if c := r.fwm.Use(len(fns), cap(fns)); c > 0 {
			r.fns = make([]fnAt[T], 0, c)
		}
	}
	if r.local != nil || r.streamed { // in stream mode wm is the arrays' (handout.release)
		return
	}
	if c := r.wm.Use(len(items), cap(items)); c > 0 {
		r.local = make([]C, 0, c)
		return
	}
	r.local = items[:0]
}

// gather is the one gather step: late hand-overs, then a copy of every handed-over slice into
// the gathered slice. Producers' slices go back to them, emptied, to be reused.
func (g *Gather[T, C]) gather() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.open {
		r.handoverLocked()
		r.unlist()
	}
	clear(g.open)
	g.open = g.open[:0]
	start := g.glen()
	for i := range g.handed {
		h := &g.handed[i]
		g.segs = append(g.segs, segment[T, C]{start: start, r: h.r, base: h.base})
		if g.stream == nil {
			start = len(g.gathered)
			g.segs[len(g.segs)-1].start = start
			g.gathered = append(g.gathered, h.items...)
		}
		for _, f := range h.fns {
			g.gfns = append(g.gfns, fnAt[T]{at: start + f.at, fn: f.fn})
		}
		start += h.count()
		used := len(h.st.Words())
		g.gst.AppendStream(&h.st)
		clear(h.fns)
		h.release(used)
	}
	for _, h := range g.handed {
		h.r.inCommit = h.r.handed
	}
	clear(g.handed)
	g.handed = g.handed[:0]
}

// Discard drops every pending command, keeping slice capacity, and returns how many it
// dropped. Errors: ErrCommitting from inside a command (nothing is dropped).
func (g *Gather[T, C]) Discard() (int, error) {
	if g.committing {
		return 0, fmt.Errorf("discard: %w", ErrCommitting)
	}
	g.mu.Lock()
	n := g.glen() - g.next
	for _, r := range g.open {
		n += r.Len()
		clear(r.fns)
		items, fns := r.local, r.fns
		r.local, r.fns = nil, nil
		r.reuse(items, fns)
		if r.st.Len() > 0 {
			// Not after a hand-over, which took the records and left the spare array: that
			// empty stream is no cycle of its own, and counting it as one cut the spare array
			// every ShrinkWindow discards, so staging grew it again (allocations in steady
			// state). The arrays' shrink policy is the hand-over's (handout.release).
			r.st.Drop(r.st.Len(), len(r.st.Words()))
		}
		r.unlist()
		r.handed, r.inCommit = 0, 0
	}
	clear(g.open)
	g.open = g.open[:0]
	for i := range g.handed {
		h := &g.handed[i]
		n += h.count()
		h.r.handed, h.r.inCommit = 0, 0
		clear(h.fns)
		h.release(len(h.st.Words()))
	}
	clear(g.handed)
	g.handed = g.handed[:0]
	g.mu.Unlock()
	for _, sg := range g.segs {
		sg.r.handed, sg.r.inCommit = 0, 0
	}
	g.resetGathered()
	g.next, g.snext = 0, 0
	return n, nil
}

// Recorder is one producer's handle: it appends to its own slice, with no lock, and hands the
// slice over when the producer is done (Handover), or at the next Commit if it did not. It
// implements deferral.Stager[T, C]; sort keys are accepted and ignored. Use it from one
// goroutine at a time.
type Recorder[T, C any] struct {
	g        *Gather[T, C]
	index    int
	local    []C                // typed records; a zero C holds each closure's place
	fns      []fnAt[T]          // the closures staged into local, by index in local
	wm       deferral.Watermark // shrinks local after a spike
	fwm      deferral.Watermark // shrinks fns after a spike of closures
	unlisted bool               // not in g.open since the last commit: the next stage lists it
	// st holds the typed records and closures' places instead of local in stream mode
	// (streamed, Gather.SetStream); it is held while the recorder is unlisted, so that a
	// deferral.Recorder's first record goes through Stage.
	st       deferral.Stream
	spare    deferral.Stream // an array for st after a hand-over (guarded by g.mu)
	streamed bool
	handed   int // commands handed over since the last drained commit: FIFO base of the next
	inCommit int // of handed, the commands the running (or failed) commit gathered
	// pad keeps recorders that are allocated together from sharing a cache line.
	_ [64]byte
}

var _ deferral.Stager[struct{}, int] = (*Recorder[struct{}, int])(nil)

// Index returns the recorder's number, 0 for the first minted.
func (r *Recorder[T, C]) Index() int { return r.index }

// Stage appends typed command c to the recorder's slice (in stream mode, its stream).
func (r *Recorder[T, C]) Stage(c C) {
	if r.unlisted {
		r.list()
	}
	if r.streamed {
		r.g.put(&r.st, c)
		return
	}
	r.local = append(r.local, c)
}

// Stream returns the recorder's record stream in stream mode (Gather.SetStream), else nil:
// the fast path of deferral.StreamSink.
func (r *Recorder[T, C]) Stream() *deferral.Stream {
	if !r.streamed {
		return nil
	}
	return &r.st
}

// StageFunc appends a closure to the recorder's slice. It allocates the closure. A nil fn
// never panics: it is staged as deferral.NilClosure, and the commit fails at it with a
// *deferral.CommandError (verb VerbFunc) wrapping deferral.ErrInvalidCommand, keeping it and
// the commands after it pending, as any failing command.
func (r *Recorder[T, C]) StageFunc(fn func(t *T) error) {
	if fn == nil {
		fn = deferral.NilClosure[T]
	}
	if r.unlisted {
		r.list()
	}
	if r.streamed {
		r.fns = append(r.fns, fnAt[T]{at: r.st.Len(), fn: fn})
		r.st.AppendSlot()
		return
	}
	var zero C
	r.fns = append(r.fns, fnAt[T]{at: len(r.local), fn: fn})
	r.local = append(r.local, zero)
}

// Records returns the recorder's slice of typed records and the flag that is set while the
// recorder is not listed for the next commit: the fast path of deferral.SliceSink, which a
// deferral.Recorder over a Gather without streams appends records through (the ECS flavour
// keeps streams: Stream). While the flag is false, appending
// c to *cmds is exactly Stage(c); while it is set, records must go through Stage, whose first
// call lists the recorder. Sort keys are ignored either way.
func (r *Recorder[T, C]) Records() (cmds *[]C, unlisted *bool) { return &r.local, &r.unlisted }

// StageKeyed stages c like Stage; the sort key is ignored (deferral.Stager).
func (r *Recorder[T, C]) StageKeyed(_ uint64, c C) { r.Stage(c) }

// StageFuncKeyed stages fn like StageFunc; the sort key is ignored (deferral.Stager).
func (r *Recorder[T, C]) StageFuncKeyed(_ uint64, fn func(t *T) error) { r.StageFunc(fn) }

// list records, once per commit, that the recorder has a slice to hand over: the first stage
// after a commit takes the Gather's lock once. Out of line, so the staging path stays small.
//
//go:noinline
func (r *Recorder[T, C]) list() {
	r.g.mu.Lock()
	r.g.open = append(r.g.open, r)
	r.unlisted = false
	r.st.Hold(false)
	r.g.mu.Unlock()
}

// unlist marks the recorder as not listed for the next commit; in stream mode its stream is
// held, so that the next record goes through Stage.
func (r *Recorder[T, C]) unlist() {
	r.unlisted = true
	r.st.Hold(true)
}

// Len returns the number of commands in the recorder's slice (staged, not handed over).
func (r *Recorder[T, C]) Len() int {
	if r.streamed {
		return r.st.Len()
	}
	return len(r.local)
}

// Handover hands the recorder's slice to the Gather: the producer says it is done. Commands
// apply in hand-over order across recorders. The recorder may stage again afterwards (into a
// new slice, handed over later). Handover of an empty slice does nothing.
func (r *Recorder[T, C]) Handover() {
	r.g.mu.Lock()
	r.handoverLocked()
	r.g.mu.Unlock()
}

func (r *Recorder[T, C]) handoverLocked() {
	n := r.Len()
	if n == 0 {
		return
	}
	base := r.handed
	if r.g.applying {
		base -= r.inCommit // handed over by a closure: first of the next commit
	}
	r.g.handed = append(r.g.handed, handout[T, C]{r: r, items: r.local, fns: r.fns, base: base})
	if r.streamed { // the array goes with the records; st takes the spare one
		h := &r.g.handed[len(r.g.handed)-1]
		h.st.Swap(&r.st)
		r.st.Swap(&r.spare)
	}
	r.handed += n
	r.local, r.fns = nil, nil
}
