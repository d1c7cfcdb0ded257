// Package versioned is design 5 of deferbench: a double-buffered, versioned target whose
// readers never wait for writers. It is the command buffer's sibling: staging is cmdbuffer's
// (per-recorder private buffers, typed records plus a closure tier, commit order sort key, then
// recorder, then FIFO), and what a commit adds is a second replica of the world that readers
// read while the batch is applied to the first. The protocol is the Left-Right construction
// (Ramalhete and Correia, "Left-Right: A Concurrency Control Technique with Wait-Free
// Population Oblivious Reads", 2015): two instances, readers on one, the writer applying to
// the other, a pointer swap, a wait for the readers of the old instance to leave, and the same
// change applied again to the instance they left.
//
// # Replicas and the front
//
// NewECS takes the owner's world w and makes a second replica of it with ecs.World.Replica,
// which carries w's id, so every handle (and every placeholder's resolution) is valid in both.
// w stays the owner's: World returns it, commits apply to it, and the owner may read and write
// it directly at a sync point, as with every other strategy. The other replica is the readers':
// Read runs a function on the replica the front points at. A read takes no lock: it announces
// itself on that replica's reader count, checks that the front still points there (else it
// retries on the replica the front moved to) and leaves the count when done.
//
// # Publish
//
// Commit publishes a new version in three steps:
//
//  1. apply: the pending batch is applied to w in commit order through a deferral.Core
//     (placeholders, lenient rules, receipts), while readers keep reading the readers' replica;
//  2. swap: one atomic store points the front at w; readers that start now see the new
//     version. This is the only step readers can observe;
//  3. resync: Commit waits until no reader is left on the readers' replica, brings it to w's
//     state, points the front back at it (same version, so readers cannot tell) and waits
//     until no reader is left on w, which is then the owner's again.
//
// A reader therefore sees one whole version — the one before the commit or the one after —
// never a replica in the middle of an apply or a resync. There is no read-your-writes: a
// staged command is visible to readers after the commit that applies it, and to the owner
// through w as soon as it is applied. A read that runs for long delays the end of a commit (the
// resync waits for it), never the other way round; a read must not wait for the owner.
//
// # Resync policies
//
// Options.Resync chooses, per instance, how the readers' replica catches up:
//
//	ResyncAuto            (default) replay or copy, whichever a cost model rates cheaper for
//	                      this batch and this world: a replay costs about 30 instructions per
//	                      Set and 200 per other record (a create, destroy, add or remove finds
//	                      tables or moves rows), a copy about 500 plus one per 10 bytes of
//	                      the world's storage (ecs.World.StorageBytes); where the bounds
//	                      (every record a Set, none) do not decide, the share of Sets is read
//	                      from the batch's first 16 records. A batch that is large against
//	                      the world (a frame that creates, moves or sets most entities) is
//	                      copied, a small batch in a large world replayed.
//	                      Both leave the same replica; the model only chooses the cost. A batch
//	                      holding a closure, or following direct writes to w, is copied.
//	ResyncReplay          replay the batch's typed commands on it with
//	                      deferral.Core.Replay, at a cost proportional to the batch. Typed
//	                      commands are deterministic, so equal replicas stay equal. A batch
//	                      holding a closure, or following direct writes to w, is resynced by
//	                      copy instead: closures are opaque (running one twice would repeat its
//	                      side effects and its staging), and direct writes are not in the batch.
//	ResyncReplayClosures  replay closures too, running each once per replica: for closures
//	                      that are pure functions of the world they are given. A closure reading
//	                      wall time or a random source makes the replicas diverge.
//	ResyncCopy            copy w into the readers' replica (ecs.World.CopyFrom), at a cost
//	                      proportional to the world: for anything a replay cannot reproduce.
//
// Options.CheckDivergence compares the two replicas' hashes after every replay. A replay whose
// command has another outcome on the readers' replica than it had on w (a create making another
// handle, a strict error) is caught without it.
//
// # Keeping the replicas identical
//
// The design guarantees that the readers' replica holds exactly w's state after every commit:
// the replica starts as a copy of w; between two commits only the owner changes w, and every
// change that is not a typed command of the batch forces a copy — direct writes are seen by
// ecs.World.Changes (writes through ecs.Component.Ptr must be announced with
// ecs.World.MarkChanged), a closure in the batch forces it under ResyncAuto and ResyncReplay, a
// failing closure (which may have changed w before failing) forces it in its own commit, which
// publishes what it wrote even when no command before it succeeded, a panicking one at the
// next commit; a
// typed command applies only after Core.Apply succeeded on w, and Core.Apply changes nothing
// when it fails. When a replay still differs (a non-deterministic closure under
// ResyncReplayClosures, or a hash mismatch under CheckDivergence), Commit repairs the replica
// by copy before readers return to it and reports a *DivergenceError naming the version.
//
// # Failure policy and receipts
//
// As every strategy (deferral package documentation): when command k fails on w, the prefix
// stays applied with its receipts, and k and everything after it stay pending. The prefix is
// published as a version of its own — swap and resync run for it — so both replicas hold the
// committed prefix and never the suffix; a retry applies and publishes the suffix. Receipts
// (TakeReport, Resolve) are recorded once, by the apply on w; the resync records none.
//
// # Cost
//
// Memory: a second world (ReplicaBytes). Publish: the apply, plus a resync as costly as the
// apply (replay) or as a copy of the world (copy; the default takes the cheaper of the two by
// its cost model), plus two waits for readers. Stats splits the
// publish time into apply, swap and resync (the waits are in resync). A wait lasts as long as
// the longest read in flight; with more busy reader goroutines than processors, a reader the
// scheduler preempted inside Read holds the commit until it runs again (up to a scheduling
// quantum, milliseconds), which is why reads should be short and readers few. The reader that
// releases a waiting commit hands it its processor, so a commit never waits for a reader that
// already finished.
package versioned
