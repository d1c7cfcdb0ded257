package deferral

import "github.com/deferbench/deferbench/ecs"

// Strategy is one deferral strategy bound to one ecs.World: it mints recorders, commits what
// they staged, and answers for the commit. Recorders stage from any goroutines (each recorder
// from one at a time); every other method is called from one goroutine, the owner's, at a
// sync point where no recorder is staging.
type Strategy interface {
	// Name returns the strategy's name as used in benchmark names ("cmdbuffer", …).
	Name() string
	// Capabilities declares what the strategy guarantees; the conformance suite asserts it.
	Capabilities() Capabilities
	// World returns the target the strategy commits to.
	World() *ecs.World
	// NewRecorder mints a recorder, numbered after the ones minted before it.
	NewRecorder() *Recorder
	// Commit applies every pending command per the lenient rules and the strategy's order.
	// Errors: *CommandError (the failure policy applies), ErrClosed, ErrReentry.
	Commit() error
	// Pending returns the number of staged commands not yet applied, counting those staged
	// after Close, which a closed strategy drops instead of storing once the room it had
	// allocated is full.
	Pending() int
	// Discard drops every pending command and returns how many it dropped. Placeholders
	// staged before it will never resolve.
	Discard() int
	// Resolve answers what a placeholder became in the last commit. Errors:
	// ErrNotPlaceholder, ErrForeignPlaceholder, ErrUnresolved, ErrCulled.
	Resolve(p ecs.Entity) (ecs.Entity, error)
	// TakeReport returns the receipts accumulated since the last TakeReport and resets them.
	// Report.Created stays valid until the next TakeReport (its storage is reused so that
	// commits allocate nothing in steady state); clone it to keep it longer.
	// Errors: ErrPending while commands are pending.
	TakeReport() (Report, error)
	// Close releases the strategy. Errors: ErrPendingAtClose while commands are pending (the
	// strategy stays open); closing twice is a no-op. Commands staged after Close are never
	// applied: staging them still returns no error and touches nothing, Commit refuses them
	// with ErrClosed, Pending counts them and Discard drops them, and the strategy's storage
	// does not grow for them (a command that finds no room allocated before Close is dropped
	// and only counted; see Core.Dropped).
	Close() error
}

// Factory makes a strategy bound to w. The conformance suite and the harness take one per
// strategy.
type Factory func(w *ecs.World) Strategy

// Capabilities is what a strategy declares about itself. A design that cannot honour a
// contract point says so here, and the conformance suite asserts the declared behaviour
// instead of skipping it.
type Capabilities struct {
	// ReproducibleOrder: the cross-recorder apply order is a function of what was staged
	// (sort key, recorder number, FIFO), not of goroutine timing. False means only FIFO within
	// one recorder is guaranteed.
	ReproducibleOrder bool
	// SortKeys: Recorder.SetSortKey orders the commit (key first, then recorder, then FIFO).
	// False means keys are recorded but ignored.
	SortKeys bool
	// Order describes the cross-recorder apply order in words, for reports.
	Order string
	// ReadsPreviousVersion: the strategy implements VersionReader, and a read through it sees
	// the last published version, never staged commands nor a commit in progress, and
	// runs concurrently with staging and with the next commit. False: reads of the world are
	// the owner's business at a sync point (or the strategy's own read path, e.g. lazyguarded).
	ReadsPreviousVersion bool
	// ReadsWaitForStaged: a read of the target can wait behind staged writes that are not
	// yet committed (lazyguarded's ReadersWait pipe). False: staging never blocks a read.
	ReadsWaitForStaged bool
	// Reads describes in words how reads of the target relate to staging and commit, for
	// reports.
	Reads string
	// TypedAllocationFree: once its buffers have grown to a frame's size, staging and
	// committing one-value typed commands (Recorder.Set, Add, Remove; deferral.Set, Add)
	// allocates nothing. False: the design allocates per command (lazyguarded's tasks).
	TypedAllocationFree bool
	// BatchesPerEntity: a commit applies each run of commit-order-adjacent structural
	// commands naming one entity as the entity's net change — on archetype storage one row
	// move (none when the set does not change), or, for a create followed by commands on its
	// placeholder, the row placed straight into the table of its final set — where one-by-one
	// application moves the row once per command that changes the set (ecs.World.Moves counts
	// the difference). The receipts, failure positions, lenient outcomes, resolutions, final
	// state and Hash are exactly those of one-by-one application; see "Per-entity batching" in
	// the package documentation for what a run is. False: commands apply one by one.
	BatchesPerEntity bool
	// BulkRuns: a commit applies runs of consecutive commands that make the same change —
	// creates of one bundle shape, destroys, bundle Adds and Sets entity after entity,
	// entities of one table making one change — as bulk table operations
	// (ecs.World.CreateRecords, DestroyRecords, PutRecords, ApplyValues): on archetype storage
	// one transition looked up once and the run's rows moved, appended or swap-removed
	// together, which ecs.World.BulkRows counts. The receipts, failure positions, lenient
	// outcomes, resolutions, final state, row order, Hash, Changes and Moves are exactly those
	// of one-by-one application; only costs and BulkRows differ. False: each command applies
	// through the world's one-at-a-time calls (BulkRows does not grow).
	BulkRuns bool
}

// VersionReader is implemented by strategies that declare Capabilities.ReadsPreviousVersion.
// Read runs fn on the last published version of the target, from any goroutine, while
// recorders stage and while the owner commits; fn must only read the world it is given and
// must not keep it after returning. Read returns fn's error; a nil fn does not panic: Read
// returns an error wrapping ErrInvalidCommand.
type VersionReader interface {
	Read(fn func(w *ecs.World) error) error
}

// Report is the receipts of one or more commits, accumulated until taken.
type Report struct {
	Created         []ecs.Entity // entities created, in apply order
	Destroyed       int          // entities destroyed
	IgnoredDestroys int          // destroys of dead, stale, foreign or empty handles, or repeated
	IgnoredCreates  int          // creates culled by a validator
	Skipped         int          // commands naming an entity that was not alive or a placeholder not resolved
	NoopRemoves     int          // removes of a component the entity lacked
	Applied         int          // commands consumed, whatever their outcome
}
