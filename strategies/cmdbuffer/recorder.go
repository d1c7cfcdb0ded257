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
	// marks are the sort keys of the typed commands, as marks where the key changes: typed
	// command i has the key of the last mark at or before i, 0 before the first. Staging
	// writes none; SetSortKey, and StageKeyed of another key than the recorder's, do.
	marks []keyMark
	keyed bool // a pending command has a non-zero sort key, or the recorder's key is not 0
	funcs []closure[T]
	key   uint64 // sort key for Stage and StageFunc
	next  int    // typed commands consumed (applied, or moved into a keyed plan)
	fnext int    // closures consumed
	end   int    // typed commands the running commit covers (staged before it began)
	fend  int    // closures the running commit covers
	// wm, fwm and mwm shrink cmds, funcs and marks after a spike (deferral.Watermark).
	wm, fwm, mwm deferral.Watermark
	// pad keeps recorders that are allocated together from sharing a cache line.
	_ [64]byte
}

var _ deferral.Stager[struct{}, int] = (*Recorder[struct{}, int])(nil)

// Index returns the recorder's number, 0 for the first minted.
func (r *Recorder[T, C]) Index() int { return r.index }

// keyMark says that typed commands from index at on have sort key key.
type keyMark struct {
	at  int
	key uint64
}

// SetSortKey sets the sort key of the commands Stage and StageFunc stage from now on. It
// marks the change once; staging then pays nothing per command for the key.
func (r *Recorder[T, C]) SetSortKey(k uint64) {
	r.key = k
	r.markKey(r.typed(), k)
}

// markKey makes k the sort key of typed commands from index i on (i is the next typed
// index), recording a mark only where the key changes.
func (r *Recorder[T, C]) markKey(i int, k uint64) {
	n := len(r.marks)
	last := uint64(0)
	if n > 0 {
		last = r.marks[n-1].key
	}
	switch {
	case last == k:
	case n > 0 && r.marks[n-1].at == i: // no command took the last mark's key
		if prev := uint64(0); n == 1 || r.marks[n-2].key == k {
			if n > 1 {
				prev = r.marks[n-2].key
			}
			if prev == k { // back to the key before it: the mark goes
				r.marks = r.marks[:n-1]
				break
			}
		}
		r.marks[n-1].key = k
	default:
		r.marks = append(r.marks, keyMark{at: i, key: k})
	}
	r.keyed = r.keyed || k != 0
}

// Stage appends typed command c with the recorder's sort key: a plain append (the key was
// marked by SetSortKey). A recorder whose record stream a deferral.Recorder writes takes its
// commands through that recorder only (StageKeyed).
func (r *Recorder[T, C]) Stage(c C) { r.cmds = append(r.cmds, c) }

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
	if r.decode != nil && !r.st.Held() {
		r.unstream()
	}
	r.cmds = append(r.cmds, cs...)
}

// StageKeyed appends typed command c with sort key k.
func (r *Recorder[T, C]) StageKeyed(k uint64, c C) {
	if r.decode != nil && !r.st.Held() {
		r.unstream() // c goes after the stream's records, and so do those staged after it
	}
	if k == r.key {
		r.cmds = append(r.cmds, c)
		return
	}
	i := len(r.cmds)
	r.markKey(i, k)
	r.cmds = append(r.cmds, c)
	r.markKey(i+1, r.key)
}

// Records returns the recorder's typed slice and keyed flag: the fast path of
// deferral.SliceSink, which a deferral.Recorder over a buffer without streams appends unkeyed
// records through. While keyed is false, appending c to *cmds is exactly StageKeyed(0, c).
func (r *Recorder[T, C]) Records() (cmds *[]C, keyed *bool) { return &r.cmds, &r.keyed }

// unstream turns the recorder's record stream into its slice of C (same indices): for a
// keyed commit, hooks, or a command the stream cannot take. The stream stays held — records
// go through StageKeyed — until the recorder's commands drain.
func (r *Recorder[T, C]) unstream() {
	if r.st.Len() > 0 {
		r.cmds = r.decode(&r.st, r.cmds)
		r.st.Drop(r.st.Len(), len(r.st.Words()))
	}
	r.st.Hold(true)
	r.off, r.endOff = 0, 0
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
	r.keyed = r.keyed || k != 0
	r.funcs = append(r.funcs, closure[T]{at: r.typed(), key: k, fn: fn})
}

// Len returns the number of commands staged since the last drained commit.
func (r *Recorder[T, C]) Len() int { return r.typed() + len(r.funcs) }

func (r *Recorder[T, C]) keyAt(i int) uint64 {
	n, _ := slices.BinarySearchFunc(r.marks, i+1, func(m keyMark, at int) int { return cmp.Compare(m.at, at) })
	if n == 0 {
		return 0
	}
	return r.marks[n-1].key
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
	r.dropMarks(n)
	kept := copy(r.funcs, r.funcs[nf:])
	clear(r.funcs[kept:])
	r.funcs = r.funcs[:kept]
	for i := range r.funcs {
		r.funcs[i].at -= n
	}
	if len(r.cmds) == 0 && len(r.funcs) == 0 {
		r.st.Hold(false)
	}
	r.keyed = r.key != 0 // what stays pending keeps its keys: marks and closures
	for _, m := range r.marks {
		r.keyed = r.keyed || m.key != 0
	}
	for _, f := range r.funcs {
		r.keyed = r.keyed || f.key != 0
	}
	r.next, r.fnext, r.end, r.fend = 0, 0, 0, 0
	if c := r.wm.Use(used, cap(r.cmds)); c > 0 {
		r.cmds = deferral.Shrink(r.cmds, c)
	}
	if c := r.mwm.Use(len(r.marks), cap(r.marks)); c > 0 {
		r.marks = deferral.Shrink(r.marks, c)
	}
	if c := r.fwm.Use(fused, cap(r.funcs)); c > 0 {
		r.funcs = deferral.Shrink(r.funcs, c)
	}
}

// dropMarks renumbers the marks after the first n typed commands were dropped: the key in
// force at n becomes the key from 0.
func (r *Recorder[T, C]) dropMarks(n int) {
	if len(r.marks) == 0 || n == 0 {
		return
	}
	// f is the first mark after n; the one before it (if any) holds the key at n.
	f, _ := slices.BinarySearchFunc(r.marks, n+1, func(m keyMark, at int) int { return cmp.Compare(m.at, at) })
	kept := 0
	if f > 0 && r.marks[f-1].key != 0 {
		r.marks[0] = keyMark{at: 0, key: r.marks[f-1].key}
		kept = 1
	}
	for _, m := range r.marks[f:] {
		r.marks[kept] = keyMark{at: m.at - n, key: m.key}
		kept++
	}
	r.marks = r.marks[:kept]
}
