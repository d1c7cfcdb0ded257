//go:build mips || mips64 || ppc64 || s390x

package ecs

// valueHead returns the first 8 bytes of a one-value Bundle, as one big-endian word: the
// count (1) in byte 0, the bytes used (used, a multiple of 8) in byte 1, the value's
// component id in byte 2 and zero ids after it. Component.Value writes it with one store.
func valueHead(id ComponentID, used uint8) uint64 {
	return 1<<56 | uint64(used)<<48 | uint64(id)<<40
}

// headerOf returns a record's header from its first word w, loaded as one uint64: the word's
// first four bytes in memory.
func headerOf(w uint64) uint32 { return uint32(w >> 32) }
