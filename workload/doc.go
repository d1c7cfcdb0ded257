// Package workload holds the frame workloads that deferbench's harness and tests drive: a
// particle simulation over an ecs.World whose structural changes go through a deferral
// strategy, and a render queue, a generic (non-ECS) target for the strategies that defer to any
// T.
//
// # The particle frame
//
// A particle is an entity with Position, Velocity and Lifetime. Sim.Step runs one frame in a
// fixed order:
//
//  1. validate dt: NaN, ±Inf, zero or negative is ErrInvalidDt, and nothing changes;
//  2. refuse to start while a frame's decisions run (deferral.ErrReentry) or while the
//     strategy holds pending commands from a failed frame (deferral.ErrPending);
//  3. movement: Position += Velocity·dt for every entity having both;
//  4. lifetime: Remaining -= dt for every entity having Lifetime; those at or below zero
//     have expired;
//  5. intrinsic cleanup: the expired entities are destroyed with the strict World API (the
//     simulation's own rule, not a decision, so it needs no deferral);
//  6. decisions: a callback sees a read-only View of the survivors and stages changes
//     through a deferral.Recorder. The world is frozen meanwhile (ecs.World.Freeze), so a
//     structural World call fails with ecs.ErrIterating, and Step, Commit, Discard and
//     TakeReport of the Sim fail with deferral.ErrReentry;
//  7. commit: the strategy applies what was staged. Entities created here appear after the
//     commit and first move in the next frame.
//
// If a decision callback fails, the simulation has advanced (phases 3–5 ran), the staged
// commands stay pending and Step returns the callback's error wrapped; the caller then calls
// Sim.Commit to apply them or Sim.Discard to drop them, and only then may the next frame start.
// A failing commit follows the deferral failure policy (committed prefix, retained suffix) and
// is handled the same way.
//
// Sim.StepParallel runs the same frame with P producers: the survivors, in creation order, are
// cut into P contiguous chunks and each chunk's callback runs on its own goroutine with its own
// recorder, whose sort key is the chunk index. A strategy that commits in sort-key order thus
// reaches the same world whatever P and whatever the goroutine timing.
//
// # The benchmark's decisions
//
// Replace (and ReplaceSerial) is the decision rule of the Frame and Determinism scenarios: each
// survivor is destroyed with a given probability and replaced by a new particle. Every choice
// is a hash of the seed, the frame number and the entity's position, never of goroutine timing
// or a shared random source, so the result is a function of the seed. Some replacements get
// their Velocity through an Add staged on the placeholder, and about 1 in 64 gets a lifetime ≤
// 0, which the Lifetime validator rejects, so the commit culls that create and skips the
// commands naming its placeholder.
//
// Populate fills a world with seeded particles (math/rand/v2's PCG), reproducibly.
//
// # Structural changes per entity
//
// Two workloads stage several structural commands for one entity, adjacent in commit order,
// which together are one change of its component set: on archetype storage
// (ecs.WithStorage(ecs.Archetypes)) a commit that applies them one by one moves the entity's
// row once per command, one that merges them per entity moves it once. Spawn is a create
// carrying Position followed by two adds (Velocity, Lifetime) through its placeholder;
// EffectChurn toggles 1 to 3 of six status effects (the tags Stunned, Burning and Rooted, and
// Poisoned, Slowed and Shielded, which carry data) on each of its entities per frame, the
// choice a hash of the seed, the frame and the entity, so two runs with one seed stage the same
// commands.
//
// # The render queue
//
// RenderQueue is a plain slice of draw commands. ApplyDraw has the shape of a generic
// strategy's apply function, so a strategy over any T can defer Submit calls to it; Hash
// compares the queues two runs produced.
package workload
