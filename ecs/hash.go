package ecs

// Hash returns a 64-bit FNV-1a digest of the whole state: live entities in creation order,
// with slot, generation, component set and component values (raw bytes for pointer-free
// components, less the padding inside a value, whose bytes a copy of the value carries from
// wherever it was built; their Go syntax otherwise). Two worlds that received the same operations in the
// same order hash alike, in any process on any machine of the same byte order and word size
// (a value's bytes follow its layout, which a uint64 field's alignment changes), whatever their
// storage (slots or archetypes: the table layout is not part of the digest); the world id is
// not part of the digest.
func (w *World) Hash() uint64 {
	sum := fnvOffset64
	var buf [16]byte
	for _, slot := range w.order {
		if slot == tombstone {
			continue
		}
		m := w.masks[slot]
		putU32(buf[0:], slot)
		putU32(buf[4:], w.gens[slot])
		putU64(buf[8:], uint64(m))
		sum = fnvAdd(sum, buf[:])
		if w.arch != nil {
			l := w.arch.loc[slot]
			t := w.arch.tables[l.t]
			for ; m != 0; m &= m - 1 {
				sum = t.cols[trailingZeros(m)].hash(sum, l.row)
			}
			continue
		}
		for ; m != 0; m &= m - 1 {
			sum = w.cols[trailingZeros(m)].hash(sum, slot)
		}
	}
	return sum
}

// FNV-1a, 64-bit, as hash/fnv's New64a computes it, kept as a running sum: a value passed
// through the column interface and back, where a hash.Hash64 passed through it would be
// allocated, and Hash allocates nothing on a world of pointer-free values.
const (
	fnvOffset64 uint64 = 14695981039346656037
	fnvPrime64  uint64 = 1099511628211
)

// fnvAdd returns sum with the bytes of b added.
func fnvAdd(sum uint64, b []byte) uint64 {
	for _, c := range b {
		sum ^= uint64(c)
		sum *= fnvPrime64
	}
	return sum
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func putU64(b []byte, v uint64) { putU32(b, uint32(v)); putU32(b[4:], uint32(v>>32)) }
