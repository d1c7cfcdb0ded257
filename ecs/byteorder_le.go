//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package ecs

// valueHead returns the first 8 bytes of a one-value Bundle, as one little-endian word: the
// count (1) in byte 0, the bytes used (used, a multiple of 8) in byte 1, the value's
// component id in byte 2 and zero ids after it. Component.Value writes it with one store.
func valueHead(id ComponentID, used uint8) uint64 {
	return 1 | uint64(used)<<8 | uint64(id)<<16
}

// headerOf returns a record's header from its first word w, loaded as one uint64: the word's
// first four bytes in memory.
func headerOf(w uint64) uint32 { return uint32(w) }
