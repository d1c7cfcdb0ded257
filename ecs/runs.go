package ecs

import "unsafe"

// This file holds ApplyValues' typed loops on slot storage: runs of one header (applyRun,
// valueRun) and runs of record pairs on one entity (applyPairs and its loops).

// applyRun applies the records from r.Words on that have the header of the one before it, a
// Set or Add that applyValues applied (of a component with a column, no validator and a value
// of 4, 8 or 16 bytes), as long as each target is live and has the component; it leaves the
// rest to applyValues.
//
//go:noinline
func (w *World) applyRun(words []uint64, n int, r *ValueRun) {
	o := r.Words
	h := *(*uint32)(unsafe.Pointer(&words[o]))
	k := 2 + int(h>>11&0x1f)
	x := &w.writers[h>>16&0x3f]
	// The last word a record of the run may start at: within words, and within n records.
	lim := min(len(words)-k, o+(min(n-r.Records, len(words))-1)*k)
	// An Add run adds the component where it is missing, unless a query iterates (the
	// record before passed the column and validator tests).
	var grow Mask
	if h&0xff == RecordAdd && w.iters.Load() == 0 {
		grow = x.bit
	}
	var end int
	switch x.size {
	case 16:
		end = valueRun[[2]uint64](w, words, o, lim, k, h, x.bit, grow, x.base)
	case 8:
		end = valueRun[uint64](w, words, o, lim, k, h, x.bit, grow, x.base)
	default:
		end = valueRun[uint32](w, words, o, lim, k, h, x.bit, grow, x.base)
	}
	r.Records += (end - o) / k
	r.Words = end
}

// applyPairs applies the records from r.Words on that repeat, pair by pair, the two records
// before them, which applyValues applied: one-value records of one verb and two headers on one
// entity (components with a column, without a validator, of 4, 8 or 16 bytes; for a Remove,
// pointer-free), as long as each pair's entity is live and has both components or, for an
// Add while no query iterates, gets them. It leaves the rest to applyValues.
//
//go:noinline
func (w *World) applyPairs(words []uint64, n int, r *ValueRun) {
	o := r.Words
	hA := *(*uint32)(unsafe.Pointer(&words[o]))
	kA := 2 + int(hA>>11&0x1f)
	hB := *(*uint32)(unsafe.Pointer(&words[o+kA]))
	k := kA + 2 + int(hB>>11&0x1f)
	xA, xB := &w.writers[hA>>16&0x3f], &w.writers[hB>>16&0x3f]
	// The last word a pair may start at: within words, and within n records.
	lim := min(len(words)-k, o+(min((n-r.Records)/2, len(words))-1)*k)
	both, grow, rm := xA.bit|xB.bit, Mask(0), hA&0xff == RecordRemove
	if hA&0xff == RecordAdd && w.iters.Load() == 0 {
		grow = both
	}
	var end int
	switch xA.size {
	case 16:
		end = pairsOf[[2]uint64](w, words, o, lim, kA, k, hA, hB, both, grow, rm, xA.base, xB.base, xB.size)
	case 8:
		end = pairsOf[uint64](w, words, o, lim, kA, k, hA, hB, both, grow, rm, xA.base, xB.base, xB.size)
	default:
		end = pairsOf[uint32](w, words, o, lim, kA, k, hA, hB, both, grow, rm, xA.base, xB.base, xB.size)
	}
	r.Records += 2 * ((end - o) / k)
	r.Words = end
}

// pairsOf is applyPairs for a first value of type A: it picks the loop by the verb and the
// second value's size.
func pairsOf[A any](w *World, words []uint64, o, lim, kA, k int, hA, hB uint32, both, grow Mask, rm bool, colA, colB unsafe.Pointer, sizeB uintptr) int {
	switch {
	case rm && sizeB == 16:
		return removePairs[A, [2]uint64](w, words, o, lim, kA, k, hA, hB, both, colA, colB)
	case rm && sizeB == 8:
		return removePairs[A, uint64](w, words, o, lim, kA, k, hA, hB, both, colA, colB)
	case rm:
		return removePairs[A, uint32](w, words, o, lim, kA, k, hA, hB, both, colA, colB)
	case sizeB == 16:
		return putPairs[A, [2]uint64](w, words, o, lim, kA, k, hA, hB, both, grow, colA, colB)
	case sizeB == 8:
		return putPairs[A, uint64](w, words, o, lim, kA, k, hA, hB, both, grow, colA, colB)
	default:
		return putPairs[A, uint32](w, words, o, lim, kA, k, hA, hB, both, grow, colA, colB)
	}
}

// pairAt returns the slot of the pair of records at p and q when their first words are a
// and b (headWord: the headers and the world's id), they name one slot, and the entity is
// live there at the records' generation (gens and slots: the world's liveGen, read once by
// the caller); ok is false otherwise. A record's second word holds
// the slot and the generation, so three word compares test both headers and the entity.
func pairAt(p, q unsafe.Pointer, a, b uint64, gens unsafe.Pointer, slots uintptr) (s uintptr, ok bool) {
	e := (*Entity)(unsafe.Add(p, 4))
	s = uintptr(e.slot)
	return s, *(*uint64)(p) == a && *(*uint64)(q) == b && *(*uint64)(unsafe.Add(p, 8)) == *(*uint64)(unsafe.Add(q, 8)) &&
		s < slots && e.gen == *(*uint32)(unsafe.Add(gens, s*4))
}

// headWord returns the first word of a record with header h on an entity of world id, in the
// machine's byte order.
func headWord(h, id uint32) uint64 {
	var x uint64
	*(*[2]uint32)(unsafe.Pointer(&x)) = [2]uint32{h, id}
	return x
}

// putPairs is applyPairs' loop for Sets and Adds: per pair the header and entity compares
// and one liveness and generation check (pairAt), one mask test and update, and two moves. An
// entity lacking either component gets both when grow (both bits) allows, and ends the run
// otherwise. It returns the word after the last pair it applied.
func putPairs[A, B any](w *World, words []uint64, o, lim, kA, k int, hA, hB uint32, both, grow Mask, colA, colB unsafe.Pointer) int {
	// Records of an A and a B have constant lengths (as in valueRun): a constant stride.
	if kA != recordWords[A]() || k != kA+recordWords[B]() {
		return o
	}
	kA, k = recordWords[A](), recordWords[A]()+recordWords[B]()
	base, a, b := unsafe.Pointer(unsafe.SliceData(words)), headWord(hA, w.id), headWord(hB, w.id)
	// The world's slices, read once (as in valueRun).
	gens, slots, masks := unsafe.Pointer(unsafe.SliceData(w.liveGen)), uintptr(len(w.liveGen)), unsafe.Pointer(unsafe.SliceData(w.masks))
	for ; o <= lim; o += k {
		p := unsafe.Add(base, o*8)
		q := unsafe.Add(p, kA*8)
		s, ok := pairAt(p, q, a, b, gens, slots)
		if !ok {
			break
		}
		mp := (*Mask)(unsafe.Add(masks, s*8))
		if m := *mp; m&both != both {
			if grow == 0 {
				break
			}
			*mp = m | grow
		}
		*(*A)(unsafe.Add(colA, s*unsafe.Sizeof(*new(A)))) = *(*A)(unsafe.Add(p, 16))
		*(*B)(unsafe.Add(colB, s*unsafe.Sizeof(*new(B)))) = *(*B)(unsafe.Add(q, 16))
	}
	return o
}

// removePairs is applyPairs' loop for Removes: as putPairs, with zeros moved and both bits
// dropped; an entity lacking either component ends the run.
func removePairs[A, B any](w *World, words []uint64, o, lim, kA, k int, hA, hB uint32, both Mask, colA, colB unsafe.Pointer) int {
	// A Remove record is its two words (a hand-built one that carries a value is left to
	// applyValues): a constant stride.
	if kA != 2 || k != 4 {
		return o
	}
	kA, k = 2, 4
	base, a, b := unsafe.Pointer(unsafe.SliceData(words)), headWord(hA, w.id), headWord(hB, w.id)
	gens, slots, masks := unsafe.Pointer(unsafe.SliceData(w.liveGen)), uintptr(len(w.liveGen)), unsafe.Pointer(unsafe.SliceData(w.masks))
	for ; o <= lim; o += k {
		s, ok := pairAt(unsafe.Add(base, o*8), unsafe.Add(base, (o+kA)*8), a, b, gens, slots)
		if !ok {
			break
		}
		mp := (*Mask)(unsafe.Add(masks, s*8))
		m := *mp
		if m&both != both {
			break
		}
		*(*A)(unsafe.Add(colA, s*unsafe.Sizeof(*new(A)))) = *new(A)
		*(*B)(unsafe.Add(colB, s*unsafe.Sizeof(*new(B)))) = *new(B)
		*mp = m &^ both
	}
	return o
}

// valueRun is applyRun's loop for values of type T: a header compare, a liveness and
// generation check, a mask test and a move per record. A target that lacks the component
// gets it when grow (its bit) allows, and ends the run otherwise. It returns the word after
// the last record it applied.
func valueRun[T any](w *World, words []uint64, o, lim, k int, h uint32, bit, grow Mask, col unsafe.Pointer) int {
	// A record of a T is 2 + T's words long (ApplyValues takes no Add or Set whose length is
	// not its component's): a constant stride, which frees a register in the loop.
	if k != recordWords[T]() {
		return o
	}
	k = recordWords[T]()
	base, hw := unsafe.Pointer(unsafe.SliceData(words)), headWord(h, w.id)
	// The world's slices, read once: the loop writes masks' elements and the column, never
	// the slice headers, which the compiler would otherwise reload after every store.
	gens, slots, masks := unsafe.Pointer(unsafe.SliceData(w.liveGen)), uintptr(len(w.liveGen)), unsafe.Pointer(unsafe.SliceData(w.masks))
	for ; o <= lim; o += k {
		p := unsafe.Add(base, o*8)
		e := (*Entity)(unsafe.Add(p, 4))
		s := uintptr(e.slot)
		if *(*uint64)(p) != hw || s >= slots || e.gen != *(*uint32)(unsafe.Add(gens, s*4)) {
			break
		}
		if mp := (*Mask)(unsafe.Add(masks, s*8)); *mp&bit == 0 {
			if grow == 0 {
				break
			}
			*mp |= grow
		}
		*(*T)(unsafe.Add(col, s*unsafe.Sizeof(*new(T)))) = *(*T)(unsafe.Add(p, 16))
	}
	return o
}

// recordWords returns the length in words of a one-value record of a T: the two words of
// header and entity, and T's bytes rounded up to whole words.
func recordWords[T any]() int { return 2 + int((unsafe.Sizeof(*new(T))+7)/8) }
