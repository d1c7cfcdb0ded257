package deferral

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

var owners atomic.Uint32

// resolution states of a placeholder in the current resolution table.
const (
	resUnknown uint8 = iota // not applied (yet)
	resCreated
	resCulled
)

type resolution struct {
	e     ecs.Entity
	state uint8
}

// Core is the part of a strategy every design shares: applying one ECS command by the lenient
// rules, placeholders and their resolutions, the report, the failure flag and the closed flag.
// A strategy embeds or holds one. NewRecorder may be called from any goroutine; every other
// method only from the strategy owner's goroutine, at a sync point.
type Core struct {
	world  *ecs.World
	owner  uint32   // placeholder owner id of the current epoch; renewed every 65536 epochs
	epoch  uint32   // commit epoch placeholders are staged in; advances when a commit drains
	past   []uint32 // owner ids used before owner (placeholders carry the epoch in 16 bits)
	mu     sync.Mutex
	nrec   int
	tabEp  uint32         // epoch of res
	tabOwn uint32         // owner id of tabEp
	res    [][]resolution // per recorder, per create sequence number
	// Placeholders minted by closures during a commit of tabEp belong to the next epoch
	// (aheadOwn's); a retry of a failed commit applies them while tabEp is still current, so
	// their resolutions go to a table of their own.
	aheadOwn  uint32
	nextOwner uint32         // owner id the next 16-bit epoch period will use; 0: not drawn yet
	resAhead  [][]resolution // per recorder, per create sequence number, for tabEp's next epoch
	report    Report
	spare     []ecs.Entity // the Created array TakeReport handed out last time, reused next
	replayed  []ecs.Entity // the entities a replayed run of creates made (replayCreates), reused
	// loose holds the outcome of each create this commit applied whose record names no
	// placeholder of a current table (a hand-built create, whose outcome no table keeps), in
	// the order it applied them; Replay takes them in that order, from looseAt on.
	loose   []resolution
	looseAt int
	failed  bool
	active  bool // inside a commit
	// closed is set by Close on the owner's goroutine and read by recorders on producers'
	// goroutines, in their out-of-line path only; dropped counts the commands they dropped
	// because of it (see Dropped).
	closed  atomic.Bool
	dropped atomic.Int64
}

// NewCore returns a Core bound to w.
func NewCore(w *ecs.World) *Core {
	return &Core{world: w, owner: newOwner(), epoch: 1}
}

func newOwner() uint32 {
	o := owners.Add(1)
	if o == 0 {
		o = owners.Add(1)
	}
	return o
}

// World returns the target.
func (c *Core) World() *ecs.World { return c.world }

// NewRecorder mints the next recorder over sink. It panics after 65536 recorders (placeholders
// carry the recorder number in 16 bits); strategies mint one per producer, not per frame.
func (c *Core) NewRecorder(sink Sink) *Recorder {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nrec >= maxRecorders {
		panic(fmt.Sprintf("deferral: more than %d recorders on one strategy: mint one per producer and reuse it", maxRecorders))
	}
	r := &Recorder{sink: sink, core: c, index: c.nrec, cmds: &noRecords, keyed: &alwaysKeyed, st: &heldStream}
	if ss, ok := sink.(StreamSink); ok && ss.Stream() != nil {
		r.st, r.sinkSt = ss.Stream(), ss.Stream()
	} else if ss, ok := sink.(SliceSink); ok {
		r.cmds, r.keyed = ss.Records()
	}
	r.sinkKeyed = r.keyed
	c.nrec++
	return r
}

// Recorders returns the number of recorders minted so far.
func (c *Core) Recorders() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nrec
}

// Failed reports whether the last commit stopped at a failing command and its suffix is
// still pending.
func (c *Core) Failed() bool { return c.failed }

// Closed reports whether Close succeeded.
func (c *Core) Closed() bool { return c.closed.Load() }

// Dropped returns the number of commands staged after Close that recorders dropped instead
// of storing, since the last Discard. A strategy adds it to its Pending, so that no command
// staged after Close is lost without a trace: Commit refuses them all with ErrClosed, and
// Discard drops them (Core.Discard counts them in what it returns).
//
// The rule that bounds a closed strategy's storage: once the strategy is closed, a recorder
// keeps storing a typed command only while its sink's fast-path slice has room (capacity
// allocated before Close, never grown); a typed command that would take the out-of-line path
// of a full slice, or go through a sink without a fast path, and every closure staged with
// Do, is dropped and counted here. Staging after Close still returns no error and never
// touches the world, and the fast path stays as it was: the closed flag is read (an atomic
// load) only on the out-of-line path. Discard and Discarded reset the count.
func (c *Core) Dropped() int { return int(c.dropped.Load()) }

// Begin starts (or, after a failure, resumes) a commit. The first Begin after a drained commit
// forgets that commit's resolutions. Errors: ErrClosed; ErrReentry when a commit is running.
func (c *Core) Begin() error {
	if c.closed.Load() {
		return ErrClosed
	}
	if c.active {
		return fmt.Errorf("commit: %w", ErrReentry)
	}
	c.active = true
	c.loose, c.looseAt = c.loose[:0], 0
	if c.tabEp != c.epoch {
		c.tabEp, c.tabOwn, c.aheadOwn = c.epoch, c.owner, c.owner
		if wraps(c.epoch) {
			if c.nextOwner == 0 {
				c.nextOwner = newOwner()
			}
			c.aheadOwn = c.nextOwner
		}
		for i := range c.res {
			c.res[i] = c.res[i][:0]
		}
		for i := range c.resAhead {
			c.resAhead[i] = c.resAhead[i][:0]
		}
	}
	return nil
}

// End finishes a commit begun with Begin. drained tells whether the commit applied everything
// it covered (commands closures staged during it may be pending for the next commit): then the
// next placeholders belong to a new epoch and the failure flag clears; otherwise the commit
// failed and the strategy keeps its suffix pending.
func (c *Core) End(drained bool) {
	c.active = false
	c.failed = !drained
	if drained {
		c.advance()
	}
}

// Discarded records that the strategy dropped its pending commands: placeholders staged
// before it never resolve, the failure flag clears, and so does the count of commands
// dropped after Close (Dropped), which the strategy's Pending counted.
func (c *Core) Discarded() {
	c.dropped.Store(0)
	c.failed = false
	c.advance()
}

func (c *Core) advance() {
	if wraps(c.epoch) {
		// Placeholders carry the epoch in 16 bits: a fresh owner id keeps one from 65536
		// epochs ago from aliasing one of this epoch.
		c.past = append(c.past, c.owner)
		c.owner = c.nextOwner
		if c.owner == 0 {
			c.owner = newOwner()
		}
		c.nextOwner = 0
	}
	c.epoch = nextEpoch(c.epoch)
}

// nextEpoch returns the epoch after e (0 is skipped).
func nextEpoch(e uint32) uint32 {
	if e++; e == 0 {
		e = 1
	}
	return e
}

// wraps reports whether the 16 bits of the epoch placeholders carry wrap after e.
func wraps(e uint32) bool { return nextEpoch(e)&0xffff <= e&0xffff }

// table returns the resolution table a placeholder with owner and payload hi belongs to, or
// nil when it belongs to no commit whose answers are current.
func (c *Core) table(owner, hi uint32) *[][]resolution {
	switch ep := hi & 0xffff; {
	case owner == c.tabOwn && ep == c.tabEp&0xffff:
		return &c.res
	case owner == c.aheadOwn && ep == nextEpoch(c.tabEp)&0xffff:
		return &c.resAhead
	}
	return nil
}

// resolve maps a command's entity to a real handle. ok is false for a placeholder that does
// not resolve to a created entity in this commit.
func (c *Core) resolve(e ecs.Entity) (ecs.Entity, bool) {
	if !e.IsPlaceholder() {
		return e, true
	}
	return c.resolvePlaceholder(e)
}

// resolvePlaceholder is resolve of a placeholder.
func (c *Core) resolvePlaceholder(e ecs.Entity) (ecs.Entity, bool) {
	owner, hi, lo, _ := e.PlaceholderParts()
	rec, tab := int(hi>>16), c.table(owner, hi)
	if tab == nil || rec >= len(*tab) || int(lo) >= len((*tab)[rec]) {
		return ecs.Entity{}, false
	}
	r := (*tab)[rec][lo]
	return r.e, r.state == resCreated
}

// record stores what placeholder p became.
func (c *Core) record(p ecs.Entity, r resolution) {
	owner, hi, lo, isPh := p.PlaceholderParts()
	var tab *[][]resolution
	if isPh {
		tab = c.table(owner, hi)
	}
	if tab == nil {
		// A hand-built create record, or one from an earlier epoch: nothing can name it, but
		// Replay must know whether it was culled.
		c.loose = append(c.loose, r)
		return
	}
	rec := int(hi >> 16)
	for len(*tab) <= rec {
		*tab = append(*tab, nil)
	}
	t := (*tab)[rec]
	if int(lo) >= len(t) {
		if int(lo) < cap(t) {
			t = t[:lo+1]
			clear(t[len((*tab)[rec]):])
		} else {
			t = append(t, make([]resolution, int(lo)+1-len(t))...)
		}
		(*tab)[rec] = t
	}
	t[lo] = r
}

// Apply applies one command to the world by the lenient rules and records its receipt. at
// names the command in errors. It returns a *CommandError when the command fails; the world is
// then unchanged by it and the caller must keep it and everything after it pending.
// VerbFunc records are the strategy's to run, with ApplyFunc.
func (c *Core) Apply(at Pos, cmd *Command) error {
	// The common command, an add, set or remove on a real handle, runs here with a small
	// frame; creates, destroys, placeholders and invalid verbs go out of line (applyRest).
	switch cmd.Verb {
	case VerbAdd, VerbSet, VerbRemove:
		if !cmd.Entity.IsPlaceholder() {
			break
		}
		fallthrough
	default:
		return c.applyRest(at, cmd)
	}
	// The World's Try calls check the target once.
	var live bool
	var err error
	switch w, e := c.world, cmd.Entity; cmd.Verb {
	case VerbAdd:
		live, err = w.TryUpsert(e, &cmd.Bundle)
	case VerbSet:
		live, err = w.TrySet(e, &cmd.Bundle)
	default:
		var had bool
		live, had, err = w.TryRemove(e, cmd.Component)
		if live && !had {
			c.report.NoopRemoves++
		}
	}
	if err != nil {
		return c.fail(at, cmd, err)
	}
	if !live {
		c.report.Skipped++
	}
	c.report.Applied++
	return nil
}

// ApplyRun applies cmds in order with Apply, cmds[i] at position at with Index at.Index+i,
// adding one to *applied after each command that applied, and returns nil, or the error of the
// first command that failed (a *CommandError naming its position); the caller keeps that
// command and the rest pending. *applied is the caller's cursor, kept current command by
// command so that a panic in a command (a validator that panics) leaves it on the panicking
// command, as Apply called in a loop would: a retry must not apply the commands before it
// twice. A strategy whose records are a plain slice applies a run with one call instead of
// one call per command.
//
// A one-value Add or Set, or a Remove, on a real handle writes its column through the
// component's ecs.Writer (a liveness and generation check, a mask test and a copy); what the
// writer cannot finish (a validator, a missing component, a new column) goes through Apply.
func (c *Core) ApplyRun(at Pos, cmds []Command, applied *int) error {
	w := c.world
	for i := range cmds {
		cmd := &cmds[i]
		if e := cmd.Entity; !e.IsPlaceholder() {
			var live, had, done bool
			h := *(*uint32)(unsafe.Pointer(&cmd.Bundle)) // count | bytes used<<8 | first id<<16
			switch cmd.Verb {
			case VerbSet:
				if h&0xff == 1 {
					live, done = w.Writer(ecs.ComponentID(h>>16&0xff)).Set(e, unsafe.Add(unsafe.Pointer(&cmd.Bundle), 16))
				}
			case VerbAdd:
				if h&0xff == 1 {
					live, done = w.Writer(ecs.ComponentID(h>>16&0xff)).Upsert(e, unsafe.Add(unsafe.Pointer(&cmd.Bundle), 16))
				}
			case VerbRemove:
				if live, had, done = w.Writer(cmd.Component).Remove(e); live && !had && done {
					c.report.NoopRemoves++
				}
			}
			if done {
				if !live {
					c.report.Skipped++
				}
				c.report.Applied++
				*applied++
				at.Index++
				continue
			}
		}
		if err := c.Apply(at, cmd); err != nil {
			return err
		}
		*applied++
		at.Index++
	}
	return nil
}

// applyRest is Apply of a create, a destroy, a command naming a placeholder, or an invalid
// verb.
//
//go:noinline
func (c *Core) applyRest(at Pos, cmd *Command) error {
	w := c.world
	switch cmd.Verb {
	case VerbCreate:
		if _, done := c.recorded(cmd.Entity); done {
			return c.fail(at, cmd, errCreatedTwice)
		}
		e, err := w.Create(cmd.Bundle)
		if err != nil {
			if errors.Is(err, ecs.ErrInvalidValue) {
				c.record(cmd.Entity, resolution{state: resCulled})
				c.report.IgnoredCreates++
				break
			}
			return c.fail(at, cmd, err)
		}
		c.record(cmd.Entity, resolution{e: e, state: resCreated})
		c.report.Created = append(c.report.Created, e)
	case VerbDestroy:
		e, ok := c.resolve(cmd.Entity)
		switch {
		case !ok:
			c.report.Skipped++
		case !w.Alive(e):
			c.report.IgnoredDestroys++
		default:
			if err := w.Destroy(e); err != nil {
				return c.fail(at, cmd, err)
			}
			c.report.Destroyed++
		}
	case VerbAdd, VerbSet, VerbRemove: // on a placeholder: applied as the entity it became
		e, ok := c.resolvePlaceholder(cmd.Entity)
		if !ok {
			c.report.Skipped++
			break
		}
		resolved := *cmd
		resolved.Entity = e
		return c.Apply(at, &resolved)
	default:
		return c.fail(at, cmd, ErrInvalidCommand)
	}
	c.report.Applied++
	return nil
}

// errCreatedTwice is the error of a create record naming a placeholder that a create of this
// commit already resolved (a hand-built record, Recorder.Stage, reusing a placeholder): it
// would rebind the placeholder, so that the commands naming it before and after it named two
// entities, and a replica replaying the commit (Replay, which resolves through the final
// answers) could not follow.
var errCreatedTwice = fmt.Errorf("create of a placeholder this commit already created or culled: %w", ErrInvalidCommand)

// ApplyFunc runs a closure-tier command and records its receipt; an error it returns becomes a
// *CommandError naming at. A nil fn fails as NilClosure does, wrapping ErrInvalidCommand.
func (c *Core) ApplyFunc(at Pos, fn func(w *ecs.World) error) error {
	if fn == nil {
		fn = NilClosure[ecs.World]
	}
	if err := fn(c.world); err != nil {
		return &CommandError{Pos: at, Verb: VerbFunc, Err: err}
	}
	c.report.Applied++
	return nil
}

func (c *Core) fail(at Pos, cmd *Command, err error) error {
	return &CommandError{Pos: at, Verb: cmd.Verb, Component: cmd.componentName(), Err: err}
}

// Resolve answers what placeholder p became in the last commit (or the one in progress).
// Errors: ErrNotPlaceholder, ErrForeignPlaceholder, ErrUnresolved, ErrCulled.
func (c *Core) Resolve(p ecs.Entity) (ecs.Entity, error) {
	owner, hi, lo, isPh := p.PlaceholderParts()
	switch {
	case !isPh:
		return ecs.Entity{}, fmt.Errorf("resolve %v: %w", p, ErrNotPlaceholder)
	case owner != c.owner && owner != c.tabOwn && owner != c.aheadOwn && !slices.Contains(c.past, owner):
		return ecs.Entity{}, fmt.Errorf("resolve %v: %w", p, ErrForeignPlaceholder)
	}
	rec, tab := int(hi>>16), c.table(owner, hi)
	if tab == nil || rec >= len(*tab) || int(lo) >= len((*tab)[rec]) {
		return ecs.Entity{}, fmt.Errorf("resolve %v: %w", p, ErrUnresolved)
	}
	switch r := (*tab)[rec][lo]; r.state {
	case resCreated:
		return r.e, nil
	case resCulled:
		return ecs.Entity{}, fmt.Errorf("resolve %v: %w", p, ErrCulled)
	}
	return ecs.Entity{}, fmt.Errorf("resolve %v: %w", p, ErrUnresolved)
}

// TakeReport returns the accumulated receipts and resets them. pending is the strategy's
// pending count. Errors: ErrPending when pending > 0.
//
// The receipts' storage is reused, so that commits allocate nothing in steady state: the
// returned Report.Created stays valid until the next TakeReport, after which commits may
// overwrite it; clone it (slices.Clone) to keep it longer.
func (c *Core) TakeReport(pending int) (Report, error) {
	if pending > 0 {
		return Report{}, fmt.Errorf("take report with %d commands pending: %w", pending, ErrPending)
	}
	r := c.report
	c.report = Report{Created: c.spare[:0]}
	c.spare = r.Created
	return r, nil
}

// Close marks the core closed. Errors: ErrPendingAtClose when pending > 0 (the core stays
// open). Closing twice is a no-op, also when commands were staged after the first Close
// (they are pending, and Commit refuses them with ErrClosed).
func (c *Core) Close(pending int) error {
	if c.closed.Load() {
		return nil
	}
	if pending > 0 {
		return fmt.Errorf("close with %d commands pending: %w", pending, ErrPendingAtClose)
	}
	c.closed.Store(true)
	return nil
}

// Active reports whether a commit is running (between Begin and End).
func (c *Core) Active() bool { return c.active }

// Commit runs one commit of the strategy owning c: Begin, then apply — the strategy's walk
// over its pending commands in its order, through Apply and ApplyFunc, keeping the failing
// command and those after it pending — then End. A panic in apply (a closure that panicked)
// ends the commit as failed, so the strategy stays usable, and goes on to the caller.
// Errors: those of Begin (ErrClosed, ErrReentry), or apply's.
func (c *Core) Commit(apply func() error) (err error) {
	if err := c.Begin(); err != nil {
		return err
	}
	ok := false
	defer func() { c.End(ok) }()
	err = apply()
	ok = err == nil
	return err
}

// Discard runs the strategy's drop of its pending commands and records it (placeholders staged
// before it never resolve; the failure flag clears). From inside a commit (a closure command)
// it is refused: drop is not called and Discard returns 0. drop returns how many it dropped,
// and ok false when it refused too.
func (c *Core) Discard(drop func() (n int, ok bool)) int {
	if c.active {
		return 0
	}
	n, ok := drop()
	if !ok {
		return 0
	}
	n += c.Dropped()
	c.Discarded()
	return n
}
