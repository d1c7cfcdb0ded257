// Package ecs is the entity-component world that deferbench's strategies defer changes to.
//
// # Outline
//
//   - [World] holds the entities: [NewWorld], then [World.Create], [World.Destroy],
//     [World.Add], [World.Set], [World.Upsert] and [World.Remove] change it, and
//     [World.TryUpsert], [World.TrySet] and [World.TryRemove] do so for a target that may
//     be gone (a deferred command's), without an error or an allocation; [World.Alive],
//     [World.Check], [World.Has] and [World.MaskOf] inspect a handle; [World.Query] and
//     [World.Entities] iterate, [NewQuery1] and [NewQuery2] likewise with typed column
//     pointers for hot loops; [World.Hash] digests the whole state; [World.Freeze] refuses
//     structural calls while decisions read.
//   - [World.ApplyValues] applies a deferred command stream's one-value records, and
//     [World.CreateValues] a create with the records naming its placeholder, each run of
//     records on one entity as its net change (per-entity batching, below); [World.TryChange]
//     is one net change in one call. [World.CreateRecords], [World.DestroyRecords] and
//     [World.PutRecords] apply runs of the stream's create, destroy and bundle Add and Set
//     records, each as the call record by record would, one bundle shape checked once; on
//     archetype storage entity after entity making one change from one table moves its rows
//     together, and creates of one shape append theirs together.
//   - [Storage] is the layout, chosen with [WithStorage]: [Slots] (the default) or
//     [Archetypes] (see Storage below); [World.Storage] reports it, [World.Moves] counts
//     archetype row moves.
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
// their component values, plus a 64-bit component mask per slot. The API is strict and
// immediate: every misuse returns a distinct sentinel error (match with errors.Is) and
// changes nothing.
//
// # Storage
//
// A World stores component values in one of two layouts, chosen when it is made
// (NewWorld(WithStorage(Archetypes)); Slots is the default). Both run the whole API with the
// same results, errors, handles, Changes and Hash; they differ in cost and query order.
//
//   - Slots: one array per component type indexed by slot. Add and Remove flip a mask bit and
//     write or clear one value, O(1) whatever the entity holds; Create and Destroy touch one
//     slot and the live-order list. Queries walk the live entities in creation order and
//     test each mask, so a query costs per live entity, matching or not. Iteration order is
//     creation order: a reused low slot is appended to the live order, it does not jump it.
//     Moves is always 0.
//   - Archetypes: one table per component set, with a dense column per component and a row
//     per entity; each slot records its table and row. Create places the entity straight into
//     the table of its final set. Add and Remove (and Upsert, Set through Component.Add, a
//     Writer, TryChange) that change the set move the row, once per call whatever the
//     bundle holds (ApplyValues: once per run of records naming one entity), to the table of
//     the new set, copying every value, and fill the old row
//     with the table's last row (swap-remove); Destroy swap-removes. The table reached by
//     adding or removing a component is cached per table and component (the archetype
//     graph's edges), so finding it is an array load. Queries walk only the tables whose set
//     matches, row by row: visiting an entity is a load and an index, and entities of other
//     sets cost nothing. Query order is table order — tables in the order the world first
//     needed them, each from its first row to its last — which moves as rows move; only
//     Entities and Query(0) keep creation order. Batching (below) moves fewer rows and
//     skips the component sets an entity passes through one call after another, so it may
//     make their tables later or never: on archetype storage the order of a Query other
//     than Query(0) is not part of what batched and one-by-one application share. Moves
//     counts the row moves.
//
// Per-entity batching: ApplyValues on archetype storage applies each run of adjacent records
// naming one entity that would all succeed one by one as the entity's net change, with at
// most one move, and CreateValues creates an entity together with the records naming its
// placeholder, its row placed in the table of its final set; state, receipts and Changes
// are those of one-by-one application, Moves counts only the moves made. Bulk runs: on
// archetype storage CreateRecords, DestroyRecords, PutRecords and ApplyValues move, append or
// swap-remove the rows of entity after entity making one change from one table together,
// the table found once; everything but cost is one by one's, and BulkRows counts the rows of
// such operations of two rows or more.
//
// Hash digests the logical state only, the same on both storages: the live entities in
// creation order (both storages keep the live order for it), each as slot, generation,
// component set and values. Set, Get and writes through Component.Ptr or a typed query
// never move a row, on either storage, and are allowed while a query iterates.
//
// The changes this project measures are structural changes: slot storage keeps them O(1),
// archetype storage gives them the cost they have in archetype engines (Unity, Flecs, Bevy,
// Ark), a row move per changing call, so that a strategy can be measured on both.
//
// Hot paths avoid a call per component: Create, Add, Set and Upsert test a whole bundle
// against the entity's mask with a few mask operations, copy its values through each column's
// untyped view (address and value size) instead of an interface call, and run a validator
// only for components registered with one; the typed queries' Next and
// Get inline, so visiting an entity is a slot load, a mask test and an index (a row index
// on archetype storage). Each World call tests the storage once; slot storage pays that
// one predictable branch and nothing else.
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
