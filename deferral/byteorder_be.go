//go:build mips || mips64 || ppc64 || s390x

package deferral

import "math/bits"

// bundleHead2 returns the first 16 bytes of the ecs.Bundle a.Value(va).With(b.Value(vb))
// holds, as two big-endian words: the count (2) in byte 0, the bytes used in byte 1, the ids
// in bytes 2 and 3, zero ids after them; the word offsets of the values, 0 and offB, in bytes
// 8 and 9, zeros after them. Create2 writes them with two stores.
func bundleHead2(used, ida, idb, offB uint8) (w0, w1 uint64) {
	return 2<<56 | uint64(used)<<48 | uint64(ida)<<40 | uint64(idb)<<32, uint64(offB) << 48
}

// oneValueMask and oneValue test an ecs.Bundle's first word for one value of at most 24 bytes:
// w&oneValueMask == oneValue when the count (byte 0) is 1, the bytes used (byte 1) are 0, 8,
// 16 or 24, and there is no second id (byte 3).
const oneValueMask, oneValue = 0xffe700ff << 32, 1 << 56

// valueHeader returns the first four bytes of an ecs.Bundle's first word w — count, bytes
// used, first id, second id — as the record header they start, from the lowest bit up: the
// id in bits 16–23, the value's words in bits 11 and 12 (bytes used / 8).
func valueHeader(w uint64) uint32 { return bits.ReverseBytes32(uint32(w >> 32)) }
