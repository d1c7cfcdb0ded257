//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package deferral

// bundleHead2 returns the first 16 bytes of the ecs.Bundle a.Value(va).With(b.Value(vb))
// holds, as two little-endian words: the count (2) in byte 0, the bytes used in byte 1, the
// ids in bytes 2 and 3, zero ids after them; the word offsets of the values, 0 and offB, in
// bytes 8 and 9, zeros after them. Create2 writes them with two stores.
func bundleHead2(used, ida, idb, offB uint8) (w0, w1 uint64) {
	return 2 | uint64(used)<<8 | uint64(ida)<<16 | uint64(idb)<<24, uint64(offB) << 8
}

// oneValueMask and oneValue test an ecs.Bundle's first word for one value of at most 24 bytes:
// w&oneValueMask == oneValue when the count (byte 0) is 1, the bytes used (byte 1) are 0, 8,
// 16 or 24, and there is no second id (byte 3).
const oneValueMask, oneValue = 0xff00e7ff, 1

// valueHeader returns the first four bytes of an ecs.Bundle's first word w — count, bytes
// used, first id, second id, from the lowest byte up — as the record header they start: the
// id in bits 16–23, the value's words in bits 11 and 12 (bytes used / 8).
func valueHeader(w uint64) uint32 { return uint32(w) }
