package deferral

import (
	"fmt"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// Stream is one recorder's compact record stream: the ECS commands it staged, back to back
// in one array of 8-byte words that is reused from commit to commit, each record sized to
// what it carries. A record is a 16-byte header — verb, payload length in bytes, component
// id, form, and the target entity (or the placeholder a create mints) — and its payload:
//
//   - one-value form (Set, Add or Remove of one component): the value's own bytes, rounded
//     up to whole words; nothing for Remove and Destroy. A Set of a 16-byte value is 32 bytes.
//   - bundle form (Create, and Add or Set of several components): the ecs.Bundle's header
//     and the words of values it uses.
//   - raw form: a whole 72-byte Command, for what the other forms cannot say as it stands
//     (AppendCommand); slot form: a closure's place in the FIFO, no payload (AppendSlot).
//
// A typed stage is a bounds test, the stores of the record and two counter updates; a
// commit walks the records in order (Core.ApplyStream) and drops them, keeping the array.
// After a spike the array returns towards the recent working set (Watermark, applied by
// Drop). Closures are not records: a strategy keeps them beside the stream, each at the
// record count where it was staged (a barrier), or at a slot record (AppendSlot).
//
// A Stream is written by one recorder's goroutine and read at a sync point by the owner's.
// Strategies hold one per recorder and hand it to Core.NewRecorder through StreamSink.
type Stream struct {
	base  unsafe.Pointer // &words[0]
	n     int            // words used
	lim   int            // words the inline path may fill: len(words), or 0 while held
	vend  int            // the Recorder's fast path writes while n < vend: lim less the longest one-value record (5 words), plus 1; 0 in the zero Stream
	count int            // records
	words []uint64       // the array; len == cap
	held  bool
	wm    Watermark
}

// The record header's fields: byte 0 the verb, byte 1 the payload's length in bytes (a
// multiple of 8), byte 2 the component id (one-value form) or 0, byte 3 the form; bytes 4–15
// the entity. Bytes 1 and 2 sit where a one-value ecs.Bundle keeps its bytes used and its
// id, so the Recorder's fast path builds the header from the Bundle's first word with a mask.
const (
	formValue  = 0
	formBundle = 1
	formRaw    = 2 // a whole Command, as staged: what the other forms cannot say (AppendCommand)
	formSlot   = 3 // a closure's place, no payload (AppendSlot)
	headWords  = 2
	rawWords   = int(unsafe.Sizeof(Command{}) / 8)
)

// A raw record's payload is a whole Command, in whole words.
var _ = [1]struct{}{}[unsafe.Sizeof(Command{})%8]

// header returns the header word of a record of verb v, component id, payload words k and
// form f.
func header(v Verb, id ecs.ComponentID, k int, f uint8) uint32 {
	return uint32(v) | uint32(k*8)<<8 | uint32(id)<<16 | uint32(f)<<24
}

// recordLen returns the length in words of the record whose header is h.
func recordLen(h uint32) int { return headWords + int(h>>11&0x1f) }

// recordID returns the component id of the one-value record whose header is h.
func recordID(h uint32) int { return int(h >> 16 & 0xff) }

// heldStream is the stream of a recorder that has none, or that keeps a sort key: it has no
// room, so every record goes out of line. It is never written.
var heldStream = Stream{}

// StreamSink is the optional fast path of a Sink that keeps its ECS records in a Stream
// (cmdbuffer's, hybrid's and versioned's recorders). Core.NewRecorder checks for it once; the
// Recorder then writes unkeyed typed records into the stream itself and calls StageKeyed only
// while the stream is held (Hold) or the recorder's sort key is not 0.
type StreamSink interface {
	Sink
	// Stream returns the sink's stream, or nil when it keeps none; it stays the same for
	// the sink's lifetime.
	Stream() *Stream
}

// Len returns the number of records in s.
func (s *Stream) Len() int { return s.count }

// Words returns the words records use: the first Len records, back to back. The slice
// aliases the stream until its next Drop or growth.
func (s *Stream) Words() []uint64 { return s.words[:s.n] }

// Hold sets whether records must go through the sink's StageKeyed instead of the stream
// (the sink keeps a sort key per record); a held stream takes no record inline.
func (s *Stream) Hold(on bool) {
	s.held = on
	s.lim = len(s.words)
	if on {
		s.lim = 0
	}
	s.vend = s.lim - (headWords + 3) + 1
}

// Held reports whether s is held (Hold).
func (s *Stream) Held() bool { return s.held }

// alloc returns room for a record of k words, counted, or nil when the array is full or the
// stream is held.
func (s *Stream) alloc(k int) unsafe.Pointer {
	if n := s.n; n+k <= s.lim {
		s.n = n + k
		s.count++
		return unsafe.Add(s.base, uintptr(n)*8)
	}
	return nil
}

// grow makes room for k more words, at least doubling the array, and returns the room for
// the record, counted.
func (s *Stream) grow(k int) unsafe.Pointer {
	w := make([]uint64, max(2*len(s.words), s.n+k, 64))
	copy(w, s.words[:s.n])
	s.setWords(w)
	return s.alloc(k)
}

// appendRoom returns room for a record of k words, counted, growing the array when it is
// full; unlike alloc it writes into a held stream too (the sink's own appends).
func (s *Stream) appendRoom(k int) unsafe.Pointer {
	if s.n+k > len(s.words) {
		w := make([]uint64, max(2*len(s.words), s.n+k, 64))
		copy(w, s.words[:s.n])
		s.setWords(w)
	}
	n := s.n
	s.n, s.count = n+k, s.count+1
	return unsafe.Add(s.base, uintptr(n)*8)
}

func (s *Stream) setWords(w []uint64) {
	s.words = w
	s.base = unsafe.Pointer(unsafe.SliceData(w))
	s.Hold(s.held)
}

// Drop forgets the first records records, which use the first words words (a prefix the
// strategy applied or discarded), keeping the array: records after them (staged by closures
// during a commit) move to the front. Drop is the end of a cycle for the stream's Watermark:
// after a spike the array is cut back towards the recent working set.
func (s *Stream) Drop(records, words int) {
	used := s.n
	s.n = copy(s.words, s.words[words:s.n])
	s.count -= records
	if c := s.wm.Use(used, len(s.words)); c > 0 && c >= s.n {
		w := make([]uint64, c)
		copy(w, s.words[:s.n])
		s.setWords(w)
	}
}

// recordWords returns the length in words of the record of verb v for bundle b, and its form.
func recordWords(v Verb, b *ecs.Bundle) (int, uint8) {
	used := bundleUsed(b)
	if b.Len() == 1 && v != VerbCreate {
		return headWords + used/8, formValue
	}
	if v == VerbRemove || v == VerbDestroy {
		return headWords, formValue
	}
	return headWords + 2 + used/8, formBundle
}

// bundleUsed returns the bytes of values b holds (ecs.Bundle's layout: the count, the bytes
// used, the ids and the offsets in its first 16 bytes, then the values; TestBundleLayout
// holds the stream to it).
func bundleUsed(b *ecs.Bundle) int { return int(*(*uint8)(unsafe.Add(unsafe.Pointer(b), 1))) }

// bundleLen is b.Len() read through the pointer (its first byte): Len has a value receiver,
// and the compiler copies the 56-byte Bundle to call it.
func bundleLen(b *ecs.Bundle) int { return int(*(*uint8)(unsafe.Pointer(b))) }

// bundleFirst is b.ID(0), read through the pointer as bundleLen.
func bundleFirst(b *ecs.Bundle) ecs.ComponentID {
	return ecs.ComponentID(*(*uint8)(unsafe.Add(unsafe.Pointer(b), 2)))
}

// encode writes the record of verb v on e, of component id (Remove) or bundle b, into the k
// words at p, in form f.
func encode(p unsafe.Pointer, v Verb, id ecs.ComponentID, e ecs.Entity, b *ecs.Bundle, k int, f uint8) {
	if f == formValue && b.Len() == 1 {
		id = b.ID(0)
	}
	*(*uint32)(p) = header(v, id, k-headWords, f)
	*(*ecs.Entity)(unsafe.Add(p, 4)) = e
	src := unsafe.Pointer(b)
	if f == formValue {
		src = unsafe.Add(src, 16) // the values; one value sits at offset 0
	}
	for i := headWords; i < k; i++ {
		*(*uint64)(unsafe.Add(p, i*8)) = *(*uint64)(unsafe.Add(src, (i-headWords)*8))
	}
}

// decode returns the record at p as a Command, and its length in words.
func decode(p unsafe.Pointer) (Command, int) {
	h := *(*uint32)(p)
	k := recordLen(h)
	c := Command{Verb: Verb(h), Entity: *(*ecs.Entity)(unsafe.Add(p, 4))}
	dst := unsafe.Pointer(&c.Bundle)
	switch {
	case h>>24 == formRaw:
		c = *(*Command)(unsafe.Add(p, headWords*8))
	case h>>24 == formSlot:
		c = Command{Verb: VerbFunc}
	case h>>24 == formBundle:
		for i := headWords; i < k; i++ {
			*(*uint64)(unsafe.Add(dst, (i-headWords)*8)) = *(*uint64)(unsafe.Add(p, i*8))
		}
	case c.Verb == VerbRemove:
		c.Component = ecs.ComponentID(recordID(h))
	case k > headWords || c.Verb == VerbAdd || c.Verb == VerbSet:
		// One value at offset 0: the Bundle's count, bytes used and id, then the value.
		*(*uint8)(dst) = 1
		*(*uint8)(unsafe.Add(dst, 1)) = uint8((k - headWords) * 8)
		*(*uint8)(unsafe.Add(dst, 2)) = uint8(recordID(h))
		for i := headWords; i < k; i++ {
			*(*uint64)(unsafe.Add(dst, 16+(i-headWords)*8)) = *(*uint64)(unsafe.Add(p, i*8))
		}
	}
	return c, k
}

// AppendCommand appends c to s as the record a Recorder would write for it — or, for a
// command no other form can say as it stands (an invalid verb, a create, add or set without
// values), as a raw record holding c whole, which decodes and
// applies exactly as built — growing the array as needed. It is the stream form of a
// Sink's StageKeyed(key, c) for a strategy that keeps its ECS records in a Stream.
func (s *Stream) AppendCommand(c *Command) {
	switch c.Verb {
	case VerbCreate, VerbDestroy, VerbAdd, VerbRemove, VerbSet:
		if c.Bundle.Len() > 0 || c.Verb == VerbRemove || c.Verb == VerbDestroy {
			b := &c.Bundle
			if c.Verb == VerbRemove || c.Verb == VerbDestroy {
				b = &ecs.Bundle{} // values mean nothing here (Apply ignores them): not kept
			}
			k, f := recordWords(c.Verb, b)
			p := s.appendRoom(k)
			encode(p, c.Verb, c.Component, c.Entity, b, k, f)
			return
		}
	}
	p := s.appendRoom(headWords + rawWords)
	*(*recordHead)(p) = recordHead{h: uint32(c.Verb) | uint32(rawWords*8)<<8 | formRaw<<24}
	*(*Command)(unsafe.Add(p, headWords*8)) = *c
}

// AppendSlot appends a record that holds a closure's place in s: a strategy that keeps its
// closures beside the stream, each at the index of its slot record, counts records and
// closures in one FIFO. Applied as a command (it should not be), it fails with a
// *CommandError wrapping ErrInvalidCommand.
func (s *Stream) AppendSlot() {
	*(*recordHead)(s.appendRoom(headWords)) = recordHead{h: uint32(VerbFunc) | formSlot<<24}
}

// AppendStream appends the records of src to s, in order, and empties src (src.Drop: its
// array is kept). s and src must differ.
func (s *Stream) AppendStream(src *Stream) {
	n := src.n
	if n == 0 {
		src.Drop(0, 0)
		return
	}
	p := s.appendRoom(n)
	copy(unsafe.Slice((*uint64)(p), n), src.words[:n])
	s.count += src.count - 1 // appendRoom counted one record
	src.Drop(src.count, n)
}

// Compact is one ECS command as its compact record — the Stream's layout: the 16-byte
// header and at most two words of value — for a strategy that keeps each command on its own
// (lazyguarded's write jobs) instead of in a stream: 32 bytes where a Command is 72.
type Compact [headWords + 2]uint64

// Compress returns c's compact record and true when it fits in a Compact — an Add or Set of
// one value of at most 16 bytes, a Remove, a Destroy — else false (keep the Command). Values
// a remove or destroy carries are not kept (Apply ignores them).
func Compress(c *Command) (r Compact, ok bool) {
	b := &c.Bundle
	switch c.Verb {
	case VerbAdd, VerbSet:
		if b.Len() != 1 || bundleUsed(b) > 16 {
			return r, false
		}
	case VerbRemove, VerbDestroy:
		b = &ecs.Bundle{}
	default:
		return r, false
	}
	k, f := recordWords(c.Verb, b)
	encode(unsafe.Pointer(&r), c.Verb, c.Component, c.Entity, b, k, f)
	return r, true
}

// Command returns the command r holds, as Compress was given it.
func (r *Compact) Command() Command {
	c, _ := decode(unsafe.Pointer(r))
	return c
}

// Swap exchanges the records and arrays of s and o (a hand-over of a recorder's records
// without a copy); each keeps its held state and Watermark.
func (s *Stream) Swap(o *Stream) {
	s.words, o.words = o.words, s.words
	s.n, o.n = o.n, s.n
	s.count, o.count = o.count, s.count
	s.setWords(s.words)
	o.setWords(o.words)
}

// Resize replaces the array of s by one of c words (at least the words in use), keeping its
// records: a strategy that keeps a stream's array apart from the stream (a hand-over) cuts
// it back to the recent working set after a spike (Watermark).
func (s *Stream) Resize(c int) {
	w := make([]uint64, max(c, s.n))
	copy(w, s.words[:s.n])
	s.setWords(w)
}

// Cap returns the length in words of the array of s (0 when it has none).
func (s *Stream) Cap() int { return len(s.words) }

// RecordWords returns the length in words of the record that starts at word off of s.
func (s *Stream) RecordWords(off int) int { return recordLen(headAt(s.words, off)) }

// AppendCommands appends the records of s to dst as Commands, in order, and returns the
// extended slice: the form a strategy's keyed commit and hooks work on.
func AppendCommands(s *Stream, dst []Command) []Command {
	for o := 0; o < s.n; {
		c, k := decode(unsafe.Add(s.base, uintptr(o)*8))
		dst = append(dst, c)
		o += k
	}
	return dst
}

// put stages the record of verb v: into the stream when it has room, else out of line. A
// one-value bundle of one or two words (the common value) is written without a loop, and a
// bundle of other than one value (an Add, Set or Create of several components) in
// bundle form without going through putAny and encode.
func (r *Recorder) put(v Verb, id ecs.ComponentID, e ecs.Entity, b *ecs.Bundle) {
	if r.sinkSt == nil { // a sink without a stream: its fast slice of Commands, filled in place
		if c := r.slot(); c != nil {
			c.Verb, c.Component, c.Entity = v, id, e
			if v == VerbRemove || v == VerbDestroy {
				c.Bundle = ecs.Bundle{}
			} else {
				c.Bundle = *b
			}
			return
		}
		r.putAny(v, id, e, b)
		return
	}
	if used := bundleUsed(b); bundleLen(b) == 1 && v != VerbCreate && used <= 16 {
		k := headWords + used/8
		if p := r.st.alloc(k); p != nil {
			*(*uint32)(p) = header(v, bundleFirst(b), k-headWords, formValue)
			*(*ecs.Entity)(unsafe.Add(p, 4)) = e
			src := unsafe.Add(unsafe.Pointer(b), 16) // the value, at offset 0 of the values
			if used >= 8 {
				*(*uint64)(unsafe.Add(p, 16)) = *(*uint64)(src)
			}
			if used == 16 {
				*(*uint64)(unsafe.Add(p, 24)) = *(*uint64)(unsafe.Add(src, 8))
			}
			return
		}
	} else if bundleLen(b) != 1 && v != VerbRemove && v != VerbDestroy {
		k := headWords + 2 + used/8 // the Bundle's 16-byte head, then the values it uses
		if p := r.st.alloc(k); p != nil {
			*(*uint32)(p) = header(v, id, k-headWords, formBundle)
			*(*ecs.Entity)(unsafe.Add(p, 4)) = e
			src := unsafe.Pointer(b)
			for i := headWords; i < k; i++ {
				*(*uint64)(unsafe.Add(p, i*8)) = *(*uint64)(unsafe.Add(src, (i-headWords)*8))
			}
			return
		}
	}
	r.putAny(v, id, e, b)
}

// putAny is put of any record.
//
//go:noinline
func (r *Recorder) putAny(v Verb, id ecs.ComponentID, e ecs.Entity, b *ecs.Bundle) {
	k, f := recordWords(v, b)
	if p := r.st.alloc(k); p != nil {
		encode(p, v, id, e, b, k, f)
		return
	}
	r.putSlow(v, id, e, b, k, f)
}

// putSlow is put of a record the stream could not take inline: the recorder keeps a sort key
// or its stream is held (the sink's StageKeyed), the sink has no stream (its fast slice, or
// StageKeyed), or the array is full (it grows; once the strategy is closed the record is
// dropped and counted instead, Core.Dropped).
//
//go:noinline
func (r *Recorder) putSlow(v Verb, id ecs.ComponentID, e ecs.Entity, b *ecs.Bundle, k int, f uint8) {
	c := Command{Verb: v, Component: id, Entity: e}
	if v != VerbRemove && v != VerbDestroy {
		c.Bundle = *b
	}
	s := r.sinkSt
	if s == nil {
		if p := r.slot(); p != nil {
			*p = c
			return
		}
		r.stageSlow(&c)
		return
	}
	if r.key != 0 || s.held {
		if r.core.closed.Load() {
			r.core.dropped.Add(1)
			return
		}
		r.sink.StageKeyed(r.key, c)
		return
	}
	if r.core.closed.Load() {
		r.core.dropped.Add(1)
		return
	}
	encode(s.grow(k), v, id, e, b, k, f)
}

// ApplyStream applies the records of s from record *next, which starts at word *off, up to
// record stop (exclusive), by the lenient rules, as Apply would one by one: at names record
// *next. It advances *next and *off after each record that applied — so that a record that
// fails or panics stays pending with the rest, as ApplyRun's cursor does — and returns nil or
// the failing record's *CommandError.
//
// Runs of one-value Set, Add and Remove records on real handles are applied by the World's
// ApplyValues: per record a liveness and generation check, a mask test and a copy through the
// component's column, in one loop. Everything else — creates, destroys, placeholders,
// bundles, and a record ApplyValues cannot finish (a validator, a missing component, a new
// column) — is decoded and goes through Apply, out of line.
func (c *Core) ApplyStream(at Pos, s *Stream, stop int, next, off *int) error {
	w := c.world
	base := at.Index - *next
	for *next < stop {
		p := unsafe.Add(s.base, uintptr(*off)*8)
		switch Verb(*(*uint32)(p)) {
		case VerbAdd, VerbSet, VerbRemove:
			r := w.ApplyValues(s.words[*off:s.n], stop-*next)
			if r.Records == 0 && *(*uint32)(p)>>24 == formBundle {
				r = w.PutRecords(s.words[*off:s.n], stop-*next) // Adds and Sets of bundles
			}
			if r.Records > 0 {
				c.report.Applied += r.Records
				c.report.Skipped += r.Dead
				c.report.NoopRemoves += r.NoopRemoves
				*next += r.Records
				*off += r.Words
				continue
			}
		case VerbCreate:
			if c.applyCreates(s, stop, next, off) { // runs of creates (bulk.go)
				continue
			}
			if done, err := c.applyCreateRun(Pos{Recorder: at.Recorder, Index: base + *next}, s, stop, next, off); done {
				if err != nil { // per-entity batching (batch.go)
					return err
				}
				continue
			}
		case VerbDestroy:
			if c.applyDestroys(s, stop, next, off) { // runs of destroys (bulk.go)
				continue
			}
		}
		if err := c.applyDecoded(Pos{Recorder: at.Recorder, Index: base + *next}, p); err != nil {
			return err
		}
		*off += recordLen(*(*uint32)(p))
		*next++
	}
	return nil
}

// applyDecoded applies the record at p through Apply.
//
//go:noinline
func (c *Core) applyDecoded(at Pos, p unsafe.Pointer) error {
	cmd, _ := decode(p)
	return c.Apply(at, &cmd)
}

// StreamSets returns how many of the n records at the start of words (a Stream's Words, or a
// part of them that starts at a record) are Sets, and how many records it read: n, or fewer
// when a record runs past words. A strategy that resyncs a second copy of the world from a
// batch it applied (versioned) estimates the batch's cost from it without decoding a record:
// a Set overwrites values in place, every other verb can find tables or move rows.
func StreamSets(words []uint64, n int) (sets, records int) {
	o := 0
	for ; records < n && o+headWords <= len(words); records++ {
		h := headAt(words, o)
		k := recordLen(h)
		if o+k > len(words) {
			break
		}
		if Verb(h) == VerbSet {
			sets++
		}
		o += k
	}
	return sets, records
}

// ReplayStream replays on w, a replica of the core's world, the n records at the start of
// words, which ApplyStream applied without error (see Replay, whose rules it follows record
// by record). It returns nil, or the index among the n of the record whose outcome differed
// and Replay's error. Runs of one-value Set, Add and Remove records on real handles go
// through w's ApplyValues, as ApplyStream's do; the rest is decoded and replayed with Replay.
func (c *Core) ReplayStream(w *ecs.World, words []uint64, n int) (int, error) {
	for i, o := 0, 0; i < n; {
		if o+headWords > len(words) || o+recordLen(headAt(words, o)) > len(words) {
			return i, fmt.Errorf("replay: record %d runs past the stream: %w", i, ErrInvalidCommand)
		}
		switch Verb(headAt(words, o)) {
		case VerbAdd, VerbSet, VerbRemove:
			r := w.ApplyValues(words[o:], n-i)
			if r.Records == 0 && headAt(words, o)>>24 == formBundle {
				r = w.PutRecords(words[o:], n-i)
			}
			if r.Records > 0 {
				i, o = i+r.Records, o+r.Words
				continue
			}
		case VerbCreate:
			if done, recs, used, err := c.replayCreates(w, words[o:], n-i); done { // runs of creates (bulk.go)
				if err != nil {
					return i + recs, err
				}
				i, o = i+recs, o+used
				continue
			}
			if done, recs, used, err := c.replayCreateRun(w, words, o, n-i); done { // batching (batch.go)
				if err != nil {
					return i, err
				}
				i, o = i+recs, o+used
				continue
			}
		case VerbDestroy:
			if r := w.DestroyRecords(words[o:], n-i); r.Records > 0 { // runs of destroys
				i, o = i+r.Records, o+r.Words
				continue
			}
		}
		p := unsafe.Pointer(&words[o])
		if err := c.replayDecoded(w, p); err != nil {
			return i, err
		}
		o += recordLen(*(*uint32)(p))
		i++
	}
	return 0, nil
}

//go:noinline
func (c *Core) replayDecoded(w *ecs.World, p unsafe.Pointer) error {
	cmd, _ := decode(p)
	return c.Replay(w, &cmd)
}

// The verbs ecs.World.ApplyValues applies are deferral's.
var (
	_ = [1]struct{}{}[int(VerbAdd)-ecs.RecordAdd]
	_ = [1]struct{}{}[int(VerbRemove)-ecs.RecordRemove]
	_ = [1]struct{}{}[int(VerbSet)-ecs.RecordSet]
)
