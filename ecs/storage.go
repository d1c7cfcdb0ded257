package ecs

import "fmt"

// Storage is how a World lays out its component values; choose it with WithStorage. Both
// storages implement the whole World API with the same results, errors and Hash; they differ
// in cost and in the order queries visit entities (see the package documentation).
type Storage uint8

const (
	// Slots, the default, keeps one array per component indexed by slot, and a component
	// mask per slot: Add and Remove flip a mask bit and write or clear one value, queries
	// walk the live entities in creation order and test each mask.
	Slots Storage = iota
	// Archetypes keeps one table per component set (an archetype), with a dense column per
	// component: Add and Remove move the entity's row to the table of its new set and
	// swap-remove its old row, queries walk only the tables whose set matches.
	Archetypes
)

// String returns "slots" or "archetypes", the names ParseStorage accepts.
func (s Storage) String() string {
	switch s {
	case Slots:
		return "slots"
	case Archetypes:
		return "archetypes"
	default:
		return fmt.Sprintf("storage#%d", uint8(s))
	}
}

// ParseStorage returns the Storage named s ("slots" or "archetypes"). Errors: an error naming
// s and the accepted names.
func ParseStorage(s string) (Storage, error) {
	switch s {
	case "slots":
		return Slots, nil
	case "archetypes":
		return Archetypes, nil
	}
	return 0, fmt.Errorf("unknown storage %q: use slots or archetypes", s)
}

// Option configures NewWorld; WithStorage makes one.
type Option func(*worldConfig)

type worldConfig struct{ storage Storage }

// WithStorage selects the world's storage (Slots when the option is absent). It panics for a
// value that is neither Slots nor Archetypes.
func WithStorage(s Storage) Option {
	if s != Slots && s != Archetypes {
		panic(fmt.Sprintf("ecs: WithStorage(%v): use ecs.Slots or ecs.Archetypes", s))
	}
	return func(c *worldConfig) { c.storage = s }
}

// Storage returns the storage w was created with (a replica has its world's).
func (w *World) Storage() Storage {
	if w.arch != nil {
		return Archetypes
	}
	return Slots
}

// Moves returns the number of rows w moved from one table to another since it was created:
// one per Add, Upsert or Remove that changed an entity's component set (however many
// components it added or removed), on archetype storage; always 0 on slot storage, which moves
// nothing. Destroy's swap-remove, which refills the freed row with the table's last row, is
// not a move between tables and is not counted. A replica starts with its world's count, and
// CopyFrom copies it.
func (w *World) Moves() uint64 {
	if w.arch == nil {
		return 0
	}
	return w.arch.moves
}

// BulkRows returns the number of rows w's bulk table operations handled since it was
// created, on archetype storage: rows moved from one table to another together (a commit's
// run of entities of one table making the same change, PutRecords and ApplyValues), appended
// to one table together (CreateRecords' run of creates of one bundle shape) or swap-removed
// from one table together (DestroyRecords' run of destroys of entities of one table), each
// counted when its operation handles two rows or more; always 0 on slot storage, and 0
// whatever is applied when every change is made one call at a time (Create, Destroy, Add,
// Upsert, Set, Remove). The state, Moves, Placements, Hash and Changes are those of the calls
// made one by one: BulkRows is the one count that tells the two apart. A replica starts with
// its world's count, and CopyFrom copies it.
func (w *World) BulkRows() uint64 {
	if w.arch == nil {
		return 0
	}
	return w.arch.bulk
}

// Placements returns the number of rows w's creates placed into tables since it was created,
// on archetype storage: one per entity created, in the table of its final component set
// (always 0 on slot storage). Placements + Moves is the rows written into tables: what a
// spawn — a create and components added through its placeholder — costs, 1 when a commit
// applies it as one create and 1 + one per Add when applied one by one. A replica starts with
// its world's count, and CopyFrom copies it.
func (w *World) Placements() uint64 {
	if w.arch == nil {
		return 0
	}
	return w.arch.placed
}
