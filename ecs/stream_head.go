package ecs

import "unsafe"

// headAt returns the 4-byte header of the record at word o of words, as the stages write it:
// the first 4 bytes of the word in memory, whatever the machine's byte order (uint32(words[o])
// is those bytes on a little-endian machine only).
func headAt(words []uint64, o int) uint32 { return *(*uint32)(unsafe.Pointer(&words[o])) }

// valueAt returns the address of the value of the one-value record at p, of header h: p+16,
// or p itself for a record without value words (a tag's), whose p+16 may lie past the end of
// the words — an address not to be formed — and which a column of a value of no size never
// reads.
func valueAt(p unsafe.Pointer, h uint32) unsafe.Pointer {
	if h&0xff00 == 0 {
		return p
	}
	return unsafe.Add(p, 16)
}
