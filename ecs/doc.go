// Package ecs is the entity-component world that deferbench's strategies defer changes to.
//
// # Outline
//
//   - [World] holds the entities: [NewWorld], then [World.Create], [World.Destroy],
//     [World.Add], [World.Set], [World.Upsert] and [World.Remove] change it, and
//     [World.TryUpsert], [World.TrySet] and [World.TryRemove] do so for a target that may
//     be gone (a deferred command's), without an error or an allocation; [World.Alive],
//     [World.Check], [World.Has] and [World.MaskOf] inspect a handle; [World.Query] and
//     [World.Entities] iterate in creation order, [NewQuery1] and [NewQuery2] likewise with
//     typed column pointers for hot loops; [World.Hash] digests the whole state;
//     [World.Freeze] refuses structural calls while decisions read.
//   - [Entity] is a generational handle; [NewPlaceholder] makes the handles deferral
//     strategies hand out before an entity exists ([Entity.IsPlaceholder]).
//   - [Component] is the typed handle of one registered component type ([NewComponent]):
//     [Component.Value] builds a one-value [Bundle], [Bundle.With] and [NewBundle] combine them;
//     [Component.Get], [Component.Ptr], [Component.Add] and [Component.Set] are the typed
//     shortcuts; [Mask] is a set of [ComponentID]s.
//   - Every misuse is a sentinel error: [ErrDead], [ErrStale], [ErrForeign], [ErrEmpty],
//     [ErrPlaceholder], [ErrMissingComponent], [ErrHasComponent], [ErrInvalidValue],
//     [ErrIterating], … (match with errors.Is).
//
// A World holds entities identified by generational handles (world, slot, generation) and
// component values stored in slot-indexed columns, one column per component type, plus a
// 64-bit component mask per slot. The API is strict and immediate: every misuse returns a
// distinct sentinel error (match with errors.Is) and changes nothing.
//
// Storage choice. Archetype tables (Unity, Flecs, Ark) make queries over dense rows fast but
// move a row to another table on every Add or Remove. The changes this project measures are
// exactly those structural changes, so the world keeps them O(1): Add and Remove flip a mask bit
// and write one column slot, Create and Destroy touch one slot and the live-order list. Queries
// walk the live-order list and test masks. Iteration order is creation order by construction:
// a reused low slot is appended to the live order, it does not jump it.
//
// Hot paths avoid a call per component: Create, Add, Set and Upsert test a whole bundle
// against the entity's mask with a few mask operations, copy its values through each column's
// untyped view (address and value size) instead of an interface call, and run a validator
// only for components registered with one; the typed queries' Next and
// Get inline, so visiting an entity is a slot load, a mask test and an index.
//
// Structural calls (Create, Destroy, Add, Remove) are refused with ErrIterating while a query
// is iterating; that refusal is why deferral exists. Set and Get are not structural and are
// allowed. Placeholders (handles minted by a deferral strategy for entities not yet created)
// are refused by every World call with ErrPlaceholder.
//
// Components are registered once per process with NewComponent, usually as package-level
// variables; at most 64 component types exist per process. A component whose type holds no
// pointers and is at most MaxInline bytes is inline: its values travel by value inside a Value
// or Bundle, which is how deferral stages typed commands without allocating.
//
// A World is not safe for concurrent use: one goroutine at a time may call it. Read-only calls
// (Get, Has, Alive, Query, Hash) may run concurrently with each other.
//
// Replicas. Replica makes a deep copy that carries the world's id, so handles are valid in both
// and the same calls keep both identical; CopyFrom brings one replica to another's state, and
// Changes counts changing calls so that a holder of a replica can tell whether the world moved.
// A double-buffered strategy (deferbench's versioned) lets readers read one replica while it
// applies changes to the other.
package ecs
