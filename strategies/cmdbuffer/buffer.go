package cmdbuffer

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/deferbench/deferbench/deferral"
)

// ApplyFunc applies one typed command c to the target t. at names the command (recorder
// number, index in its FIFO) for error messages. An error stops the commit at c; Commit
// returns it as a *deferral.CommandError (verb VerbTyped) naming at, unless it already is one.
type ApplyFunc[T, C any] func(t *T, at deferral.Pos, c *C) error

// ApplyRunFunc applies a run of consecutive typed commands of one recorder to t, in order:
// cs[i] at position at with Index at.Index+i. It adds one to *applied (the buffer's cursor)
// after each command that applied, before the next one, so that a command that fails or
// panics leaves *applied on it and the failure policy keeps it and the rest pending; it
// returns nil or that command's error. Buffer.SetRunApplier installs one.
type ApplyRunFunc[T, C any] func(t *T, at deferral.Pos, cs []C, applied *int) error

// Buffer defers commands of type C to a target of type T. Create it with New. NewRecorder
// may be called from any goroutine; Commit, Discard and Pending from the owner's goroutine
// only, at a sync point where no recorder is staging.
type Buffer[T, C any] struct {
	target   *T
	apply    ApplyFunc[T, C]
	applyRun ApplyRunFunc[T, C] // nil: apply, command by command
	// stream, when set (SetStream), applies runs of a recorder's record stream; decode turns
	// a stream's records into Cs for keyed commits and hooks.
	stream  StreamRunFunc[T]
	decode  func(s *deferral.Stream, dst []C) []C
	runFunc func(t *T, at deferral.Pos, fn func(*T) error) error

	mu   sync.Mutex // guards recs while minting
	recs []*Recorder[T, C]

	plan       []ref              // the keyed commit order, kept across a failed commit
	pwm        deferral.Watermark // shrinks plan after a spike
	cursor     int                // first pending entry of plan
	committing bool               // inside Commit: Discard is refused, staging goes to the next commit
	retain     bool               // SetRetain: a successful Commit keeps what it applied until Release
	held       bool               // the last Commit kept what it applied

	hooks     Hooks[C]
	seen      map[uint64]int // scratch for Dedup and Reduce, reused across commits
	coalesced int
}

// Hooks are opt-in commit-time transformations of the typed tier, the seam a typed tier opens
// for merge, sort and dedup, which opaque closures cannot offer. They see the commit order (sort key,
// recorder, FIFO) and work on each run of typed commands between two closures: closures are
// barriers no hook moves a command across. A command a hook drops counts as consumed.
type Hooks[C any] struct {
	// Sort, when set, stably reorders each run by this comparison (e.g. by material).
	Sort func(a, b *C) int
	// Key names the item a command is about; Dedup and Reduce need it.
	Key func(c *C) uint64
	// Dedup keeps only the last command of each Key in a run (last wins).
	Dedup bool
	// Reduce, when set, folds every later command of a Key into the first one of its run, in
	// order, and drops the later ones (e.g. accumulating forces per body).
	Reduce func(acc *C, next *C)
}

func (h *Hooks[C]) active() bool { return h.Sort != nil || h.Dedup || h.Reduce != nil }

// SetHooks installs commit-time hooks. It panics when Dedup or Reduce is set without Key, or
// both Dedup and Reduce are set. Call it at a sync point.
func (b *Buffer[T, C]) SetHooks(h Hooks[C]) {
	if (h.Dedup || h.Reduce != nil) && h.Key == nil {
		panic("cmdbuffer: Hooks.Dedup and Hooks.Reduce need Hooks.Key")
	}
	if h.Dedup && h.Reduce != nil {
		panic("cmdbuffer: Hooks.Dedup and Hooks.Reduce are exclusive")
	}
	b.hooks = h
}

// Coalesced returns how many commands Dedup or Reduce dropped since the buffer was made.
func (b *Buffer[T, C]) Coalesced() int { return b.coalesced }

// ref names one pending command in the keyed commit order.
type ref struct {
	key uint64
	rec int32
	idx int32 // typed index, or closure index when fn
	seq int64 // FIFO index in the recorder: typed and closures counted together
	fn  bool
}

func (a ref) compare(b ref) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := cmp.Compare(a.rec, b.rec); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// closure is a closure-tier command, kept beside the typed records.
type closure[T any] struct {
	at  int // index of the typed record it precedes
	key uint64
	fn  func(*T) error
}

// New returns a Buffer bound to target that applies typed commands with apply. A closure that
// returns an error fails the commit with a *deferral.CommandError of verb VerbFunc.
func New[T, C any](target *T, apply ApplyFunc[T, C]) *Buffer[T, C] {
	return &Buffer[T, C]{target: target, apply: apply, runFunc: runClosure[T]}
}

func runClosure[T any](t *T, at deferral.Pos, fn func(*T) error) error {
	return deferral.Wrap(at, deferral.VerbFunc, fn(t))
}

// SetClosureRunner replaces how closures run at commit (the ECS flavour routes them through
// deferral.Core for receipts). Call it before staging.
func (b *Buffer[T, C]) SetClosureRunner(run func(t *T, at deferral.Pos, fn func(*T) error) error) {
	b.runFunc = run
}

// SetRunApplier makes Commit hand runs of consecutive typed commands to run in one call,
// instead of one call of the apply function per command: the ECS flavour passes a run to
// deferral.Core.ApplyRun, which saves an indirect call per command. It must apply each command
// as the apply function would and count each applied command (ApplyRunFunc); one that returns
// nil with commands of the run not counted, or counts past the run, makes Commit panic with a
// message saying so, instead of looping on the run. Keyed commits and hooks still apply command
// by command. Call it before staging.
func (b *Buffer[T, C]) SetRunApplier(run ApplyRunFunc[T, C]) { b.applyRun = run }

// StreamRunFunc applies records of a recorder's record stream s to t, in order, from record
// *next (at word *off; at names it) up to record stop, advancing *next and *off after each
// record that applied, and returns nil or the failing record's error (deferral.Core.ApplyStream
// is one).
type StreamRunFunc[T any] func(t *T, at deferral.Pos, s *deferral.Stream, stop int, next, off *int) error

// SetStream makes the buffer's recorders keep their typed commands in a compact record stream
// (deferral.Stream) that a deferral.Recorder writes directly (deferral.StreamSink), instead of
// a slice of C: the ECS flavour's records, sized to what they carry. run applies a run of
// stream records, and decode appends a stream's records as Cs: a keyed commit, hooks, or a
// command staged with StageKeyed turn a recorder's stream into its slice of C (until its
// commands drain) and go on as without a stream. Call it before minting recorders.
func (b *Buffer[T, C]) SetStream(run StreamRunFunc[T], decode func(s *deferral.Stream, dst []C) []C) {
	b.stream, b.decode = run, decode
}

// Target returns the target commands are committed to.
func (b *Buffer[T, C]) Target() *T { return b.target }

// NewRecorder mints a recorder, numbered after those minted before it. Hand it to one
// goroutine; reuse it across commits.
func (b *Buffer[T, C]) NewRecorder() *Recorder[T, C] {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := &Recorder[T, C]{index: len(b.recs), decode: b.decode}
	b.recs = append(b.recs, r)
	return r
}

// recorders returns a snapshot of the minted recorders.
func (b *Buffer[T, C]) recorders() []*Recorder[T, C] {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.recs
}

// Pending returns the number of staged commands (typed and closures) not yet applied.
func (b *Buffer[T, C]) Pending() int {
	n := len(b.plan) - b.cursor
	for _, r := range b.recorders() {
		n += r.typed() - r.next + len(r.funcs) - r.fnext
	}
	return n
}

// Discard drops every pending command, keeping buffer capacity, and returns how many it
// dropped. Called from inside a commit (by a closure command) it is refused: it drops nothing
// and returns 0.
func (b *Buffer[T, C]) Discard() int {
	if b.committing {
		return 0
	}
	n := b.Pending()
	for _, r := range b.recorders() {
		r.drop(r.typed(), len(r.st.Words()), len(r.funcs))
	}
	b.resetPlan()
	b.held = false
	return n
}

// SetRetain sets whether a successful Commit keeps the commands it applied in the recorders'
// buffers until Release, instead of dropping them at its end: for a strategy that applies one
// batch to two targets (versioned replays it on a second replica), the pointers Commit passed
// to the apply function stay valid until then. Kept commands are not pending. Call it at a
// sync point.
func (b *Buffer[T, C]) SetRetain(on bool) { b.retain = on }

// Release drops the commands the last Commit kept (SetRetain), keeping capacity; a no-op when
// it kept none. The next Commit and Discard release first.
func (b *Buffer[T, C]) Release() {
	if !b.held {
		return
	}
	b.held = false
	for _, r := range b.recorders() {
		r.drop(r.end, r.endOff, r.fend)
	}
	b.resetPlan()
}

// Commit applies every pending command to the target in commit order: sort key, then
// recorder number, then FIFO. It returns the first command's error (the failure policy keeps
// it and the rest pending) or nil when everything applied. The cost is proportional to the
// pending commands plus the number of recorders. Commands that closures stage while the
// commit runs are applied by the next commit; Commit from inside a closure is refused with
// deferral.ErrReentry.
func (b *Buffer[T, C]) Commit() error {
	if b.committing {
		return fmt.Errorf("cmdbuffer: commit: %w", deferral.ErrReentry)
	}
	b.Release()
	b.committing = true
	defer func() { b.committing = false }()
	recs := b.recorders()
	keyed := len(b.plan) > b.cursor || b.hooks.active()
	for _, r := range recs {
		keyed = keyed || r.keyed
		r.end, r.endOff, r.fend = r.typed(), len(r.st.Words()), len(r.funcs)
	}
	if keyed {
		for _, r := range recs {
			if r.st.Len() > 0 {
				r.unstream() // the plan indexes slices of C
			}
		}
		if err := b.commitKeyed(recs); err != nil {
			return err
		}
	} else {
		for _, r := range recs {
			if err := b.sweep(r); err != nil {
				return err
			}
		}
	}
	if b.retain {
		b.held = true
		return nil
	}
	for _, r := range recs {
		r.drop(r.end, r.endOff, r.fend)
	}
	b.resetPlan()
	return nil
}

// resetPlan empties the keyed plan, cutting its capacity after a spike.
func (b *Buffer[T, C]) resetPlan() {
	if c := b.pwm.Use(len(b.plan), cap(b.plan)); c > 0 {
		b.plan = deferral.Shrink(b.plan[:0], c)
	}
	b.plan = b.plan[:0]
	b.cursor = 0
}

// sweep applies r's pending commands in FIFO order, closures interleaved where staged.
func (b *Buffer[T, C]) sweep(r *Recorder[T, C]) error {
	t, apply := b.target, b.apply
	for {
		// Closures staged before typed record r.next come first.
		for r.fnext < r.fend && r.funcs[r.fnext].at <= r.next {
			if err := b.runFunc(t, deferral.Pos{Recorder: r.index, Index: r.next + r.fnext}, r.funcs[r.fnext].fn); err != nil {
				return err
			}
			r.funcs[r.fnext].fn = nil
			r.fnext++
		}
		// Then the typed records up to the next closure: one call of the run applier, or the
		// apply function command by command.
		stop := r.end
		if r.fnext < r.fend {
			stop = min(stop, r.funcs[r.fnext].at)
		}
		if r.next == stop {
			return nil
		}
		// r.next advances command by command, so that a command that panics (a validator,
		// the apply function) stays pending with the rest, and a retry does not apply the
		// commands before it twice.
		at := deferral.Pos{Recorder: r.index, Index: r.next + r.fnext}
		if len(r.cmds) == 0 && b.stream != nil { // the run is in the record stream
			start := r.next
			err := b.stream(t, at, &r.st, stop, &r.next, &r.off)
			if err != nil {
				at.Index += r.next - start
				return deferral.Wrap(at, deferral.VerbTyped, err)
			}
			continue
		}
		cmds := r.cmds[:stop]
		if b.applyRun != nil {
			start := r.next
			err := b.applyRun(t, at, cmds[start:], &r.next)
			if r.next < start || r.next > stop || (err == nil && r.next != stop) {
				r.next = min(max(r.next, start), stop) // the cursor stays within the run
				panic(fmt.Sprintf("cmdbuffer: the run applier counted %d of a run of %d commands applied and returned %v: "+
					"it must count each command it applies in *applied, and return an error when it stops early", r.next-start, stop-start, err))
			}
			if err != nil {
				at.Index += r.next - start
				return deferral.Wrap(at, deferral.VerbTyped, err)
			}
			continue
		}
		for ; r.next < len(cmds); r.next, at.Index = r.next+1, at.Index+1 {
			if err := apply(t, at, &cmds[r.next]); err != nil {
				return deferral.Wrap(at, deferral.VerbTyped, err)
			}
		}
	}
}

// commitKeyed applies pending commands in (key, recorder, FIFO) order through a sorted index.
// Commands staged after a failed keyed commit join the remaining plan in their place.
func (b *Buffer[T, C]) commitKeyed(recs []*Recorder[T, C]) error {
	plan := append(b.plan[:0], b.plan[b.cursor:]...)
	for _, r := range recs {
		for ; r.fnext < r.fend; r.fnext++ {
			f := r.funcs[r.fnext]
			plan = append(plan, ref{key: f.key, rec: int32(r.index), idx: int32(r.fnext), seq: int64(f.at + r.fnext), fn: true})
		}
		for ; r.next < r.end; r.next++ {
			plan = append(plan, ref{key: r.keyAt(r.next), rec: int32(r.index), idx: int32(r.next), seq: int64(r.next + r.funcsBefore(r.next))})
		}
	}
	slices.SortFunc(plan, ref.compare)
	if b.hooks.active() {
		plan = b.runHooks(recs, plan)
	}
	b.plan, b.cursor = plan, 0
	t := b.target
	for b.cursor < len(b.plan) {
		p := b.plan[b.cursor]
		r := recs[p.rec]
		at := deferral.Pos{Recorder: r.index, Index: int(p.seq)}
		var err error
		if p.fn {
			if err = b.runFunc(t, at, r.funcs[p.idx].fn); err == nil {
				r.funcs[p.idx].fn = nil
			}
		} else {
			err = deferral.Wrap(at, deferral.VerbTyped, b.apply(t, at, &r.cmds[p.idx]))
		}
		if err != nil {
			return err
		}
		b.cursor++
	}
	return nil
}
