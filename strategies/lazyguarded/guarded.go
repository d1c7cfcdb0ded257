package lazyguarded

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/deferbench/deferbench/deferral"
)

// Access is what a job declares it does to the target: Read or Write.
type Access uint8

// The two kinds of access a job declares.
const (
	Read  Access = iota + 1 // shares the target with other readers
	Write                   // holds the target alone; parked until a flush
)

// ReaderMode says what a read submitted behind parked writes does. It is fixed at
// construction: NewReadersWait or NewReadersPass.
type ReaderMode uint8

// The two reader modes of design 1.
const (
	// ReadersWait keeps the pipe a pipe: a read queued behind a parked write waits for the
	// flush and observes exactly the writes submitted before it (pure lazy; no reader
	// parallelism while writes are parked).
	ReadersWait ReaderMode = iota
	// ReadersPass lets reads pass parked writes: they run at once against the pre-flush
	// state. This is an explicit staleness opt-in — a read observes none of the writes
	// parked before it.
	ReadersPass
)

// String returns "readers-wait" or "readers-pass".
func (m ReaderMode) String() string {
	if m == ReadersPass {
		return "readers-pass"
	}
	return "readers-wait"
}

// Sentinel errors of the pipe; match with errors.Is.
var (
	// ErrDiscarded completes the task of a parked write that Discard dropped.
	ErrDiscarded = errors.New("write job discarded before a flush applied it")
	// ErrFlushing: Flush or Discard was called while a flush is running (for example from
	// inside a job).
	ErrFlushing = errors.New("a flush is already running on this target")
)

// Task is the handle of one job on the pipe: its control block. Wait blocks until the job ran
// (or was discarded); Done is closed then. The task of a parked write completes only when a
// flush applies it or Discard drops it — waiting on it from the goroutine that would flush
// deadlocks, the known caveat of lazy tasks.
type Task struct {
	done chan struct{}
	err  error
}

// Done returns a channel that is closed when the job has run or was discarded.
func (t *Task) Done() <-chan struct{} { return t.done }

// Wait blocks until the job has run and returns its error: what the job returned, or
// ErrDiscarded.
func (t *Task) Wait() error {
	<-t.done
	return t.err
}

func (t *Task) finish(err error) {
	t.err = err
	close(t.done)
}

// job is one pipe entry: the closure, its declared access, its completion signal, and the
// link to the job behind it (the pipe is an intrusive FIFO list; the job is its own node).
type job[T any] struct {
	Task
	access Access
	fn     func(t *T) error
	next   *job[T]
}

// Guarded is a target of type T behind a per-object FIFO pipe of jobs (design 1,
// lazy Guarded). Each job declares Read or Write access. Admission: readers run concurrently
// with readers, a writer runs alone, and the pipe is FIFO — the first job that cannot be
// admitted holds back every job behind it.
//
// Guarded is lazy: a write job is admitted to the pipe but does not run; it stays parked until
// Flush drains the pipe, in pipe order, under one write hold. What a read does meanwhile is
// the ReaderMode fixed at construction (NewReadersWait, NewReadersPass).
//
// Every job is a full task: a heap-allocated control block with its own completion channel,
// holding the closure, enqueued under the pipe's mutex. Cross-goroutine job order is the
// order in which submitters acquired that mutex, so it is not reproducible from run to run.
//
// Read and Write may be called from any goroutine; Flush, Discard and Pending too, but
// Flush and Discard must not be called from inside a job (Flush returns ErrFlushing when a
// flush is running; from inside a read job it would wait for that job forever).
type Guarded[T any] struct {
	target *T
	mode   ReaderMode

	mu         sync.Mutex
	idle       sync.Cond // broadcast when the last running reader leaves
	head, tail *job[T]   // the pipe: jobs not yet admitted (parked writes, waiting reads)
	queued     int       // jobs in the pipe
	parked     int       // write jobs in the pipe
	readers    int       // read jobs admitted and running
	flushing   bool      // a flush holds, or is acquiring, the write hold

	gen  atomic.Uint64 // flushes that drained plus discards: recorders count positions from it
	nrec atomic.Int64  // recorders minted by NewRecorder
}

// NewReadersWait returns a lazy Guarded over target in which reads wait behind parked writes:
// pure lazy, exact FIFO values, no reader parallelism while a write is parked.
func NewReadersWait[T any](target *T) *Guarded[T] { return newGuarded(target, ReadersWait) }

// NewReadersPass returns a lazy Guarded over target in which reads pass parked writes and
// observe the pre-flush state: the explicit staleness opt-in.
func NewReadersPass[T any](target *T) *Guarded[T] { return newGuarded(target, ReadersPass) }

func newGuarded[T any](target *T, mode ReaderMode) *Guarded[T] {
	g := &Guarded[T]{target: target, mode: mode}
	g.idle.L = &g.mu
	return g
}

// Mode returns the reader mode chosen at construction.
func (g *Guarded[T]) Mode() ReaderMode { return g.mode }

// Submit submits a job declaring access a: Read or Write. It panics on any other access.
func (g *Guarded[T]) Submit(a Access, fn func(t *T) error) *Task {
	switch a {
	case Read:
		return g.Read(fn)
	case Write:
		return g.Write(fn)
	}
	panic(fmt.Sprintf("lazyguarded: submit with access %d: want Read or Write", a))
}

// Write submits a write job: fn parks in the pipe and runs when a flush reaches it, alone
// on the target. The returned task completes with fn's error, or with ErrDiscarded. A write
// submitted while a flush runs parks for the next flush. A nil fn never panics: it parks as
// deferral.NilClosure, a job that fails the flush with an error wrapping
// deferral.ErrInvalidCommand.
func (g *Guarded[T]) Write(fn func(t *T) error) *Task {
	if fn == nil {
		fn = deferral.NilClosure[T]
	}
	j := &job[T]{Task: Task{done: make(chan struct{})}, access: Write, fn: fn}
	g.mu.Lock()
	g.push(j)
	g.parked++
	g.mu.Unlock()
	return &j.Task
}

// Read submits a read job. When it is admissible at once (ReadersWait: the pipe is empty;
// ReadersPass: always, unless a flush holds or is acquiring the write hold) it starts on its
// own goroutine, concurrently with other readers, and Read returns without waiting. Otherwise
// it queues in the pipe: behind parked writes (ReadersWait) it runs inside the next flush, on
// the flushing goroutine, exactly between the writes submitted before and after it; behind a
// flush it starts on its own goroutine when the flush ends. fn must not write the target. A
// nil fn never panics (not even on the goroutine the read would run on): its task completes
// with an error wrapping deferral.ErrInvalidCommand.
func (g *Guarded[T]) Read(fn func(t *T) error) *Task {
	if fn == nil {
		fn = deferral.NilClosure[T]
	}
	j := &job[T]{Task: Task{done: make(chan struct{})}, access: Read, fn: fn}
	g.mu.Lock()
	if !g.flushing && (g.mode == ReadersPass || g.head == nil) {
		g.readers++
		g.mu.Unlock()
		go g.run(j)
		return &j.Task
	}
	g.push(j)
	g.mu.Unlock()
	return &j.Task
}

// push appends j to the pipe. g.mu is held.
func (g *Guarded[T]) push(j *job[T]) {
	if g.tail == nil {
		g.head = j
	} else {
		g.tail.next = j
	}
	g.tail = j
	g.queued++
}

// run runs an admitted read job and releases its read hold.
func (g *Guarded[T]) run(j *job[T]) {
	err := j.fn(g.target)
	g.mu.Lock()
	g.readers--
	if g.readers == 0 {
		g.idle.Broadcast()
	}
	g.mu.Unlock()
	j.finish(err)
}

// dispatch admits the reads the pipe now allows. g.mu is held and no flush is running.
// ReadersWait: the reads at the front, up to the first parked write. ReadersPass: every
// queued read, passing parked writes.
func (g *Guarded[T]) dispatch() {
	if g.mode == ReadersWait {
		for g.head != nil && g.head.access == Read {
			j := g.head
			g.head = j.next
			j.next = nil
			g.queued--
			g.readers++
			go g.run(j)
		}
		if g.head == nil {
			g.tail = nil
		}
		return
	}
	g.extract(Read, func(j *job[T]) {
		g.queued--
		g.readers++
		go g.run(j)
	})
}

// extract unlinks every queued job of the given access from the pipe, in pipe order, and
// hands each to take (its next link cleared). The other jobs keep their order. g.mu is held.
func (g *Guarded[T]) extract(access Access, take func(j *job[T])) {
	var prev *job[T]
	for j := g.head; j != nil; {
		next := j.next
		if j.access != access {
			prev = j
			j = next
			continue
		}
		if prev == nil {
			g.head = next
		} else {
			prev.next = next
		}
		if g.tail == j {
			g.tail = prev
		}
		j.next = nil
		take(j)
		j = next
	}
}

// Pending returns the number of parked write jobs.
func (g *Guarded[T]) Pending() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.parked
}

// Flush drains the pipe: it takes the write hold (waiting for running readers to leave and
// admitting no new ones), then runs, in pipe order, every write job parked when Flush was
// called, together with the reads queued between them (ReadersWait; they run on the calling
// goroutine, in their FIFO place). Writes submitted during the flush (from a job, or another
// goroutine) park for the next one.
//
// When a write job fails, Flush stops: that job and every job behind it stay in the pipe (its
// task does not complete), the jobs before it stay done, and Flush returns the job's error
// unchanged. The next Flush resumes at the failing job; nothing is replayed.
//
// Errors: the failing job's error; ErrFlushing when a flush is already running.
func (g *Guarded[T]) Flush() error {
	g.mu.Lock()
	if g.flushing {
		g.mu.Unlock()
		return ErrFlushing
	}
	g.flushing = true
	writes := g.parked // the writes in the pipe now; later ones wait for the next flush
	for g.readers > 0 {
		g.idle.Wait()
	}
	j := g.head
	g.mu.Unlock()

	// The write hold is ours. Nodes up to the last of the writes counted are not touched by
	// submitters (they only link behind the tail), so the walk needs no lock. If a job panics,
	// the deferred release leaves it and the jobs behind it in the pipe, as a failure does.
	var err error
	ran, applied, failed := 0, 0, true
	defer func() { g.release(j, ran, applied, failed) }()
	for applied < writes {
		if j.access == Write {
			if err = j.fn(g.target); err != nil {
				return err
			}
			applied++
			j.finish(nil)
		} else {
			j.finish(j.fn(g.target))
		}
		ran++
		if applied < writes {
			j = j.next
		}
	}
	failed = false
	return nil
}

// release ends a flush: it unlinks the ran jobs that precede last (and last too unless the
// flush failed at it), gives up the write hold and admits the reads the pipe now allows.
func (g *Guarded[T]) release(last *job[T], ran, applied int, failed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case failed:
		if last != nil {
			g.head = last
		}
	case ran > 0:
		g.head = last.next
		last.next = nil
		if g.head == nil {
			g.tail = nil
		}
	}
	g.queued -= ran
	g.parked -= applied
	g.flushing = false
	if !failed {
		g.gen.Add(1)
	}
	g.dispatch()
}

// Discard drops every parked write job and returns how many it dropped; their tasks complete
// with ErrDiscarded. Reads that waited behind them are admitted. Errors: ErrFlushing when a
// flush is running (nothing is dropped).
func (g *Guarded[T]) Discard() (int, error) {
	g.mu.Lock()
	if g.flushing {
		g.mu.Unlock()
		return 0, ErrFlushing
	}
	var dropped, dtail *job[T]
	n := 0
	g.extract(Write, func(j *job[T]) {
		if dtail == nil {
			dropped = j
		} else {
			dtail.next = j
		}
		dtail = j
		n++
	})
	g.queued -= n
	g.parked -= n
	g.gen.Add(1)
	g.dispatch()
	g.mu.Unlock()
	for j := dropped; j != nil; j = j.next {
		j.finish(ErrDiscarded)
	}
	return n, nil
}
