// Package reference is the conformance suite's own strategy: the simplest honest
// implementation of the deferral contract, built on deferral.Core, that the suite is tested
// against before (and beside) the real strategies. It is not API and is not benchmarked.
//
// A Strategy keeps one slice of pending commands per commit. In Ordered mode every recorder
// stages into its own private slice and Commit gathers them, stably sorted by (sort key,
// recorder), into the commit's slice: a reproducible order, as cmdbuffer declares. In Shared
// mode every recorder appends to one mutex-guarded slice, so the cross-recorder order is the
// order the producers took the mutex: FIFO within a recorder only, as lazyguarded declares.
//
// A Bug makes the strategy break one contract point on purpose, so that the suite's tests can
// show the suite catches it.
package reference

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// Mode selects the cross-recorder order.
type Mode int

const (
	// Ordered commits in (sort key, recorder, FIFO) order and declares ReproducibleOrder and
	// SortKeys.
	Ordered Mode = iota
	// Shared commits in the order commands reached one mutex-guarded slice and declares
	// neither.
	Shared
)

// Bug is a deliberate contract violation, for testing the suite.
type Bug int

const (
	NoBug              Bug = iota
	ReplayPrefix           // a retry after a failed commit re-applies the whole commit from its first command
	StrictRemove           // Remove of a component the entity lacks fails the commit
	DropSuffix             // a failed commit drops the failing command and everything after it
	WalkCapacity           // a commit re-walks every command the commit slice ever held
	ReverseRecorders       // Ordered mode applies recorders last to first, while declaring (key, recorder, FIFO)
	LIFO                   // each recorder's commands are applied last-staged first
	ClaimReproducible      // Shared mode that declares ReproducibleOrder and SortKeys anyway
	CloseLosesPending      // Close succeeds with commands pending
	ReportWhilePending     // TakeReport does not refuse while commands are pending
	IgnoreSortKeys         // Ordered mode that declares SortKeys but orders by recorder only
	TouchReusedSlot        // Destroy of a stale handle destroys whatever now lives in its slot
	RotateRecorders        // Ordered mode whose recorder order is rotated by a per-instance number
	HangCommit             // Commit blocks forever
	SetMissingWrongPos     // the error of a failing Set names the wrong command index
	PanicCommit            // Commit panics
	SuffixNotPending       // Pending leaves out the suffix a failed commit kept
	InvalidRecordNoop      // a zero command record is consumed as a no-op instead of failing
	DroppedNotPending      // Pending leaves out the commands staged after Close (dropped, not stored)
	ClaimBatching          // declares BatchesPerEntity while applying one command at a time
	SpinCommit             // Commit spins forever on the CPU (never yields, never returns)
	ClaimBulk              // declares BulkRuns while applying one command at a time
)

// instances numbers strategies for RotateRecorders.
var instances atomic.Int64

// entry is one pending command.
type entry struct {
	key uint64
	pos deferral.Pos
	cmd deferral.Command
	fn  func(*ecs.World) error // non-nil for the closure tier
	// nested: staged by a closure while a commit ran. Its index is provisional until that
	// commit ends: counted from 0 when the commit drains, after the recorder's other commands
	// of the epoch when it fails (the retry applies it).
	nested bool
}

// Strategy is the reference strategy. See the package documentation.
type Strategy struct {
	core *deferral.Core
	mode Mode
	bug  Bug
	inst int64 // instance number, for RotateRecorders

	mint   sync.Mutex // numbers the sink and the core's recorder as one step
	mu     sync.Mutex // Shared mode: guards shared
	shared []entry
	sinks  []*sink

	// batch is the commit's commands in apply order; batch[next:] is pending. Emptied slices
	// (batch, shared, a sink's own) are dropped, not kept for reuse: the model holds no
	// storage after a spike (the SpikeReleased rows).
	batch []entry
	next  int
	start int // ReplayPrefix: where the failed commit began
}

var _ deferral.Strategy = (*Strategy)(nil)

// New returns a reference strategy bound to w.
func New(w *ecs.World, mode Mode, bug Bug) *Strategy {
	return &Strategy{core: deferral.NewCore(w), mode: mode, bug: bug, inst: instances.Add(1)}
}

// Factory returns a deferral.Factory for mode and bug.
func Factory(mode Mode, bug Bug) deferral.Factory {
	return func(w *ecs.World) deferral.Strategy { return New(w, mode, bug) }
}

// sink is one recorder's storage.
type sink struct {
	s     *Strategy
	index int
	n     int // commands staged since the last drained commit or discard
	nn    int // commands staged by closures during the running commit
	own   []entry
}

func (k *sink) StageKeyed(key uint64, c deferral.Command) {
	k.stage(entry{key: key, cmd: c})
}

func (k *sink) StageFuncKeyed(key uint64, fn func(*ecs.World) error) {
	k.stage(entry{key: key, cmd: deferral.Command{Verb: deferral.VerbFunc}, fn: fn})
}

func (k *sink) stage(e entry) {
	if k.s.core.Active() {
		e.pos, e.nested = deferral.Pos{Recorder: k.index, Index: k.nn}, true
		k.nn++
	} else {
		e.pos = deferral.Pos{Recorder: k.index, Index: k.n}
		k.n++
	}
	switch {
	case k.s.mode == Shared:
		k.s.mu.Lock()
		k.s.shared = append(k.s.shared, e)
		k.s.mu.Unlock()
	default:
		k.own = append(k.own, e)
	}
}

// Name returns "reference".
func (s *Strategy) Name() string { return "reference" }

// Capabilities declares what the mode guarantees (or, with ClaimReproducible, more).
func (s *Strategy) Capabilities() deferral.Capabilities {
	if s.mode == Shared && s.bug != ClaimReproducible {
		return deferral.Capabilities{Order: "order the producers took the staging mutex; FIFO within a recorder"}
	}
	return deferral.Capabilities{ReproducibleOrder: true, SortKeys: true, Order: "sort key, then recorder, then FIFO",
		BatchesPerEntity: s.bug == ClaimBatching, BulkRuns: s.bug == ClaimBulk}
}

// World returns the target.
func (s *Strategy) World() *ecs.World { return s.core.World() }

// NewRecorder mints a recorder with its own sink.
func (s *Strategy) NewRecorder() *deferral.Recorder {
	s.mint.Lock()
	defer s.mint.Unlock()
	s.mu.Lock()
	k := &sink{s: s, index: len(s.sinks)}
	s.sinks = append(s.sinks, k)
	s.mu.Unlock()
	r := s.core.NewRecorder(k)
	if r.Index() != k.index {
		panic("reference: recorder numbering diverged from the core's")
	}
	return r
}

// staged counts what the recorders hold that is not in batch yet.
func (s *Strategy) staged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.shared)
	for _, k := range s.sinks {
		n += len(k.own)
	}
	return n
}

// Pending returns the number of commands not applied yet, those staged after Close included.
func (s *Strategy) Pending() int {
	switch s.bug {
	case SuffixNotPending:
		return s.staged() + s.core.Dropped()
	case DroppedNotPending:
		return len(s.batch) - s.next + s.staged()
	}
	return len(s.batch) - s.next + s.staged() + s.core.Dropped()
}

// gather moves what the recorders staged to the end of batch, in the mode's order.
func (s *Strategy) gather() {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := len(s.batch)
	s.batch = append(s.batch, s.shared...)
	clear(s.shared)
	s.shared = nil
	for i := range s.sinks {
		k := s.sinks[i]
		if s.bug == RotateRecorders {
			k = s.sinks[(i+int(s.inst))%len(s.sinks)]
		}
		if s.bug == LIFO {
			slices.Reverse(k.own)
		}
		s.batch = append(s.batch, k.own...)
		clear(k.own)
		k.own = nil
	}
	add := s.batch[from:]
	// The pending suffix of a failed commit and what was staged since merge in the mode's
	// order: a command staged after a failure with a lower sort key applies before the suffix.
	pend := s.batch[s.next:]
	if s.bug == LIFO && s.mode == Shared {
		// Reverse each recorder's commands in place, keeping the slots the mutex gave them.
		slots := map[int][]int{}
		for i, e := range add {
			slots[e.pos.Recorder] = append(slots[e.pos.Recorder], i)
		}
		for _, idx := range slots {
			for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
				add[idx[i]], add[idx[j]] = add[idx[j]], add[idx[i]]
			}
		}
	}
	switch {
	case s.mode == Shared:
	case s.bug == ReverseRecorders:
		slices.SortStableFunc(pend, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(b.pos.Recorder, a.pos.Recorder))
		})
	case s.bug == IgnoreSortKeys, s.bug == RotateRecorders:
		// keep the gathered recorder order
	default:
		slices.SortStableFunc(pend, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.pos.Recorder, b.pos.Recorder))
		})
	}
}

// settle fixes the indices of the commands closures staged during the commit that ends now.
func (s *Strategy) settle(drained bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fix := func(es []entry) {
		for i := range es {
			if e := &es[i]; e.nested {
				if !drained {
					e.pos.Index += s.sinks[e.pos.Recorder].n
				}
				e.nested = false
			}
		}
	}
	fix(s.shared)
	for _, k := range s.sinks {
		fix(k.own)
	}
	for _, k := range s.sinks {
		if drained {
			k.n = k.nn
		} else {
			k.n += k.nn
		}
		k.nn = 0
	}
}

// Commit applies every pending command in order, per the failure policy.
func (s *Strategy) Commit() error {
	if err := s.core.Begin(); err != nil {
		return err
	}
	switch s.bug {
	case HangCommit:
		select {}
	case SpinCommit:
		for spin := 0; ; spin++ {
		}
	case PanicCommit:
		panic("reference: commit panics on purpose")
	}
	if s.next == len(s.batch) {
		s.batch, s.next, s.start = nil, 0, 0
	}
	s.gather()
	if s.bug == ReplayPrefix {
		s.next = s.start
	}
	ended := false
	defer func() {
		if !ended { // a closure panicked: the commit failed at it
			s.settle(false)
			s.core.End(false)
		}
	}()
	if s.bug == WalkCapacity {
		s.batch = s.batch[:cap(s.batch)]
	}
	for s.next < len(s.batch) {
		e := &s.batch[s.next]
		var err error
		switch {
		case e.fn != nil:
			err = s.core.ApplyFunc(e.pos, e.fn)
		case e.cmd.Verb == deferral.VerbFunc:
			// WalkCapacity: a cleared slot
			err = nil
		default:
			err = s.apply(e)
		}
		if err != nil {
			if s.bug == DropSuffix {
				s.batch, s.next = nil, 0
			}
			ended = true
			s.settle(false)
			s.core.End(false)
			return err
		}
		s.next++
	}
	if s.bug != WalkCapacity {
		clear(s.batch)
	}
	s.batch, s.next, s.start = nil, 0, 0
	ended = true
	s.settle(true)
	s.core.End(true)
	return nil
}

// apply applies one typed command, through the core unless a bug intervenes.
func (s *Strategy) apply(e *entry) error {
	w := s.core.World()
	c := &e.cmd
	switch {
	case s.bug == StrictRemove && c.Verb == deferral.VerbRemove && w.Alive(c.Entity) && !w.Has(c.Entity, c.Component):
		return &deferral.CommandError{Pos: e.pos, Verb: c.Verb, Component: ecs.ComponentName(c.Component), Err: ecs.ErrMissingComponent}
	case s.bug == TouchReusedSlot && c.Verb == deferral.VerbDestroy && !c.Entity.IsPlaceholder() && !w.Alive(c.Entity):
		var victim ecs.Entity
		for live := range w.Entities() {
			if live.Slot() == c.Entity.Slot() && live.WorldID() == c.Entity.WorldID() {
				victim = live
			}
		}
		if !victim.IsZero() {
			return w.Destroy(victim)
		}
	}
	if s.bug == InvalidRecordNoop && c.Verb == deferral.VerbNone {
		return nil
	}
	err := s.core.Apply(e.pos, c)
	if ce, ok := err.(*deferral.CommandError); ok && s.bug == SetMissingWrongPos {
		ce.Pos.Index++
	}
	return err
}

// Discard drops every pending command and returns how many.
func (s *Strategy) Discard() int {
	if s.core.Active() {
		return 0 // from a closure while a commit runs: refused
	}
	n := s.Pending()
	s.mu.Lock()
	clear(s.shared)
	s.shared = nil
	for _, k := range s.sinks {
		clear(k.own)
		k.own, k.n = nil, 0
	}
	s.mu.Unlock()
	clear(s.batch)
	s.batch, s.next, s.start = nil, 0, 0
	s.core.Discarded()
	return n
}

// Resolve answers what a placeholder became in the last commit.
func (s *Strategy) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }

// TakeReport returns and resets the receipts; deferral.ErrPending while commands are pending.
func (s *Strategy) TakeReport() (deferral.Report, error) {
	if s.bug == ReportWhilePending {
		return s.core.TakeReport(0)
	}
	return s.core.TakeReport(s.Pending())
}

// Close releases the strategy; deferral.ErrPendingAtClose while commands are pending.
func (s *Strategy) Close() error {
	if s.bug == CloseLosesPending {
		return s.core.Close(0)
	}
	return s.core.Close(s.Pending())
}
