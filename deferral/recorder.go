package deferral

import (
	"fmt"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// maxRecorders is the most recorders one strategy instance mints: placeholders carry the
// recorder number in 16 bits.
const maxRecorders = 1 << 16

// Recorder is a producer's handle for staging ECS commands. Use one recorder from one
// goroutine at a time; mint one per producer with Strategy.NewRecorder. Staging never touches
// the world, returns no error and, for the typed verbs, does not allocate (amortised; what the
// strategy's storage costs is the strategy's). Commands staged after the strategy is closed
// are refused by its next Commit with ErrClosed, and a closed strategy's storage does not
// grow: a typed command is stored only while the recorder's storage has room allocated
// before Close, and otherwise dropped, as is every closure staged with Do; Pending counts
// the dropped ones too, and Discard drops them (see Core.Dropped).
type Recorder struct {
	// st is the sink's record stream (StreamSink), or heldStream — which takes no record
	// inline — when the sink has none or the recorder's sort key is not 0. sinkSt is the
	// sink's stream, nil when it has none.
	st     *Stream
	sinkSt *Stream
	// cmds and keyed are the fast path of a SliceSink: unkeyed typed records are appended to
	// *cmds directly while *keyed is false. For other sinks keyed points at a true that is
	// never written, so every record goes through sink.
	cmds  *[]Command
	keyed *bool
	// sinkKeyed is the sink's own flag; keyed points at alwaysKeyed instead while the
	// recorder's sort key is not 0, so the fast path tests one flag.
	sinkKeyed *bool
	sink      Sink
	core      *Core
	index     int
	key       uint64
	// seqs numbers the creates staged per epoch, for the two epochs placeholders can be
	// staged in: the current one, and the next (closures staging during a commit).
	seqs [2]struct{ epoch, n uint32 }
}

// SliceSink is the optional fast path of a Sink whose typed storage is one plain slice of
// Command records (a cmdbuffer or handrolled recorder without a record stream, over a Core
// of one's own; the ECS strategies' recorders keep streams, StreamSink). Core.NewRecorder
// checks for it once,
// when it mints the Recorder, not per command; from then on the Recorder appends a typed
// record with sort key 0 to that slice itself — no interface call, no second copy of the
// 72-byte record — and calls StageKeyed only for keyed records or while the sink's keyed flag
// is set. The sink sees exactly the records StageKeyed(0, c) would have appended.
type SliceSink interface {
	Sink
	// Records returns the slice the sink appends typed records to and the flag it sets while
	// every record must go through StageKeyed (it keeps a sort key per record). Both stay
	// valid for the sink's lifetime; they are used from the recorder's goroutine and, at a
	// sync point, the owner's.
	Records() (cmds *[]Command, keyed *bool)
}

// alwaysKeyed is the keyed flag of a Recorder whose sink has no fast path, or whose sort key
// is not 0. It is never written.
var alwaysKeyed = true

// noRecords is the fast path's slice of a Recorder whose sink has none: it has no room, so
// every record goes out of line to the sink. It is never written.
var noRecords []Command

// slot returns the next slot of the fast path's slice, grown by one, for the verb to fill in
// place; nil when the record must go out of line (stageSlow): the slice is full, the sink
// keeps sort keys, or it has no fast path. Re-slicing within capacity stores the length
// only, and the verb writes every field once — no zeroing, no temporary record.
func (r *Recorder) slot() *Command {
	p := r.cmds
	if n := len(*p); n < cap(*p) && !*r.keyed {
		*p = (*p)[:n+1]
		return &(*p)[n]
	}
	return nil
}

// stageSlow stages what slot could not take: through the sink when a sort key is kept (or
// the sink has no fast path), else appended to the full slice, which grows. Once the
// strategy is closed, a record that would grow the slice, or that goes to a sink without a
// fast path, is dropped and counted instead (Core.Dropped): the closed flag is read here, not
// in slot.
//
//go:noinline
func (r *Recorder) stageSlow(c *Command) {
	if len(*r.cmds) == cap(*r.cmds) && r.core.closed.Load() {
		r.core.dropped.Add(1)
		return
	}
	if r.key != 0 || *r.keyed {
		r.sink.StageKeyed(r.key, *c)
		return
	}
	*r.cmds = append(*r.cmds, *c)
}

// nextSeq returns the next create number of epoch e and counts it. cur is the core's epoch.
func (r *Recorder) nextSeq(e, cur uint32) uint32 {
	for i := range r.seqs {
		if s := &r.seqs[i]; s.epoch == e {
			s.n++
			return s.n - 1
		}
	}
	i := 0 // replace a counter of an epoch that is over
	if s := r.seqs[0]; s.epoch == cur || s.epoch == nextEpoch(cur) {
		i = 1
	}
	r.seqs[i].epoch, r.seqs[i].n = e, 1
	return 0
}

// Index returns the recorder's number: 0 for the first one its strategy minted.
func (r *Recorder) Index() int { return r.index }

// SetSortKey sets the sort key of the commands staged from now on (Unity's sortKey: the index
// of the work item being processed). Strategies that declare Capabilities.SortKeys commit in
// (key, recorder, FIFO) order; others ignore it.
func (r *Recorder) SetSortKey(k uint64) {
	r.key = k
	if k != 0 {
		r.keyed = &alwaysKeyed
		r.st = &heldStream
	} else {
		r.keyed = r.sinkKeyed
		if r.st = r.sinkSt; r.st == nil {
			r.st = &heldStream
		}
	}
}

// Create stages the creation of an entity with the components in b and returns its
// placeholder. The placeholder can be named by later commands of any recorder of the same
// strategy; after the commit, Strategy.Resolve tells what it became.
func (r *Recorder) Create(b ecs.Bundle) ecs.Entity {
	p, ok := r.mintFast()
	if !ok {
		p = r.mintSlow()
	}
	// The stream's bundle-form record, written here: the header, then the Bundle's head and
	// the words of values it uses. The whole Bundle is copied whatever it uses, in register
	// moves instead of a loop (the room test covers it; the words past the record lie in free
	// room the next record overwrites).
	s := r.st
	k := bundleWords(&b)
	if n := s.n; n+headWords+bundleAll <= s.lim {
		s.n = n + headWords + k
		s.count++
		q := unsafe.Add(s.base, uintptr(n)*8)
		*(*recordHead)(q) = recordHead{header(VerbCreate, 0, k, formBundle), p}
		*(*ecs.Bundle)(unsafe.Add(q, headWords*8)) = b
		return p
	}
	r.put(VerbCreate, 0, p, &b)
	return p
}

// mintFast returns the placeholder of the recorder's next create and counts it — the core's
// owner and epoch, the recorder's index, the create's number in the epoch — in the common
// case, small enough to inline: outside a commit, the epoch of the recorder's first counter.
// Otherwise ok is false, nothing is counted, and mintSlow mints it.
func (r *Recorder) mintFast() (p ecs.Entity, ok bool) {
	c, s := r.core, &r.seqs[0]
	if s.epoch != c.epoch || c.active {
		return p, false
	}
	s.n++
	return ecs.NewPlaceholder(c.owner, uint32(r.index)<<16|c.epoch&0xffff, s.n-1), true
}

// mintSlow is mintFast past its common case. A closure staging during a commit counts its
// creates in the next epoch: it applies in a later commit, the next or the retry of this
// one. An epoch's first create finds or takes its counter through nextSeq.
//
//go:noinline
func (r *Recorder) mintSlow() ecs.Entity {
	c := r.core
	e, owner := c.epoch, c.owner
	if c.active {
		e, owner = nextEpoch(e), c.aheadOwn
	}
	return ecs.NewPlaceholder(owner, uint32(r.index)<<16|e&0xffff, r.nextSeq(e, c.epoch))
}

// bundleAll is the size of an ecs.Bundle in words: the most a bundle-form payload uses.
const bundleAll = int(unsafe.Sizeof(ecs.Bundle{}) / 8)

// bundleWords returns the words of a bundle-form record's payload for b: its 16-byte head
// and the values it uses.
func bundleWords(b *ecs.Bundle) int { return 2 + bundleUsed(b)/8 }

// Destroy stages the destruction of e (an entity or a placeholder).
func (r *Recorder) Destroy(e ecs.Entity) {
	stageHead(r, uint32(VerbDestroy), e, (*Recorder).headSlow) // header(VerbDestroy, 0, 0, formValue)
}

// stageHead stages the record of header h on e that has no payload (a Destroy's or a
// Remove's) into the stream's free room when it has some, else through slow
// ((*Recorder).headSlow). slow is a parameter, not a direct call, for the compiler's
// inlining budget, as stageValue's are: Destroy and Remove are inlined where they are called,
// and the record is written with no call.
func stageHead(r *Recorder, h uint32, e ecs.Entity, slow func(*Recorder, uint32, ecs.Entity)) {
	if s := r.st; s.n+headWords <= s.lim {
		n := s.n
		s.n = n + headWords
		s.count++ // one read-modify-write
		*(*recordHead)(unsafe.Add(s.base, uintptr(n)*8)) = recordHead{h, e}
		return
	}
	slow(r, h, e)
}

// headSlow stages what stageHead could not: a Destroy or a Remove (header h) when the stream
// has no room or the recorder has none.
//
//go:noinline
func (r *Recorder) headSlow(h uint32, e ecs.Entity) {
	if Verb(h&0xff) == VerbDestroy {
		r.destroySlow(e)
		return
	}
	r.removeSlow(e, ecs.ComponentID(h>>16))
}

// destroySlow is Destroy out of line: the stream has no room or the recorder has none.
//
//go:noinline
func (r *Recorder) destroySlow(e ecs.Entity) { r.put(VerbDestroy, 0, e, &ecs.Bundle{}) }

// Add stages adding the components in b to e, overwriting values e already has. For one
// component, the generic Add writes the record without building a Bundle. Add is small
// enough for the compiler to inline, with Component.Value: a one-value Bundle is written into
// the stream with no call, and a bundle of several values goes out of line (putBundle).
func (r *Recorder) Add(e ecs.Entity, b ecs.Bundle) {
	stageValue(r, VerbAdd, e, &b, writeValue, (*Recorder).putBundle)
}

// Remove stages removing component id from e; a no-op at commit if e lacks it.
func (r *Recorder) Remove(e ecs.Entity, id ecs.ComponentID) {
	stageHead(r, uint32(VerbRemove)|uint32(id)<<16, e, (*Recorder).headSlow) // header(VerbRemove, id, 0, formValue)
}

// Remove2 stages removing components a and b from e, in one call: it writes the same two
// records as r.Remove(e, a) followed by r.Remove(e, b) (the deferred counterpart of Ark's
// Map2.Remove, as Add2 is of its Map2.Add). They stay two commands, with a position each in
// the stream and in the report; each is a no-op at commit if e lacks that component.
func (r *Recorder) Remove2(e ecs.Entity, a, b ecs.ComponentID) {
	stageRemove2(r, e, a, b, writeRemove2, (*Recorder).remove2Slow)
}

// stageRemove2 stages Remove2's two records into the stream's free room when it has room
// for both (write, which is writeRemove2), else through slow ((*Recorder).remove2Slow): both
// parameters, as stageValue's are, so that Remove2 is inlined where it is called.
func stageRemove2(r *Recorder, e ecs.Entity, a, b ecs.ComponentID, write func(*Stream, ecs.Entity, ecs.ComponentID, ecs.ComponentID), slow func(*Recorder, ecs.Entity, ecs.ComponentID, ecs.ComponentID)) {
	if s := r.st; s.n+2*headWords <= s.lim {
		write(s, e, a, b)
		return
	}
	slow(r, e, a, b)
}

// writeRemove2 writes the records of Remove(e, a) and Remove(e, b) at the end of s, which has
// room for both.
func writeRemove2(s *Stream, e ecs.Entity, a, b ecs.ComponentID) {
	p := unsafe.Add(s.base, s.n*8)
	s.n += 2 * headWords
	s.count += 2
	h := uint32(VerbRemove) // header(VerbRemove, id, 0, formValue) is h | id<<16
	*(*[2]recordHead)(p) = [2]recordHead{{h | uint32(a)<<16, e}, {h | uint32(b)<<16, e}}
}

// remove2Slow is Remove2 out of line: no room for both records, or no stream; one Remove
// after the other.
//
//go:noinline
func (r *Recorder) remove2Slow(e ecs.Entity, a, b ecs.ComponentID) {
	r.Remove(e, a)
	r.Remove(e, b)
}

// removeSlow is Remove out of line: the stream has no room or the recorder has none.
//
//go:noinline
func (r *Recorder) removeSlow(e ecs.Entity, id ecs.ComponentID) {
	if c := r.slot(); c != nil {
		c.Verb, c.Component, c.Entity = VerbRemove, id, e
		c.Bundle = ecs.Bundle{}
		return
	}
	r.putSlow(VerbRemove, id, e, &ecs.Bundle{}, headWords, formValue)
}

// Set stages overwriting e's values of the components in b; the commit fails with a
// *CommandError wrapping ecs.ErrMissingComponent if e lacks one. For one component, the
// generic Set writes the record without building a Bundle. Set is inlined as Add is.
func (r *Recorder) Set(e ecs.Entity, b ecs.Bundle) {
	stageValue(r, VerbSet, e, &b, writeValue, (*Recorder).putBundle)
}

// stageValue stages b for Set and Add (verb v). A bundle of one value of at most 24 bytes
// (count 1, bytes used 0, 8, 16 or 24, no second id: the Bundle's first word against
// oneValueMask) goes into the stream's free room when it has some, through write
// (writeValue); anything else goes through slow ((*Recorder).putBundle).
//
// write and slow are parameters, not direct calls, for the compiler's inlining budget (80): it
// charges a call it cannot inline 57 and a call of a parameter 17, so stageValue, and Set and
// Add with it, stay inlinable. Inlined where Set is called, the parameters are constants
// again: write is inlined and slow is a static call, so the Bundle an inlined Component.Value
// builds stays in the caller's frame, its first word forwarded from the store that wrote it,
// and no call is made on the fast path. Not inlined (a build with -gcflags=-l, as debuggers
// build), b escapes through the calls of the parameters and each Set or Add allocates its
// Bundle; the generic Set and Add do not.
func stageValue(r *Recorder, v Verb, e ecs.Entity, b *ecs.Bundle, write, slow func(*Recorder, Verb, ecs.Entity, *ecs.Bundle)) {
	if s, w := r.st, *(*uint64)(unsafe.Pointer(b)); s.n < s.vend && w&oneValueMask == oneValue {
		write(r, v, e, b)
		return
	}
	slow(r, v, e, b)
}

// writeValue writes the record of b, a bundle of one value of at most 24 bytes, at the end of
// r's stream, which has room for it: the Bundle's first four bytes (valueHeader) less its
// count, plus the verb v, are the record's header, and the value's words follow the entity.
// Three words are copied whatever the size (the room test covers them; a word past the record
// lies in free room the next record overwrites).
func writeValue(r *Recorder, v Verb, e ecs.Entity, b *ecs.Bundle) {
	s := r.st
	h := valueHeader(*(*uint64)(unsafe.Pointer(b)))
	p := unsafe.Add(s.base, s.n*8)
	s.n += headWords + int(h>>11&3)
	s.count++
	*(*recordHead)(p) = recordHead{h - 1 + uint32(v), e}
	*(*words3)(unsafe.Add(p, 16)) = *(*words3)(unsafe.Add(unsafe.Pointer(b), 16))
}

// putBundle stages what stageValue could not take — a bundle of several values, or none, or
// of one value over 24 bytes; a full or held stream; a sink without a stream — straight into
// the stream (a bundle of other than one value, when the stream has room for a whole Bundle),
// into the sink's fast slice, or through put.
//
//go:noinline
func (r *Recorder) putBundle(v Verb, e ecs.Entity, b *ecs.Bundle) {
	// A bundle of several values (or none), with room in the stream: its bundle-form record,
	// as put writes it, the whole Bundle copied in register moves as Create copies it (the
	// words past the record lie in free room the next record overwrites). A held stream has
	// no room.
	if s := r.st; bundleLen(b) != 1 && s.n+headWords+bundleAll <= s.lim {
		k := bundleWords(b)
		n := s.n
		s.n = n + headWords + k
		s.count++
		q := unsafe.Add(s.base, uintptr(n)*8)
		*(*recordHead)(q) = recordHead{header(v, 0, k, formBundle), e}
		*(*ecs.Bundle)(unsafe.Add(q, headWords*8)) = *b
		return
	}
	if c := r.slot(); c != nil {
		c.Verb, c.Component, c.Entity, c.Bundle = v, 0, e, *b
		return
	}
	r.put(v, 0, e, b)
}

// words3 is three words of values, copied through registers.
type words3 struct{ a, b, c uint64 }

// Stage stages a command record built by hand (the typed tier underneath the verbs). A
// VerbCreate record staged this way carries its own placeholder, usually the zero Entity,
// which nothing can name; one naming a placeholder that a create of the same commit already
// created or culled fails at commit with a *CommandError wrapping ErrInvalidCommand.
func (r *Recorder) Stage(cmd Command) {
	switch cmd.Verb {
	case VerbCreate, VerbDestroy, VerbAdd, VerbRemove, VerbSet:
		if cmd.Verb == VerbRemove || cmd.Verb == VerbDestroy {
			// Values on a remove or destroy mean nothing (Apply ignores them): not kept, and
			// the record names cmd.Component, not a value's component.
			r.put(cmd.Verb, cmd.Component, cmd.Entity, &ecs.Bundle{})
			return
		}
		if cmd.Bundle.Len() > 0 {
			r.put(cmd.Verb, cmd.Component, cmd.Entity, &cmd.Bundle)
			return
		}
	}
	// A record the stream cannot say as it stands (an invalid verb, a create, add or set
	// without values): staged as it is, to fail or apply at commit exactly as built.
	r.stageCommand(&cmd)
}

// stageCommand stages cmd as a Command record: into the fast slice, or through the sink.
func (r *Recorder) stageCommand(cmd *Command) {
	if r.sinkSt != nil {
		if r.core.closed.Load() {
			r.core.dropped.Add(1)
			return
		}
		r.sink.StageKeyed(r.key, *cmd)
		return
	}
	if c := r.slot(); c != nil {
		*c = *cmd
		return
	}
	r.stageSlow(cmd)
}

// Do stages a closure over the world: the closure tier, for components that are not inline
// and for anything the verbs cannot say. It runs at commit in the same order as the typed
// commands; an error it returns is a failing command (a *CommandError wraps it). Closures
// are barriers: no hook moves typed commands across them. Do allocates the closure. A nil fn
// is staged as a command that fails at commit with a *CommandError wrapping
// ErrInvalidCommand, as a malformed record does; it never panics. After the strategy is
// closed, Do drops fn and counts it (Core.Dropped).
func (r *Recorder) Do(fn func(w *ecs.World) error) {
	if r.core.closed.Load() {
		r.core.dropped.Add(1)
		return
	}
	if fn == nil {
		fn = NilClosure[ecs.World]
	}
	r.sink.StageFuncKeyed(r.key, fn)
}

// NilClosure is what a strategy stages in place of a nil closure — given to Recorder.Do, or
// to a generic recorder's StageFunc — so that staging never panics: run at commit, it returns
// an error wrapping ErrInvalidCommand, and the commit fails at that command (a *CommandError
// of verb VerbFunc naming its position) under the failure policy, as at a malformed record.
func NilClosure[T any](*T) error { return errNilClosure }

var errNilClosure = fmt.Errorf("nil closure: %w", ErrInvalidCommand)
