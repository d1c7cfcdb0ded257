package cmdbuffer

import (
	"cmp"
	"slices"

	"github.com/deferbench/deferbench/deferral"
)

// Recorder stages commands into its private buffer. Use it from one goroutine at a time; mint
// one per producer with Buffer.NewRecorder. Staging takes no lock and, for typed commands, does
// not allocate once the buffer has grown to its working size.
type Recorder[T, C any] struct {
	index int
	cmds  []C
	// st holds the typed commands instead of cmds while the buffer keeps streams
	// (SetStream) and the recorder is not keyed: at any time one of the two is empty. off is
	// the word offset of typed command next in st, endOff that of end.
	st          deferral.Stream
	off, endOff int
	decode      func(s *deferral.Stream, dst []C) []C
	slow        bool     // Stage must go through StageKeyed: a sort key, keyed, or a stream
	keys        []uint64 // per typed command, once keyed
	keyed       bool     // a non-zero sort key was staged since the last drained commit
	funcs       []closure[T]
	key         uint64 // sort key for Stage and StageFunc
	next        int    // typed commands consumed (applied, or moved into a keyed plan)
	fnext       int    // closures consumed
	end         int    // typed commands the running commit covers (staged before it began)
	fend        int    // closures the running commit covers
	// wm and fwm shrink cmds (with keys) and funcs after a spike (deferral.Watermark).
	wm, fwm deferral.Watermark
	// pad keeps recorders that are allocated together from sharing a cache line.
	_ [64]byte
}

var _ deferral.Stager[struct{}, int] = (*Recorder[struct{}, int])(nil)

// Index returns the recorder's number, 0 for the first minted.
func (r *Recorder[T, C]) Index() int { return r.index }

// SetSortKey sets the sort key of the commands Stage and StageFunc stage from now on.
func (r *Recorder[T, C]) SetSortKey(k uint64) {
	r.key = k
	r.setSlow()
}

func (r *Recorder[T, C]) setSlow() { r.slow = r.key != 0 || r.keyed || r.decode != nil }

// Stage appends typed command c with the recorder's sort key.
func (r *Recorder[T, C]) Stage(c C) {
	if r.slow {
		r.StageKeyed(r.key, c)
		return
	}
	r.cmds = append(r.cmds, c)
}

// typed returns the number of typed commands staged since the last drained commit.
func (r *Recorder[T, C]) typed() int { return len(r.cmds) + r.st.Len() }

// Stream returns the recorder's record stream when its buffer keeps streams (SetStream),
// else nil: the fast path of deferral.StreamSink.
func (r *Recorder[T, C]) Stream() *deferral.Stream {
	if r.decode == nil {
		return nil
	}
	return &r.st
}

// StageAll appends the typed commands in cs, in order, with the recorder's sort key: what
// Stage of each would do, in one append when the recorder keeps no sort keys (a producer that
// builds a batch locally pays a local append per command, not a call that loads and stores the
// recorder's slice header per command). cs is copied; it may be reused at once.
func (r *Recorder[T, C]) StageAll(cs []C) {
	if r.slow {
		for _, c := range cs {
			r.StageKeyed(r.key, c)
		}
		return
	}
	r.cmds = append(r.cmds, cs...)
}

// StageKeyed appends typed command c with sort key k.
func (r *Recorder[T, C]) StageKeyed(k uint64, c C) {
	if k != 0 || r.keyed || r.decode != nil {
		r.stageKey(k)
	}
	r.cmds = append(r.cmds, c)
}

// Records returns the recorder's typed slice and keyed flag: the fast path of
// deferral.SliceSink, which the ECS flavour's deferral.Recorder appends unkeyed records
// through. While keyed is false, appending c to *cmds is exactly StageKeyed(0, c).
func (r *Recorder[T, C]) Records() (cmds *[]C, keyed *bool) { return &r.cmds, &r.keyed }

func (r *Recorder[T, C]) stageKey(k uint64) {
	r.markKeyed()
	r.keys = append(r.keys, k)
}

// markKeyed switches the recorder to keyed staging, back-filling key 0 for what it staged. A
// recorder's record stream becomes its slice of C (same indices), and stays held — records
// go through StageKeyed — until its commands drain.
func (r *Recorder[T, C]) markKeyed() {
	if !r.keyed {
		r.keyed, r.slow = true, true
		if r.decode != nil {
			r.cmds = r.decode(&r.st, r.cmds)
			r.st.Drop(r.st.Len(), len(r.st.Words()))
			r.st.Hold(true)
			r.off, r.endOff = 0, 0
		}
		r.keys = append(r.keys[:0], make([]uint64, len(r.cmds))...)
	}
}

// StageFunc appends a closure with the recorder's sort key. It allocates the closure. A nil
// fn never panics: it is staged as deferral.NilClosure, and the commit fails at it with a
// *deferral.CommandError (verb VerbFunc) wrapping deferral.ErrInvalidCommand, keeping it and
// the commands after it pending, as any failing command.
func (r *Recorder[T, C]) StageFunc(fn func(t *T) error) { r.StageFuncKeyed(r.key, fn) }

// StageFuncKeyed appends a closure with sort key k; a nil fn is staged as StageFunc says.
func (r *Recorder[T, C]) StageFuncKeyed(k uint64, fn func(t *T) error) {
	if fn == nil {
		fn = deferral.NilClosure[T]
	}
	if k != 0 {
		r.markKeyed()
	}
	r.funcs = append(r.funcs, closure[T]{at: r.typed(), key: k, fn: fn})
}

// Len returns the number of commands staged since the last drained commit.
func (r *Recorder[T, C]) Len() int { return r.typed() + len(r.funcs) }

func (r *Recorder[T, C]) keyAt(i int) uint64 {
	if !r.keyed {
		return 0
	}
	return r.keys[i]
}

// funcsBefore returns how many closures were staged before typed command i.
func (r *Recorder[T, C]) funcsBefore(i int) int {
	n, _ := slices.BinarySearchFunc(r.funcs, i+1, func(f closure[T], at int) int { return cmp.Compare(f.at, at) })
	return n
}

// drop forgets the first n typed commands (in the stream: the first words words) and nf
// closures (applied or discarded), keeping capacity; whatever was staged after them (by
// closures during a commit) moves to the front.
func (r *Recorder[T, C]) drop(n, words, nf int) {
	used, fused := len(r.cmds), len(r.funcs)
	r.off, r.endOff = 0, 0
	if r.st.Len() > 0 { // the typed commands are in the stream; cmds is empty
		r.st.Drop(n, words)
	} else {
		r.cmds = r.cmds[:copy(r.cmds, r.cmds[n:])]
		if r.decode != nil {
			r.st.Drop(0, 0) // a cycle of the stream's Watermark all the same
		}
	}
	if r.keyed {
		r.keys = r.keys[:copy(r.keys, r.keys[n:])]
	}
	kept := copy(r.funcs, r.funcs[nf:])
	clear(r.funcs[kept:])
	r.funcs = r.funcs[:kept]
	for i := range r.funcs {
		r.funcs[i].at -= n
	}
	if len(r.cmds) == 0 && len(r.funcs) == 0 {
		r.keys = r.keys[:0]
		r.keyed = false
		r.st.Hold(false)
		r.setSlow()
	}
	r.next, r.fnext, r.end, r.fend = 0, 0, 0, 0
	if c := r.wm.Use(used, cap(r.cmds)); c > 0 {
		r.cmds = deferral.Shrink(r.cmds, c)
		r.keys = deferral.Shrink(r.keys, c)
	}
	if c := r.fwm.Use(fused, cap(r.funcs)); c > 0 {
		r.funcs = deferral.Shrink(r.funcs, c)
	}
}
