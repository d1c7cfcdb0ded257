// Package deferral is the contract every deferbench strategy honours: the ECS command set
// (five verbs and a closure tier), the lenient rules a commit applies them by, placeholders,
// the commit report, and the failure policy. It imports only the standard library and ecs.
//
// # Vocabulary
//
// A strategy stages commands through recorders without touching the target (the ecs.World),
// and commits them at a sync point. A recorder belongs to one goroutine at a time; a strategy
// mints as many as there are producers. A staged create returns a placeholder; after the
// commit, Resolve says what it became.
//
// # Lenient commit
//
// A recorder cannot look at the world, so redundant commands are normal at commit:
//
//	Add of a component the entity has              overwrites the value
//	Remove of a component it lacks                 no-op, counted in Report.NoopRemoves
//	Destroy of a dead/stale/foreign/empty handle,
//	  or a second Destroy                          ignored, counted in Report.IgnoredDestroys
//	any other command naming an entity that is
//	  not alive (e.g. destroyed earlier in the
//	  same commit)                                 skipped, counted in Report.Skipped
//	a command naming a placeholder whose create
//	  is not applied yet, was culled, or belongs
//	  to an earlier commit or another strategy     skipped, counted in Report.Skipped
//	Set of a component the entity lacks            error: *CommandError wrapping ecs.ErrMissingComponent
//	Create with a value its validator rejects      culled: no entity, counted in Report.IgnoredCreates
//
// # Failure policy: committed prefix, retained suffix
//
// A commit applies one command at a time and drops it only after it applied and its receipt
// was recorded. When command k fails, the commands before it stay applied with their receipts,
// k and everything after it stay pending, and the error (a *CommandError) names k. Commit again
// to retry: it applies only what is pending, never the prefix. Discard drops what is pending.
// Closing a strategy with pending commands is ErrPendingAtClose, a lost write.
//
// # Shared machinery
//
// Strategies differ in how they stage, store and order commands; applying one command is the
// same for all of them and lives here, in Core. A strategy keeps one Core, mints Recorders with
// Core.NewRecorder over its own Sink, and calls Core.Begin, Core.Apply and Core.End from its
// commit.
package deferral
