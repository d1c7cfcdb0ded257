package ecs

import (
	"encoding/binary"
	"fmt"
	"hash"
	"unsafe"
)

// column is one component type's storage in one World: a value per slot.
type column interface {
	grow(slots int)
	// setFrom copies the i-th value of b into slot. b travels by value: a pointer passed to
	// an interface method escapes, which would cost an allocation per World call.
	setFrom(slot uint32, b Bundle, i int)
	// validIn runs the component's validator on the i-th value of b.
	validIn(b Bundle, i int) bool
	// clear zeroes slot so that dead slots hold no references and hash alike.
	clear(slot uint32)
	// hash writes slot's value to h.
	hash(h hash.Hash64, slot uint32)
}

// typedColumn stores values of T indexed by slot.
type typedColumn[T any] struct {
	info  *componentInfo
	valid func(T) bool
	data  []T
}

func (c *typedColumn[T]) grow(slots int) {
	if slots > len(c.data) {
		c.data = append(c.data, make([]T, slots-len(c.data))...)
	}
}

func (c *typedColumn[T]) setFrom(slot uint32, b Bundle, i int) {
	c.data[slot] = *(*T)(unsafe.Pointer(&b.data[b.offs[i]]))
}

func (c *typedColumn[T]) validIn(b Bundle, i int) bool {
	return c.valid == nil || c.valid(*(*T)(unsafe.Pointer(&b.data[b.offs[i]])))
}

func (c *typedColumn[T]) clear(slot uint32) {
	var zero T
	c.data[slot] = zero
}

func (c *typedColumn[T]) hash(h hash.Hash64, slot uint32) {
	if c.info.noPtrs {
		// Pointer-free: the bytes are the value.
		if n := c.info.size; n > 0 {
			h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&c.data[slot])), n))
		}
		return
	}
	var buf [8]byte
	s := fmt.Sprintf("%#v", c.data[slot])
	binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
	h.Write(buf[:])
	h.Write([]byte(s))
}
