// Package cmdbuffer is design 2 of deferbench: per-recorder command buffers with typed
// commands and a deterministic commit.
//
// A Buffer defers writes to a target of any type T. Producers stage through recorders the
// buffer mints, one per producer goroutine; each recorder owns private storage, so staging
// takes no lock and touches nothing shared. Commands come in two tiers, after Unreal's RHI
// command lists (typed commands beside a lambda tier): the typed
// tier stores a plain command record C by value, contiguously, and is applied by one apply
// function; the closure tier stores a func(*T) error beside the records for whatever the typed
// records cannot say.
//
// Commit is one write over the target: a cache-warm sweep over the recorders' buffers in a
// fixed order — sort key, then recorder creation order, then FIFO within a recorder — that
// does not depend on goroutine timing (Unity's EntityCommandBuffer.ParallelWriter sortKey plays
// the same role). When no recorder set a sort key the sweep walks the buffers directly; when
// one did, commit builds and sorts an index of the pending commands first.
//
// Failure policy (deferral package doc): a commit that fails at command k keeps k and every
// command after it in the commit order pending; a retry resumes there. Buffers keep their
// capacity across commits; the sweep walks only what is pending.
//
// The ECS flavour, NewECS, binds a Buffer[ecs.World, deferral.Command] to a deferral.Core and
// implements deferral.Strategy.
package cmdbuffer
