package ecs

import "unsafe"

// headAt returns the 4-byte header of the record at word o of words, as the stages write it:
// the first 4 bytes of the word in memory, whatever the machine's byte order (uint32(words[o])
// is those bytes on a little-endian machine only).
func headAt(words []uint64, o int) uint32 { return *(*uint32)(unsafe.Pointer(&words[o])) }
