//go:build mips || mips64 || ppc64 || s390x

package deferral

// bundleHead2 returns the first 16 bytes of the ecs.Bundle a.Value(va).With(b.Value(vb))
// holds, as two big-endian words: the count (2) in byte 0, the bytes used in byte 1, the ids
// in bytes 2 and 3, zero ids after them; the word offsets of the values, 0 and offB, in bytes
// 8 and 9, zeros after them. Create2 writes them with two stores.
func bundleHead2(used, ida, idb, offB uint8) (w0, w1 uint64) {
	return 2<<56 | uint64(used)<<48 | uint64(ida)<<40 | uint64(idb)<<32, uint64(offB) << 48
}
