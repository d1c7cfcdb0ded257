package versioned

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

// Resync is how a commit brings the readers' replica to the new version.
type Resync uint8

// The resync policies; see the package documentation.
const (
	ResyncAuto           Resync = iota // replay or copy, whichever the cost model rates cheaper; copy after closures or direct writes
	ResyncReplay                       // replay typed commands; copy after closures or direct writes
	ResyncReplayClosures               // replay closures too (they must be pure)
	ResyncCopy                         // always copy the world
)

var resyncNames = [...]string{"auto", "replay", "replay-closures", "copy"}

// String returns "auto", "replay", "replay-closures" or "copy".
func (r Resync) String() string {
	if int(r) < len(resyncNames) {
		return resyncNames[r]
	}
	return fmt.Sprintf("resync(%d)", uint8(r))
}

// Options configure one strategy instance. The zero Options are the default: ResyncAuto,
// no divergence check.
type Options struct {
	// Resync is how a commit brings the readers' replica to the new version: ResyncAuto (the
	// zero value), ResyncReplay, ResyncReplayClosures or ResyncCopy.
	Resync Resync
	// CheckDivergence compares the replicas' ecs.World.Hash after every replay (a cost
	// proportional to the world) and reports a mismatch as a *DivergenceError.
	CheckDivergence bool
}

// DivergenceError is Commit's error when the readers' replica came out of a replay different
// from the owner's world. The batch was committed and published (nothing is pending because of
// it), and the replica was repaired by copy before readers returned to it; the error says the
// replay policy does not fit the batch's closures. errors.Is(err, deferral.ErrDiverged) holds.
type DivergenceError struct {
	Version uint64       // the version (number of the publish) whose resync diverged
	Pos     deferral.Pos // the replayed command that differed; zero when Hash is set
	Hash    bool         // found by the hash comparison of Options.CheckDivergence
	Err     error        // the cause (the replay's or the hash check's error)
}

// DivergedAt returns the position of the replayed command whose replay differed, and false
// when the hash comparison found the divergence (no one command is named). It implements
// conformance.DivergencePositioner.
func (e *DivergenceError) DivergedAt() (deferral.Pos, bool) { return e.Pos, !e.Hash }

// Error returns "versioned: publish of version V: ...: cause; replica repaired by copy".
func (e *DivergenceError) Error() string {
	where := fmt.Sprintf("replay of recorder %d command %d", e.Pos.Recorder, e.Pos.Index)
	if e.Hash {
		where = "hash check after the replay"
	}
	return fmt.Sprintf("versioned: publish of version %d: %s: %v; replica repaired by copy", e.Version, where, e.Err)
}

// Unwrap returns the cause.
func (e *DivergenceError) Unwrap() error { return e.Err }

// Is reports whether target is deferral.ErrDiverged, so that errors.Is(err,
// deferral.ErrDiverged) holds for every divergence, whatever its cause wraps (a replay that
// ran past its records wraps deferral.ErrInvalidCommand, not ErrDiverged).
func (e *DivergenceError) Is(target error) bool { return target == deferral.ErrDiverged }

// Stats are the cumulative costs of an instance's publishes, in wall time.
type Stats struct {
	Publishes int           // commits that published a version
	Replays   int           // resyncs by replay
	Copies    int           // resyncs by copy (policy, closures, direct writes or repair)
	Apply     time.Duration // applying batches to the owner's world
	Swap      time.Duration // pointing the front at the new version
	Resync    time.Duration // waiting for readers, resyncing, swapping back, waiting again
}

// replica is one of the two worlds with its reader count.
type replica struct {
	w       *ecs.World
	version uint64       // the version w holds; written only while no reader can be on it
	readers atomic.Int64 // readers announced on this replica
	// draining is set while a commit waits for this replica's readers to leave; the reader
	// that brings readers to zero then posts to wake, so the commit sleeps instead of spinning
	// against readers for the CPU.
	draining atomic.Bool
	wake     chan struct{}
	_        [64]byte // keeps the two replicas' counts off one cache line
}

// leave ends a read announced on r. The reader that lets a waiting commit go on also yields
// its processor to it: with more busy readers than processors, the woken commit would
// otherwise wait for the scheduler to preempt a reader (milliseconds) before it could run.
func (r *replica) leave() {
	if r.readers.Add(-1) == 0 && r.draining.Load() {
		select {
		case r.wake <- struct{}{}:
			runtime.Gosched()
		default: // a wake-up is already posted
		}
	}
}

// drain waits until no reader is left on r; the front no longer points at r, so readers that
// arrive now leave at once.
//
// The flag is raised by a read-modify-write (Swap), not a Store. The handshake is Dekker's:
// the commit writes the front and the flag and then reads the count, a reader changes the
// count and then reads the front or the flag, and each must see the other's write. Go's
// atomics guarantee that, but qemu-user running arm64 code on an x86 host turns an arm64
// store-release followed by a load-acquire into a plain store and a plain load, which the
// host may reorder: both sides missed each other (a lost wake-up that parked the commit
// forever) about once in 3000 commits. An atomic read-modify-write is a full barrier there
// as on every board, and costs one instruction more per publish.
func (r *replica) drain() {
	r.draining.Swap(true)
	for r.readers.Load() != 0 {
		<-r.wake // posted by the reader that brought the count to zero (maybe an earlier one)
	}
	r.draining.Store(false)
}

// step is what the running publish applied at one go: a run of n records of a recorder's
// record stream (words, kept there until the publish ends, cmdbuffer.Buffer.SetRetain), one
// typed record of a keyed commit, or a closure.
type step struct {
	at    deferral.Pos
	words []uint64
	n     int
	cmd   *deferral.Command
	fn    func(*ecs.World) error
}

// ECS is the versioned strategy for an ecs.World. It implements deferral.Strategy and
// deferral.VersionReader. Recorders stage from any goroutines, one recorder per goroutine;
// Read runs on any goroutine at any time; every other method runs on the owner's goroutine.
type ECS struct {
	core *deferral.Core
	buf  *cmdbuffer.Buffer[ecs.World, deferral.Command]
	mint sync.Mutex // numbers the buffer recorder and the deferral.Recorder as one step
	opts Options

	own, pub *replica                // the owner's world and the readers' replica
	front    atomic.Pointer[replica] // what readers read

	log      []step             // the running publish's applied commands, in commit order
	logWM    deferral.Watermark // shrinks log after a spike
	closures bool               // log holds a closure
	synced   uint64             // own.w.Changes() when pub last equalled own
	stale    bool               // pub is known to differ from own (a closure failed or panicked on own)
	version  uint64             // versions published
	stats    Stats
}

var (
	_ deferral.Strategy      = (*ECS)(nil)
	_ deferral.VersionReader = (*ECS)(nil)
)

// Factory makes the versioned strategy for w with the default Options.
var Factory deferral.Factory = func(w *ecs.World) deferral.Strategy { return NewECS(w, Options{}) }

// FactoryCopy makes the versioned strategy for w with ResyncCopy.
var FactoryCopy deferral.Factory = func(w *ecs.World) deferral.Strategy {
	return NewECS(w, Options{Resync: ResyncCopy})
}

// NewECS returns the versioned strategy over w, the owner's world, with a readers' replica
// made from it (ecs.World.Replica) as version 0. It panics on an unknown Options.Resync.
func NewECS(w *ecs.World, opts Options) *ECS {
	if int(opts.Resync) >= len(resyncNames) {
		panic(fmt.Sprintf("versioned: unknown resync policy %d", opts.Resync))
	}
	core := deferral.NewCore(w)
	s := &ECS{core: core, opts: opts,
		own: &replica{w: w, wake: make(chan struct{}, 1)},
		pub: &replica{w: w.Replica(), wake: make(chan struct{}, 1)}}
	// The readers' replica replays what the owner's world validated: no validator runs on
	// it again (a validator with state would refuse the replayed value).
	s.pub.w.TrustValues(true)
	s.synced = w.Changes()
	s.front.Store(s.pub)
	s.buf = cmdbuffer.New(w, func(_ *ecs.World, at deferral.Pos, c *deferral.Command) error {
		if err := core.Apply(at, c); err != nil {
			return err
		}
		s.log = append(s.log, step{at: at, cmd: c})
		return nil
	})
	s.buf.SetStream(func(_ *ecs.World, at deferral.Pos, st *deferral.Stream, stop int, next, off *int) error {
		start, from := *next, *off
		err := core.ApplyStream(at, st, stop, next, off)
		if *next > start {
			s.log = append(s.log, step{at: at, words: st.Words()[from:*off], n: *next - start})
		}
		return err
	}, deferral.AppendCommands)
	s.buf.SetClosureRunner(func(_ *ecs.World, at deferral.Pos, fn func(*ecs.World) error) error {
		s.closures = true
		if err := core.ApplyFunc(at, fn); err != nil {
			s.stale = true // the closure may have changed w before failing
			return err
		}
		s.log = append(s.log, step{at: at, fn: fn})
		return nil
	})
	s.buf.SetRetain(true)
	return s
}

// Name returns "versioned".
func (s *ECS) Name() string { return "versioned" }

// UncheckedReplay reports whether a publish replays closures on the readers' replica without
// checking the result (Options.Resync is ResyncReplayClosures and Options.CheckDivergence is
// off): a closure whose replay writes other values than its run on the owner's world then
// leaves readers on a state the owner never had. It implements conformance.UncheckedReplayer.
func (s *ECS) UncheckedReplay() bool {
	return s.opts.Resync == ResyncReplayClosures && !s.opts.CheckDivergence
}

// Options returns the options the instance was made with.
func (s *ECS) Options() Options { return s.opts }

// Capabilities declares cmdbuffer's reproducible order and reads of the previous version.
func (s *ECS) Capabilities() deferral.Capabilities {
	return deferral.Capabilities{
		TypedAllocationFree:  true,
		BatchesPerEntity:     true,
		BulkRuns:             true,
		ReproducibleOrder:    true,
		SortKeys:             true,
		Order:                "sort key, then recorder creation order, then FIFO within a recorder",
		ReadsPreviousVersion: true,
		Reads:                "declares ReadsPreviousVersion: reads see the last published version and never wait for staging or a commit",
	}
}

// World returns the owner's world: the target commits apply to first, which the owner may read
// and write directly at a sync point. Readers use Read instead.
func (s *ECS) World() *ecs.World { return s.own.w }

// NewRecorder mints a recorder with its own private buffer. It may be called from any
// goroutine.
func (s *ECS) NewRecorder() *deferral.Recorder {
	s.mint.Lock()
	defer s.mint.Unlock()
	return s.core.NewRecorder(s.buf.NewRecorder())
}

// Read runs fn on the last published version, from any goroutine, without taking a lock: it
// never waits for staging or for a commit in progress (it may retry once per swap it races
// with). fn must only read the world and must not keep it, nor wait for the owner: a commit
// waits for the readers of the replica it resyncs. Read returns fn's error; a nil fn does
// not panic: Read returns an error wrapping deferral.ErrInvalidCommand.
func (s *ECS) Read(fn func(w *ecs.World) error) error {
	if fn == nil {
		return fmt.Errorf("versioned: read: nil function: %w", deferral.ErrInvalidCommand)
	}
	r := s.enter()
	defer r.leave()
	return fn(r.w)
}

// ReadVersion is Read that also passes the number of the version fn reads: 0 before the first
// publish, then one more per publish. A nil fn is refused as by Read.
func (s *ECS) ReadVersion(fn func(w *ecs.World, version uint64) error) error {
	if fn == nil {
		return fmt.Errorf("versioned: read version: nil function: %w", deferral.ErrInvalidCommand)
	}
	r := s.enter()
	defer r.leave()
	return fn(r.w, r.version)
}

// enter announces a reader on the replica the front points at and returns it.
func (s *ECS) enter() *replica {
	for {
		r := s.front.Load()
		r.readers.Add(1)
		if s.front.Load() == r {
			return r // the commit moving the front away will wait for this reader
		}
		r.leave() // the front moved meanwhile: the replica may be resyncing
	}
}

// Commit publishes the pending batch as a new version: apply to the owner's world, swap,
// resync the readers' replica (package documentation). Errors: *deferral.CommandError (the
// failure policy applies; the committed prefix is published), deferral.ErrClosed,
// deferral.ErrReentry, or *DivergenceError (the batch was committed; the replica was repaired).
// A closure that panics leaves itself and the rest pending, readers stay on the previous
// version, and the panic goes on to the caller. Commit waits for the reads in flight (Read), so
// a read's fn must never wait for a Commit, nor call one.
func (s *ECS) Commit() error {
	var diverged error
	err := s.core.Commit(func() error {
		var err error
		err, diverged = s.publish()
		return err
	})
	if diverged == nil {
		return err
	}
	return errors.Join(err, diverged)
}

// publish runs inside the core's commit; it returns the batch's error and the resync's.
func (s *ECS) publish() (err, diverged error) {
	direct := s.stale || s.own.w.Changes() != s.synced
	s.log, s.closures = s.log[:0], false
	finished := false
	defer func() {
		if !finished {
			s.stale = true // a closure panicked: w holds applied commands the replica lacks
		}
		clear(s.log) // no pointers into buffers or closures kept past the publish
		if c := s.logWM.Use(len(s.log), cap(s.log)); c > 0 {
			s.log = deferral.Shrink(s.log[:0], c) // after a spike (deferral.Watermark)
		}
	}()
	t0 := time.Now()
	err = s.buf.Commit()
	t1 := time.Now()
	s.stats.Apply += t1.Sub(t0)
	// Nothing new to publish only when nothing changed the owner's world: no command
	// succeeded, no direct write came before, and no closure that failed wrote before failing
	// (even as the batch's first command, with nothing before it to publish).
	if len(s.log) == 0 && !direct && s.own.w.Changes() == s.synced {
		finished = true
		s.buf.Release()
		return err, nil
	}
	s.version++
	s.own.version = s.version
	s.front.Store(s.own) // the swap: readers that start now see the new version
	t2 := time.Now()
	s.pub.drain()
	diverged = s.resync(direct || s.stale)
	s.pub.version = s.version
	s.front.Store(s.pub) // same version: readers cannot tell
	s.own.drain()
	s.stats.Swap += t2.Sub(t1)
	s.stats.Resync += time.Since(t2)
	s.stats.Publishes++
	s.synced, s.stale, finished = s.own.w.Changes(), false, true
	s.buf.Release()
	return err, diverged
}

// resync brings the readers' replica, which no reader holds, to the owner's world's state.
func (s *ECS) resync(direct bool) error {
	if direct || s.opts.Resync == ResyncCopy || (s.closures && s.opts.Resync != ResyncReplayClosures) ||
		s.opts.Resync == ResyncAuto && s.copyCheaper() {
		s.copyToReaders()
		return nil
	}
	s.stats.Replays++
	for _, st := range s.log {
		var err error
		at := st.at
		switch {
		case st.words != nil:
			var i int
			i, err = s.core.ReplayStream(s.pub.w, st.words, st.n)
			at.Index += i
		case st.cmd != nil:
			err = s.core.Replay(s.pub.w, st.cmd)
		default:
			err = replayClosure(s.pub.w, st.fn)
		}
		if err != nil {
			s.copyToReaders()
			return &DivergenceError{Version: s.version, Pos: at, Err: err}
		}
	}
	if s.opts.CheckDivergence {
		if got, want := s.pub.w.Hash(), s.own.w.Hash(); got != want {
			s.copyToReaders()
			return &DivergenceError{Version: s.version, Hash: true,
				Err: fmt.Errorf("replica hash %#x, world hash %#x: %w", got, want, deferral.ErrDiverged)}
		}
	}
	return nil
}

// The resync cost model of ResyncAuto, in instructions (amd64, counted under cachegrind with
// scripts/count-instr.sh): replaying a one-value Set costs about replaySet, any other record
// (a create, destroy, add or remove, which finds tables or moves rows) about replayOther; a
// copy (ecs.World.CopyFrom) costs about copyFixed plus one instruction per copyBytes bytes of
// the owner's world (ecs.World.StorageBytes). Measured: a copy of 256 entities with two 16-byte
// components (20 and 33 KB) 2,600 (slots) and 3,500 (archetypes), of 65,536 (3.8 and 4.7 MB)
// 378,000 and 456,000; a replayed Set 27 to 32; a replayed create or destroy 221 to 241, an
// add or remove 85 (slots) to 251 (archetypes).
const (
	replaySet   = 30
	replayOther = 200
	copyFixed   = 500
	copyBytes   = 10

	sampleRecords = 16 // records copyCheaper reads to estimate the share of Sets
)

// copyCheaper reports whether the cost model rates copying the owner's world into the readers'
// replica cheaper than replaying the batch's log on it. A batch whose replay costs less than a
// copy's fixed part even if every record is dear is replayed without looking at the world's
// size; one whose replay costs more than the copy even if every record is a Set is copied, and
// one whose replay costs less even if no record is a Set is replayed, neither reading a
// record. Otherwise the share of Sets is read from the first sampleRecords records (the walk
// would otherwise cost a fifth of replaying the Sets it counts). The model only chooses a
// cost: both resyncs leave the same replica.
func (s *ECS) copyCheaper() bool {
	records := 0
	for _, st := range s.log {
		records += max(st.n, 1)
	}
	if records*replayOther <= copyFixed {
		return false
	}
	cp := copyFixed + s.own.w.StorageBytes()/copyBytes
	switch {
	case records*replaySet > cp:
		return true
	case records*replayOther <= cp:
		return false
	}
	sampled, sets := 0, 0
	for _, st := range s.log {
		left := sampleRecords - sampled
		if left <= 0 {
			break
		}
		switch {
		case st.words != nil:
			k, n := deferral.StreamSets(st.words, min(st.n, left))
			sets, sampled = sets+k, sampled+n
		case st.cmd != nil:
			if st.cmd.Verb == deferral.VerbSet {
				sets++
			}
			sampled++
		default:
			sampled++
		}
	}
	if sampled == 0 {
		return false
	}
	return records*(sets*replaySet+(sampled-sets)*replayOther)/sampled > cp
}

// replayClosure runs a closure that succeeded on the owner's world on the readers' replica; an
// error or a panic is a divergence (the front is on the owner's world: a panic here must not
// leave it there).
func replayClosure(w *ecs.World, fn func(*ecs.World) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("replayed closure panicked: %v: %w", r, deferral.ErrDiverged)
		}
	}()
	// A closure runs again, user code that may branch on a refused value: the replica's
	// validators are on for it, as the owner's were.
	w.TrustValues(false)
	defer w.TrustValues(true)
	if err := fn(w); err != nil {
		return fmt.Errorf("replayed closure failed: %w: %w", deferral.ErrDiverged, err)
	}
	return nil
}

func (s *ECS) copyToReaders() {
	if err := s.pub.w.CopyFrom(s.own.w); err != nil {
		// Both are replicas of one world and no query holds the readers' replica (its
		// readers drained): unreachable unless a reader kept the world past its Read.
		panic(fmt.Sprintf("versioned: resync by copy: %v", err))
	}
	s.stats.Copies++
}

// Pending returns the number of staged commands not yet applied, those dropped after Close
// included (deferral.Core.Dropped).
func (s *ECS) Pending() int { return s.buf.Pending() + s.core.Dropped() }

// Discard drops every pending command and returns how many. From inside a commit (a closure
// command) it is refused: it drops nothing and returns 0.
func (s *ECS) Discard() int {
	return s.core.Discard(func() (int, bool) { return s.buf.Discard(), true })
}

// Resolve answers what a placeholder became in the last commit; the handle is valid in both
// replicas.
func (s *ECS) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }

// TakeReport returns and resets the receipts; deferral.ErrPending while commands are pending.
func (s *ECS) TakeReport() (deferral.Report, error) { return s.core.TakeReport(s.Pending()) }

// Close releases the strategy; deferral.ErrPendingAtClose while commands are pending. Read
// keeps working on the last version.
func (s *ECS) Close() error { return s.core.Close(s.Pending()) }

// Stats returns the cumulative publish costs. Call it from the owner's goroutine.
func (s *ECS) Stats() Stats { return s.stats }

// Version returns the number of versions published. Call it from the owner's goroutine;
// readers get theirs from ReadVersion. It implements conformance.VersionCounter.
func (s *ECS) Version() uint64 { return s.version }

// ReplicaBytes returns the storage of the readers' replica in bytes
// (ecs.World.StorageBytes): the memory cost of the second replica. Call it from the owner's
// goroutine.
func (s *ECS) ReplicaBytes() int { return s.pub.w.StorageBytes() }
