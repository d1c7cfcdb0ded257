package ecs

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// column is one component type's storage in one World: a value per slot.
type column interface {
	grow(slots int)
	// validIn runs the component's validator on the i-th value of b.
	validIn(b Bundle, i int) bool
	// clear zeroes slot so that dead slots hold no references and hash alike.
	clear(slot uint32)
	// hash returns sum, a running FNV-1a digest (World.Hash), with slot's value added.
	hash(sum uint64, slot uint32) uint64
	// raw returns the column's untyped view (see rawColumn).
	raw() rawColumn
	// copyInto makes dst (a column of the same component, or nil) as long as the column, with
	// its first n values (all of them when n is at least its length; the rest are dst's old
	// values or zero), and returns it, allocating only when dst is nil or too short.
	copyInto(dst column, n int) column
	// storageBytes returns the bytes the column's value array holds (its capacity).
	storageBytes() int
}

// rawColumn is the untyped view of a column that World's hot paths use instead of an
// interface call per component: the address of the value array, the value size in bytes, and
// whether a validator must see new values. Bundles hold inline (pointer-free) values only, so
// copying one into the array is a plain byte copy. A World refreshes the view whenever the
// array moves (growth, creation, replica copies).
type rawColumn struct {
	base     unsafe.Pointer
	size     uintptr
	validate bool
	noPtrs   bool // pointer-free values: zero may clear them without the typed column
	// vlen is byte 1 of the header of a one-value record of the component, in place: the
	// value's size rounded up to whole words, in bytes (ApplyValues refuses a record of
	// another length, which would read past its value).
	vlen uint32
}

// zero clears slot's value of a pointer-free column (noPtrs), without an interface call.
func (r *rawColumn) zero(slot uint32) {
	dst := unsafe.Add(r.base, uintptr(slot)*r.size)
	switch r.size { // the common sizes as stores, without a memclr call
	case 4:
		*(*uint32)(dst) = 0
	case 8:
		*(*uint64)(dst) = 0
	case 16:
		*(*[2]uint64)(dst) = [2]uint64{}
	default:
		clear(unsafe.Slice((*byte)(dst), r.size))
	}
}

// put copies the size bytes at src into slot's value.
func (r *rawColumn) put(slot uint32, src unsafe.Pointer) {
	dst := unsafe.Add(r.base, uintptr(slot)*r.size)
	switch r.size { // the common sizes as moves, without a memmove call
	case 4:
		*(*uint32)(dst) = *(*uint32)(src)
	case 8:
		*(*[1]uint64)(dst) = *(*[1]uint64)(src)
	case 16:
		*(*[2]uint64)(dst) = *(*[2]uint64)(src)
	case 24:
		*(*[3]uint64)(dst) = *(*[3]uint64)(src)
	case 32:
		*(*[4]uint64)(dst) = *(*[4]uint64)(src)
	case 40:
		*(*[5]uint64)(dst) = *(*[5]uint64)(src)
	default:
		copy(unsafe.Slice((*byte)(dst), r.size), unsafe.Slice((*byte)(src), r.size))
	}
}

// zeroWord is zero for one-word values, 4 and 8 bytes, as one store; it reports false, and
// does nothing, for the others. Remove calls it and makes a call only for the rest, so that
// no call sits on its common path and its values stay in registers.
func (r *rawColumn) zeroWord(slot uint32) bool {
	dst := unsafe.Add(r.base, uintptr(slot)*r.size)
	switch r.size {
	case 4:
		*(*uint32)(dst) = 0
	case 8:
		*(*uint64)(dst) = 0
	default:
		return false
	}
	return true
}

// putWord is put for one-word values, as zeroWord is zero.
func (r *rawColumn) putWord(slot uint32, src unsafe.Pointer) bool {
	dst := unsafe.Add(r.base, uintptr(slot)*r.size)
	switch r.size {
	case 4:
		*(*uint32)(dst) = *(*uint32)(src)
	case 8:
		*(*uint64)(dst) = *(*uint64)(src)
	default:
		return false
	}
	return true
}

// typedColumn stores values of T indexed by slot.
type typedColumn[T any] struct {
	info  *componentInfo
	valid func(T) bool
	data  []T
}

func (c *typedColumn[T]) raw() rawColumn {
	return rawColumn{base: unsafe.Pointer(unsafe.SliceData(c.data)), size: c.info.size, validate: c.valid != nil, noPtrs: c.info.noPtrs,
		vlen: uint32(c.info.size+7) &^ 7 << 8}
}

func (c *typedColumn[T]) grow(slots int) {
	if slots > len(c.data) {
		c.data = append(c.data, make([]T, slots-len(c.data))...)
	}
}

func (c *typedColumn[T]) validIn(b Bundle, i int) bool {
	return c.valid == nil || c.valid(*(*T)(unsafe.Pointer(&b.data[b.offs[i]])))
}

func (c *typedColumn[T]) clear(slot uint32) {
	var zero T
	c.data[slot] = zero
}

func (c *typedColumn[T]) hash(sum uint64, slot uint32) uint64 {
	if c.info.noPtrs {
		// Pointer-free: the bytes are the value, but for its padding, whose bytes are not.
		if n := c.info.size; n > 0 {
			b := unsafe.Slice((*byte)(unsafe.Pointer(&c.data[slot])), n)
			if pad := c.info.pad; pad != nil {
				for i, x := range b {
					sum ^= uint64(x & pad[i])
					sum *= fnvPrime64
				}
				return sum
			}
			sum = fnvAdd(sum, b)
		}
		return sum
	}
	var buf [8]byte
	s := fmt.Sprintf("%#v", c.data[slot])
	binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
	return fnvAdd(fnvAdd(sum, buf[:]), []byte(s))
}

// Writer writes one component's values for a run of deferred commands: a deferral strategy's
// commit resolves it once per run of one-value Set, Add and Remove commands of the same
// component, then each command is a liveness and generation check, a mask test and a copy.
// A call that needs more — a missing column, a validator, a value of a component the entity
// lacks (Set), a structural change while a query iterates, a component that holds pointers
// (Remove) — reports done == false and changes nothing; the caller then takes the checked
// path (TrySet, TryUpsert, TryRemove), which formats the error.
type Writer struct {
	w    *World
	base unsafe.Pointer
	size uintptr
	bit  Mask
	put  bool // the column exists and has no validator (slot storage)
	zero bool // the column exists and its values hold no pointers (slot storage)
	// On archetype storage put and zero are false, so every call takes its out-of-line
	// path, which writes the entity's row (archetype.go): aput when the column exists, has
	// no validator and holds no pointers, acol when it exists.
	aput, acol bool
	id         ComponentID
	vlen       uint32 // rawColumn.vlen
}

// Writer returns the writer of component id; see Writer. The World keeps it current as its
// storage moves, so resolving it is a pointer load.
func (w *World) Writer(id ComponentID) *Writer {
	if id >= MaxComponents {
		return &w.noWriter // no component has it: Set and Upsert take the checked path
	}
	return &w.writers[id]
}

// setWriter refreshes id's writer from its untyped view.
func (w *World) setWriter(id ComponentID) {
	r, bit := &w.raw[id], Mask(1)<<id
	put, zero := w.hasCol&bit != 0 && w.validated&bit == 0, w.hasCol&bit != 0 && r.noPtrs
	w.writers[id] = Writer{w: w, base: r.base, size: r.size, bit: bit, id: id, vlen: r.vlen,
		put: put && w.arch == nil, zero: zero && w.arch == nil,
		aput: put && r.noPtrs && w.arch != nil, acol: w.hasCol&bit != 0 && w.arch != nil}
}

// Set overwrites e's value with the size bytes at src (a value of the component's type),
// when e is a live entity of the world that has the component: live reports whether e is
// live (a dead or stale target changes nothing and is done); done is false when the checked
// path must decide (see Writer).
func (x *Writer) Set(e Entity, src unsafe.Pointer) (live, done bool) {
	w := x.w
	if !w.isLive(e) {
		return false, true
	}
	if !x.put || w.masks[e.slot]&x.bit == 0 {
		return true, w.arch != nil && x.archSet(e.slot, src)
	}
	x.copy(e.slot, src)
	w.changes++
	return true, true
}

// Upsert is Set that also adds the component when e lacks it (the lenient Add), unless a
// query iterates (done == false).
func (x *Writer) Upsert(e Entity, src unsafe.Pointer) (live, done bool) {
	w := x.w
	if !w.isLive(e) {
		return false, true
	}
	m := w.masks[e.slot]
	if !x.put || (m&x.bit == 0 && w.iters.Load() > 0) {
		return true, w.arch != nil && x.archUpsert(e.slot, src)
	}
	x.copy(e.slot, src)
	w.masks[e.slot] = m | x.bit
	w.changes++
	return true, true
}

// Remove takes the component from e when e is live and has it (had); see Writer for done.
func (x *Writer) Remove(e Entity) (live, had, done bool) {
	w := x.w
	if !w.isLive(e) {
		return false, false, true
	}
	m := w.masks[e.slot]
	if m&x.bit == 0 {
		return true, false, true
	}
	if !x.zero || w.iters.Load() > 0 {
		return true, true, w.arch != nil && x.archRemove(e.slot)
	}
	dst := unsafe.Add(x.base, uintptr(e.slot)*x.size)
	switch x.size {
	case 4:
		*(*uint32)(dst) = 0
	case 8:
		*(*uint64)(dst) = 0
	case 16:
		*(*[2]uint64)(dst) = [2]uint64{}
	default:
		clear(unsafe.Slice((*byte)(dst), x.size))
	}
	w.masks[e.slot] = m &^ x.bit
	w.changes++
	return true, true, true
}

// copy copies the value at src into slot.
func (x *Writer) copy(slot uint32, src unsafe.Pointer) {
	dst := unsafe.Add(x.base, uintptr(slot)*x.size)
	switch x.size { // the common sizes as moves, without a memmove call
	case 4:
		*(*uint32)(dst) = *(*uint32)(src)
	case 8:
		*(*uint64)(dst) = *(*uint64)(src)
	case 16:
		*(*[2]uint64)(dst) = *(*[2]uint64)(src)
	default:
		copyBytes(dst, src, x.size)
	}
}

// copyBytes copies n bytes from src to dst, out of line.
//
//go:noinline
func copyBytes(dst, src unsafe.Pointer, n uintptr) {
	copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
}

// The record verbs ApplyValues applies: the values of deferral's VerbAdd, VerbRemove and
// VerbSet (deferral holds its verbs to these).
const (
	RecordAdd    = 3
	RecordRemove = 4
	RecordSet    = 5
)

// valueRecord returns the length in words of the record with header h and target e, and
// whether ApplyValues may apply it: one test for the shape (form 0 and an id below
// MaxComponents (64) in the top ten bits, a verb from RecordAdd to RecordSet, a real
// handle). The caller checks that the whole record lies within its words.
func valueRecord(h uint32, e *Entity) (k int, ok bool) {
	k = 2 + int(h>>11&0x1f)
	return k, h&0xffc0_0000 == 0 && h&0xff-RecordAdd <= RecordSet-RecordAdd && e.gen&placeholderBit == 0
}

// ValueRun is what ApplyValues applied: Records records using Words words, of which Dead
// named no live entity of the world (they changed nothing) and NoopRemoves removed a component
// the entity lacked.
type ValueRun struct {
	Records, Words, Dead, NoopRemoves int
}

// ApplyValues applies, from the start of words, up to n one-value records of a deferred
// command stream, by the lenient rules of a commit, and returns what it applied. A record is
// a 4-byte header — byte 0 the verb (RecordAdd, RecordRemove or RecordSet), byte 1 the
// value's length in bytes (a multiple of 8), byte 2 the component id, byte 3 the form (0) —
// the 12-byte target Entity, and the value's words.
//
// Each record is a liveness and generation check, a mask test and a copy, with the column
// resolved through the component's Writer; a record on an entity that is not live is counted
// Dead and changes nothing. A run of records with one header (Sets or Adds of one component)
// and a run of record pairs (one verb, two components, one entity, entity after entity: an
// entity given or stripped of the same two components) resolve their columns once per run
// and go through a loop typed by the values' sizes. ApplyValues stops before the first record it cannot finish, so
// that the caller takes the checked path for it: another verb or form, a placeholder, an
// unknown component, a missing column, a validator, a Set of a component the entity lacks, a
// structural change while a query iterates, a Remove of a component holding pointers, or an
// Add or Set whose value's length (byte 1) is not the component's size rounded up to whole
// words (a hand-built record that would read past its value). It never fails and never panics
// on records of that shape, and reads no word past a record's length or past words.
func (w *World) ApplyValues(words []uint64, n int) (r ValueRun) {
	if w.arch != nil {
		return w.archApplyValues(words, n)
	}
	for {
		switch w.applyValues(words, n, &r) {
		case stopOdd:
			w.applyOdd(words, &r)
		case stopRun:
			w.applyRun(words, n, &r)
		case stopPairs:
			w.applyPairs(words, n, &r)
		default:
			w.changes += uint64(r.Records - r.Dead - r.NoopRemoves)
			return r
		}
	}
}

// Why applyValues returned.
const (
	stopDone  = iota // r.Records is n, or the record there needs the checked path
	stopOdd          // the record at r.Words passed the checks; its value takes a call (applyOdd)
	stopRun          // the record at r.Words has the header of the Set or Add just applied (applyRun)
	stopPairs        // the records from r.Words repeat the pair of records just applied (applyPairs)
)

// applyValues is ApplyValues on slot storage from record r.Records at word r.Words, without
// a call, so that its values stay in registers: it returns (stopOdd, stopRun) where a call
// is due; changes is left to the caller.
//
// The loop keeps the cursor and the bounds in locals and reads the world's arrays through
// their base addresses: every slot below len(liveGen) indexes masks too (one length for
// every per-slot array). What a record may do without the checked path is three masks,
// computed once: put (a column, no validator), add (put, and no query iterates: an Add may
// add the component) and zero (a pointer-free column, and no query iterates: a Remove may
// clear it). The counters of records that changed nothing stay in r, off the common path.
func (w *World) applyValues(words []uint64, n int, r *ValueRun) int {
	put, add, zero := w.hasCol&^w.validated, Mask(0), Mask(0)
	if w.iters.Load() == 0 {
		add, zero = put, w.zeroable
	}
	base := unsafe.Pointer(unsafe.SliceData(words))
	nw, o, left := len(words), r.Words, n-r.Records
	po := -1 // the word of the record before, when this loop applied it
	for ; left > 0 && o < nw; left-- {
		p := unsafe.Add(base, o*8)
		h := *(*uint32)(p)
		// One test for the shape: form 0, an id below 64 (the top ten bits clear) and a
		// verb from RecordAdd to RecordSet; a placeholder fails the liveness test.
		v, end := h&0xffc0_00ff-RecordAdd, o+2+int(h>>11&0x1f)
		if v > RecordSet-RecordAdd || end > nw {
			break
		}
		e := (*Entity)(unsafe.Add(p, 4))
		s := uintptr(e.slot)
		if e.world != w.id || s >= uintptr(len(w.liveGen)) || e.gen != *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.liveGen)), s*4)) {
			if e.gen&placeholderBit != 0 {
				break
			}
			r.Dead++
			o, po = end, -1
			continue
		}
		x := &w.writers[h>>16&0x3f]
		mp := (*Mask)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.masks)), s*8))
		if v == RecordRemove-RecordAdd {
			m := *mp
			if m&x.bit == 0 {
				r.NoopRemoves++
				o, po = end, -1
				continue
			}
			if zero&x.bit == 0 {
				break
			}
			dst, sz := unsafe.Add(x.base, s*x.size), x.size
			if sz == 16 {
				*(*[2]uint64)(dst) = [2]uint64{}
			} else if sz == 8 {
				*(*uint64)(dst) = 0
			} else if sz == 4 {
				*(*uint32)(dst) = 0
			} else {
				r.Records, r.Words = n-left, o
				return stopOdd
			}
			*mp = m &^ x.bit
		} else {
			// A Set needs the component; an Add adds it when add allows.
			m := *mp & put
			if v == RecordAdd-RecordAdd {
				m |= add
			}
			if m&x.bit == 0 || h&0xff00 != x.vlen { // the record's value is the component's size
				break
			}
			dst, src, sz := unsafe.Add(x.base, s*x.size), valueAt(p, h), x.size
			if sz == 16 {
				*(*[2]uint64)(dst) = *(*[2]uint64)(src)
			} else if sz == 8 {
				*(*uint64)(dst) = *(*uint64)(src)
			} else if sz == 4 {
				*(*uint32)(dst) = *(*uint32)(src)
			} else {
				r.Records, r.Words = n-left, o
				return stopOdd
			}
			*mp |= x.bit
			// A run of records with this header goes on without the decoding (applyRun).
			if end < nw && *(*uint32)(unsafe.Add(base, end*8)) == h && left > 1 {
				r.Records, r.Words = n-left+1, end
				return stopRun
			}
		}
		// The record before and this one, of one verb on one entity, and the next two
		// records with their headers: a run of such pairs (an entity given or stripped of
		// the same two components, entity after entity) goes on in applyPairs.
		if po >= 0 && left > 2 {
			hp, kp := *(*uint32)(unsafe.Add(base, po*8)), o-po
			if hp != h && uint8(hp) == uint8(h) && end+kp < nw && *(*Entity)(unsafe.Add(base, po*8+4)) == *e &&
				*(*uint32)(unsafe.Add(base, end*8)) == hp && *(*uint32)(unsafe.Add(base, (end+kp)*8)) == h {
				r.Records, r.Words = n-left+1, end
				return stopPairs
			}
		}
		o, po = end, o
	}
	r.Records, r.Words = n-left, o
	return stopDone
}

// applyOdd applies the record at r.Words, which applyValues checked and returned as odd: its
// value is copied or cleared by a call.
//
//go:noinline
func (w *World) applyOdd(words []uint64, r *ValueRun) {
	p := unsafe.Pointer(&words[r.Words])
	h := *(*uint32)(p)
	s := (*Entity)(unsafe.Add(p, 4)).slot
	x := &w.writers[h>>16&0x3f]
	dst := unsafe.Add(x.base, uintptr(s)*x.size)
	if h&0xff == RecordRemove {
		clear(unsafe.Slice((*byte)(dst), x.size))
		w.masks[s] &^= x.bit
	} else {
		copyBytes(dst, valueAt(p, h), x.size)
		w.masks[s] |= x.bit
	}
	r.Records++
	r.Words += 2 + int(h>>11&0x1f)
}

// clear zeroes the value of slot.
func (x *Writer) clear(slot uint32) {
	dst := unsafe.Add(x.base, uintptr(slot)*x.size)
	switch x.size {
	case 4:
		*(*uint32)(dst) = 0
	case 8:
		*(*uint64)(dst) = 0
	case 16:
		*(*[2]uint64)(dst) = [2]uint64{}
	default:
		clear(unsafe.Slice((*byte)(dst), x.size))
	}
}
