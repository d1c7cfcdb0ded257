package ecs

import "fmt"

// placeholderBit marks a handle's generation field as a placeholder. Real generations use the
// low 31 bits only.
const placeholderBit = 1 << 31

// maxGeneration marks a retired slot: destroying an entity of generation maxGeneration-1 (the
// last one a slot normally carries) retires its slot instead of freeing it for reuse, so a
// stale handle can never alias a wrapped generation.
const maxGeneration = placeholderBit - 1

// Entity is a generational handle: 12 bytes naming a world, a slot and the slot's generation.
// The zero Entity is empty. A handle from another World is foreign; a handle whose slot was
// freed is dead, and stale once the slot is reused with a newer generation. Entities are
// comparable values and may be kept after the entity dies; World calls then report it.
//
// A placeholder is an Entity minted by a deferral strategy for a create that has not been
// applied yet; see NewPlaceholder. Every World call refuses placeholders.
type Entity struct {
	world uint32
	slot  uint32
	gen   uint32
}

// IsZero reports whether e is the empty handle.
func (e Entity) IsZero() bool { return e == Entity{} }

// IsPlaceholder reports whether e is a placeholder rather than a real entity handle.
func (e Entity) IsPlaceholder() bool { return e.gen&placeholderBit != 0 }

// Slot returns the storage slot of a real handle (0 for the empty handle).
func (e Entity) Slot() uint32 { return e.slot }

// Generation returns the generation of a real handle (0 for the empty handle).
func (e Entity) Generation() uint32 { return e.gen &^ placeholderBit }

// WorldID returns the id of the World that issued e (0 for the empty handle). For a
// placeholder it is the owner id passed to NewPlaceholder.
func (e Entity) WorldID() uint32 { return e.world }

// String formats e as "e<world>:<slot>v<gen>", a placeholder as "p<owner>:<hi>.<lo>".
func (e Entity) String() string {
	switch {
	case e.IsZero():
		return "e<empty>"
	case e.IsPlaceholder():
		return fmt.Sprintf("p%d:%d.%d", e.world, e.slot, e.gen&^placeholderBit)
	default:
		return fmt.Sprintf("e%d:%dv%d", e.world, e.slot, e.gen)
	}
}

// NewPlaceholder returns a placeholder handle carrying an owner id (a deferral strategy
// instance) and two payload fields: hi (32 bits) and lo (31 bits; the top bit is dropped).
// The World refuses it with ErrPlaceholder; only its owner knows what it stands for.
func NewPlaceholder(owner, hi, lo uint32) Entity {
	return Entity{world: owner, slot: hi, gen: lo | placeholderBit}
}

// PlaceholderParts returns the owner and payload fields of a placeholder; ok is false for
// real and empty handles.
func (e Entity) PlaceholderParts() (owner, hi, lo uint32, ok bool) {
	if !e.IsPlaceholder() {
		return 0, 0, 0, false
	}
	return e.world, e.slot, e.gen &^ placeholderBit, true
}
