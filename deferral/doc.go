// Package deferral is the contract every deferbench strategy honours: the ECS command set
// (five verbs and a closure tier), the lenient rules a commit applies them by, placeholders,
// the commit report, and the failure policy. It imports only the standard library and ecs.
//
// # Outline
//
//   - [Strategy] is one strategy bound to one [ecs.World]; a [Factory] makes one. What it
//     guarantees about order is in its [Capabilities].
//   - [Recorder] stages commands: [Recorder.Create], [Recorder.Destroy], [Recorder.Add],
//     [Recorder.Remove] ([Recorder.Remove2] for two), [Recorder.Set], the closure tier
//     [Recorder.Do], and hand-built [Command] records with [Recorder.Stage];
//     [Recorder.SetSortKey] sets the sort key.
//   - [Strategy.Commit] applies what is pending at a sync point; [Strategy.Resolve] says what
//     a placeholder became; [Strategy.TakeReport] returns the receipts as a [Report].
//   - A commit that stops at a command returns a [*CommandError] naming its [Pos]; the
//     sentinel errors ([ErrPending], [ErrClosed], [ErrReentry], [ErrUnresolved], …) match
//     with errors.Is.
//   - [Core] is the machinery strategies share: applying one command ([Core.Apply],
//     [Core.ApplyFunc]), placeholders and their resolutions, the report, the failure flag;
//     [Stager] and [Sink] are the recorder shape a strategy implements.
//
// The conformance suite (package github.com/deferbench/deferbench/conformance) asserts every
// rule below against any Factory.
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
//	Destroy of a real handle that is dead, stale,
//	  foreign or empty, or a second Destroy        ignored, counted in Report.IgnoredDestroys
//	any other command naming an entity that is
//	  not alive (e.g. destroyed earlier in the
//	  same commit)                                 skipped, counted in Report.Skipped
//	any command, Destroy included, naming a
//	  placeholder whose create is not applied
//	  yet, was culled or discarded, or belongs to
//	  an earlier commit or another strategy
//	  instance                                     skipped, counted in Report.Skipped
//	Set of a component the entity lacks            error: *CommandError wrapping ecs.ErrMissingComponent
//	Add or Set of a value the component's
//	  validator rejects                            error: *CommandError wrapping ecs.ErrInvalidValue
//	Create with a value its validator rejects      culled: no entity, counted in Report.IgnoredCreates
//	Create naming a placeholder that a create of
//	  the same commit already created or culled
//	  (a hand-built record, Recorder.Stage)        error: *CommandError wrapping ErrInvalidCommand
//
// A placeholder is never a dead handle: a Destroy naming one that does not resolve is skipped,
// not ignored. A rejected value is an error for Add and Set but not for Create because dropping
// a create changes nothing that exists (its placeholder answers ErrCulled and the commands
// naming it are skipped), while dropping an Add or Set would silently lose a write to an
// entity that exists.
//
// Every command consumed counts in Report.Applied, whatever its outcome. Report.Created lists
// the created entities in apply order; later commits do not change a taken Report, and its
// Created slice stays valid until the next TakeReport, which may reuse its storage.
//
// # Positions
//
// A [Pos] names a command by its recorder's number and its index in that recorder's FIFO,
// counted from 0 after the last commit that drained or the last Discard. Commands staged after
// a failed commit are numbered after the ones staged before it. A command a closure stages
// while a commit runs is applied by a later commit: when the running commit fails, by its retry,
// and it is numbered after the recorder's other commands since the last drained commit; when
// the running commit drains, by the next commit, and it is numbered from 0 there, before what
// the recorder stages after the commit.
//
// # Failure policy: committed prefix, retained suffix
//
// A commit applies one command at a time and drops it only after it applied and its receipt
// was recorded. When command k fails, the commands before it stay applied with their receipts,
// k and everything after it stay pending, and the error (a *CommandError) names k. Commit again
// to retry: it applies only what is pending, never the prefix; commands staged since join the
// pending ones in the strategy's order. Discard drops what is pending and leaves nothing of the
// failure behind. A closure that panics ends the commit as failed at itself; the panic goes on
// to the caller and the strategy stays usable. Closing a strategy with pending commands is
// ErrPendingAtClose, a lost write.
//
// Commands staged after Close are never applied, and never lost without a trace: Commit
// refuses them with ErrClosed, Pending counts them until Discard drops them. A closed
// strategy's storage does not grow for them: a recorder stores one only in room allocated
// before Close and drops (and counts) the rest, so a producer that keeps staging after Close
// costs no memory.
//
// # Resolutions
//
// Resolve answers what a placeholder became from the end of the commit that applied its create
// until the next commit starts (a failed commit and its retries count as one commit); staging
// and Discard in between do not end the answers. A placeholder of an earlier commit, or one
// whose create was discarded or has not applied, answers ErrUnresolved.
//
// # Per-entity batching
//
// On archetype storage a change of an entity's component set moves its row to another table
// (ecs.World.Moves counts the moves), so a commit that applied a spawn — a Create followed by
// two Adds on its placeholder — one command at a time would place the row and move it twice.
// Core.ApplyStream, the commit path of strategies that keep a recorder's commands in a
// Stream, applies each run of commit-order-adjacent commands naming one entity as the
// entity's net change instead:
//
//   - Add, Set and Remove of one value naming one live entity (Add + Add, Remove + Remove,
//     Add then Remove of one component, Remove then Add, Sets and no-op Removes among them):
//     at most one row move, to the table of the set the run ends with (none when the set
//     does not change), then the last value written to each component
//     (ecs.World.ApplyValues on archetype storage);
//   - a Create followed by such commands naming its placeholder: the row is placed straight
//     into the table of the final set (ecs.World.CreateValues), no move.
//
// Core.ReplayStream replays the runs the same way on a replica.
//
// Core.ApplyStream also applies runs of commands that need no resolution one by one without
// decoding them: one recorder's creates of consecutive placeholders, none followed by a
// command on its placeholder (ecs.World.CreateRecords), destroys of real handles
// (DestroyRecords), and Adds and Sets of bundles on real handles (PutRecords). Each stops
// before a command that needs the checked path (a validator, a new column, a duplicate, a
// Set of a missing component, a query iterating), which then applies one by one; receipts,
// resolutions, state, Hash, Changes and Moves are those of one-by-one application.
//
// A run ends at the first command that is not one of those or names another entity (a
// Destroy, a bundle, a closure, which is a barrier, the sync point of another recorder), and
// before the first command that could fail or run a user's code one by one: a Set of a
// component the entity lacks by then, an Add of a component with a validator, a structural
// change while a query iterates. So every command in a run succeeds, and the commit's
// receipts (Report: Created, Applied, Skipped, NoopRemoves, …), failure positions, lenient
// outcomes, resolutions, validator calls, final state, Hash and ecs.World.Changes are exactly
// those of applying the commands one at a time; only Moves is smaller. A create's validators
// run once, as Create runs them, and a culled create is culled as one by one. Commands a
// keyed commit (sort keys, hooks) orders apply one by one. A strategy whose commit batches
// declares Capabilities.BatchesPerEntity, and the conformance suite asserts both the net
// moves and the equivalence. A commit that applies runs of like commands of many entities
// (creates of one bundle shape, destroys, bundle Adds and Sets, one change of one table's
// entities) with the World's bulk calls declares Capabilities.BulkRuns; only costs and
// ecs.World.BulkRows tell it from one-by-one application, and the suite asserts both.
//
// # Shared machinery
//
// Strategies differ in how they stage, store and order commands; applying one command is the
// same for all of them and lives here, in Core. A strategy keeps one Core, mints Recorders with
// Core.NewRecorder over its own Sink, and calls Core.Begin, Core.Apply and Core.End from its
// commit. A strategy that keeps a second replica of the world (ecs.World.Replica) replays what
// Core.Apply applied with Core.Replay, which records nothing and reports ErrDiverged when the
// replica's outcome differs; Capabilities.ReadsPreviousVersion and VersionReader declare reads
// of the last published version.
package deferral
