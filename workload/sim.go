package workload

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// Sentinel errors of the frame; match with errors.Is.
var (
	// ErrInvalidDt: a time step that is NaN, infinite, zero or negative. The frame did not
	// start: nothing changed.
	ErrInvalidDt = errors.New("invalid time step: dt must be finite and positive")
	// ErrInvalidProducers: StepParallel was asked for fewer than one producer. Nothing changed.
	ErrInvalidProducers = errors.New("invalid producer count: need at least one producer")
)

// Decisions is a frame's decision callback for one producer: it reads the survivors through v
// and stages structural changes through rec. It must not keep v or rec after it returns. An
// error it returns ends the frame without a commit; what it staged stays pending (see
// Sim.Step).
type Decisions func(v View, rec *deferral.Recorder) error

// ParallelDecisions is a frame's decision callback for one of several producers: chunk is the
// producer's number (0…P-1, also its recorder's sort key) and part its contiguous share of the
// survivors, in creation order. The callbacks of one frame run concurrently, each on its own
// goroutine with its own recorder; they may read v concurrently but must not share rec or
// write part.
type ParallelDecisions func(v View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error

// Sim runs the particle frame (see the package documentation) over a strategy's world. Create
// one with NewSim. A Sim is used from one goroutine, its owner's; only the decision callbacks
// of StepParallel run elsewhere. It mints its recorders from the strategy once, on first use,
// and reuses them every frame.
type Sim struct {
	w        *ecs.World
	strat    deferral.Strategy
	recs     []*deferral.Recorder
	frame    int
	expired  int
	deciding atomic.Bool
	// unfinished: the last frame's decisions or commit failed; the next frame is refused
	// while the commands it left are pending (a new frame after a failed one would bury them). Commands that closures staged for
	// the next commit during a successful commit do not block it.
	unfinished bool

	dead      []ecs.Entity // expired this frame; reused
	survivors []ecs.Entity // alive after cleanup, creation order; reused
	errs      []error      // per chunk; reused
	panics    []any        // per chunk; reused
}

// NewSim returns a Sim over strategy s and the world it commits to (s.World()). The Sim does
// not own s: closing it stays the caller's job.
func NewSim(s deferral.Strategy) *Sim {
	return &Sim{w: s.World(), strat: s}
}

// World returns the simulated world. Outside a frame the caller may read and change it
// directly (for example Populate it); inside decisions it is frozen.
func (s *Sim) World() *ecs.World { return s.w }

// Strategy returns the strategy the Sim commits through.
func (s *Sim) Strategy() deferral.Strategy { return s.strat }

// Frame returns the number of frames completed: frames whose decisions ran, whether or not
// they or their commit failed (the simulation advanced either way).
func (s *Sim) Frame() int { return s.frame }

// Expired returns the number of entities the last frame's intrinsic cleanup destroyed.
func (s *Sim) Expired() int { return s.expired }

// Step runs one frame of dt seconds with one producer: decide (which may be nil: no
// decisions) gets the View and the Sim's first recorder, with sort key 0. Errors:
//   - ErrInvalidDt (dt NaN, ±Inf, zero or negative), deferral.ErrReentry (called from
//     decisions), deferral.ErrPending (commands left pending by a failed frame: Commit or
//     Discard first), ecs.ErrIterating (called while a query of the world iterates): the
//     frame did not start and nothing changed;
//   - decide's error, wrapped: the simulation advanced, the staged commands stay pending;
//   - the commit's error (a *deferral.CommandError, match with errors.As): the failure policy
//     applies, the suffix stays pending.
//
// In the last two cases call Commit (retry) or Discard before the next Step.
func (s *Sim) Step(dt float64, decide Decisions) error {
	if err := s.precheck("step", dt); err != nil {
		return err
	}
	var run func(View) error
	if decide != nil {
		rec := s.recorders(1)[0]
		run = func(v View) error {
			rec.SetSortKey(0)
			return decide(v, rec)
		}
	}
	return s.frameBody(dt, run)
}

// StepParallel runs one frame of dt seconds with producers producers: the survivors, in
// creation order, are cut into producers contiguous chunks (some empty when there are fewer
// survivors than producers), and decide runs once per chunk, concurrently, each call on its
// own goroutine with the Sim's recorder of that number, whose sort key is set to the chunk
// number first. decide may be nil (no decisions). Errors: as Step, plus ErrInvalidProducers
// (producers < 1, nothing changed); the callbacks' errors are joined, each wrapped with its
// chunk number. A panic in a callback is re-raised on the caller's goroutine after every
// callback returned and the world was thawed.
func (s *Sim) StepParallel(dt float64, producers int, decide ParallelDecisions) error {
	if err := s.precheck("step parallel", dt); err != nil {
		return err
	}
	if producers < 1 {
		return fmt.Errorf("step parallel: producers %d: %w", producers, ErrInvalidProducers)
	}
	var run func(View) error
	if decide != nil {
		recs := s.recorders(producers)
		run = func(v View) error { return s.fanOut(v, recs[:producers], decide) }
	}
	return s.frameBody(dt, run)
}

// precheck refuses a frame that must not start; it changes nothing.
func (s *Sim) precheck(op string, dt float64) error {
	if math.IsNaN(dt) || math.IsInf(dt, 0) || dt <= 0 {
		return fmt.Errorf("%s: dt %v: %w", op, dt, ErrInvalidDt)
	}
	if s.deciding.Load() {
		return fmt.Errorf("%s: %w", op, deferral.ErrReentry)
	}
	if s.unfinished {
		if n := s.strat.Pending(); n > 0 {
			return fmt.Errorf("%s: %d commands pending after a failed frame: %w", op, n, deferral.ErrPending)
		}
		s.unfinished = false
	}
	if s.w.Iterating() {
		return fmt.Errorf("%s: %w", op, ecs.ErrIterating)
	}
	return nil
}

// recorders returns at least n recorders, minting the missing ones.
func (s *Sim) recorders(n int) []*deferral.Recorder {
	for len(s.recs) < n {
		s.recs = append(s.recs, s.strat.NewRecorder())
	}
	return s.recs
}

// frameBody runs movement, lifetime, cleanup, decisions and commit. dt was validated.
func (s *Sim) frameBody(dt float64, decide func(View) error) error {
	w := s.w
	Move(w, dt)
	dead := Age(w, dt, s.dead[:0])
	n, err := Cleanup(w, dead)
	s.expired, s.dead = n, dead[:0]
	if err != nil {
		return fmt.Errorf("frame %d: %w", s.frame, err)
	}
	// Decisions. Until the commit succeeds the frame is unfinished, whatever ends it (an
	// error or a panic in a callback or a closure).
	s.unfinished = true
	frame := s.frame
	if decide != nil {
		survivors := Survivors(w, s.survivors[:0])
		s.survivors = survivors
		if err := s.decide(View{w: w, survivors: survivors, frame: frame}, decide); err != nil {
			return fmt.Errorf("frame %d: decisions: %w", frame, err)
		}
	} else {
		s.frame++
	}
	// Commit.
	if err := s.strat.Commit(); err != nil {
		return fmt.Errorf("frame %d: %w", frame, err)
	}
	s.unfinished = false
	return nil
}

// decide runs fn with the world frozen and the Sim refusing reentry; the frame counts as
// completed however fn ends.
func (s *Sim) decide(v View, fn func(View) error) error {
	thaw := s.w.Freeze()
	s.deciding.Store(true)
	defer func() {
		s.deciding.Store(false)
		thaw()
		s.frame++
	}()
	return fn(v)
}

// fanOut runs decide once per recorder on its own goroutine (the last on the caller's) and
// waits for all of them.
func (s *Sim) fanOut(v View, recs []*deferral.Recorder, decide ParallelDecisions) error {
	p := len(recs)
	s.errs = append(s.errs[:0], make([]error, p)...)
	s.panics = append(s.panics[:0], make([]any, p)...)
	errs, panics := s.errs, s.panics
	n := len(v.survivors)
	run := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				panics[i] = r
			}
		}()
		lo, hi := i*n/p, (i+1)*n/p
		recs[i].SetSortKey(uint64(i))
		errs[i] = decide(v, i, v.survivors[lo:hi:hi], recs[i])
	}
	var wg sync.WaitGroup
	for i := range p - 1 {
		wg.Go(func() { run(i) })
	}
	run(p - 1)
	wg.Wait()
	for _, r := range panics {
		if r != nil {
			clear(panics)
			panic(r)
		}
	}
	var joined []error
	for i, err := range errs {
		if err != nil {
			joined = append(joined, fmt.Errorf("chunk %d: %w", i, err))
		}
	}
	clear(errs)
	return errors.Join(joined...)
}

// Commit applies the commands a failed frame left pending (a retry after a decision or commit
// error; a no-op when nothing is pending). Errors: deferral.ErrReentry from inside decisions,
// or the strategy's commit error (failure policy: the suffix stays pending).
func (s *Sim) Commit() error {
	if s.deciding.Load() {
		return fmt.Errorf("commit: %w", deferral.ErrReentry)
	}
	err := s.strat.Commit()
	if err == nil {
		s.unfinished = false
	}
	return err
}

// Discard drops the commands a failed frame left pending and returns how many it dropped.
// Errors: deferral.ErrReentry from inside decisions (nothing dropped).
func (s *Sim) Discard() (int, error) {
	if s.deciding.Load() {
		return 0, fmt.Errorf("discard: %w", deferral.ErrReentry)
	}
	s.unfinished = false
	return s.strat.Discard(), nil
}

// TakeReport returns the strategy's receipts accumulated since the last TakeReport. Errors:
// deferral.ErrReentry from inside decisions, deferral.ErrPending while commands are pending.
func (s *Sim) TakeReport() (deferral.Report, error) {
	if s.deciding.Load() {
		return deferral.Report{}, fmt.Errorf("take report: %w", deferral.ErrReentry)
	}
	return s.strat.TakeReport()
}

// The phases of a particle frame before the decisions, shared by Sim and the task-graph frame
// of package [github.com/deferbench/deferbench/strategies/hybrid/hybridframe]: a frame runs
// Move, Age, Cleanup of what Age returned, then decides over Survivors.

// Move is the movement phase: Position += Velocity·dt for every entity having both. It
// writes through Component.Ptr; Age, which follows it, announces the writes (MarkChanged).
func Move(w *ecs.World, dt float64) {
	for e := range w.Query(ecs.MaskOf(Position.ID(), Velocity.ID())) {
		p, v := Position.Ptr(w, e), Velocity.Ptr(w, e)
		p.X += v.X * dt
		p.Y += v.Y * dt
	}
}

// Age is the lifetime phase: Remaining -= dt for every entity having a Lifetime. It appends
// the expired (at or below zero, or NaN) to dead and returns it.
func Age(w *ecs.World, dt float64, dead []ecs.Entity) []ecs.Entity {
	for e := range w.Query(ecs.MaskOf(Lifetime.ID())) {
		l := Lifetime.Ptr(w, e)
		l.Remaining -= dt
		if !(l.Remaining > 0) { // NaN (written through a pointer) expires too
			dead = append(dead, e)
		}
	}
	// Movement and lifetime wrote through Component.Ptr, which World.Changes does not count:
	// announce it to whoever keeps a replica of w in step (strategies/versioned).
	w.MarkChanged()
	return dead
}

// Cleanup is the intrinsic cleanup: it destroys the expired with the strict World API (the
// simulation's own rule, not a decision) and returns how many it destroyed. Errors: the first
// World.Destroy error, wrapped ("cleanup: …"); the entities before it are destroyed.
func Cleanup(w *ecs.World, dead []ecs.Entity) (int, error) {
	for i, e := range dead {
		if err := w.Destroy(e); err != nil {
			return i, fmt.Errorf("cleanup: %w", err)
		}
	}
	return len(dead), nil
}

// Survivors appends the live entities, in creation order, to buf and returns it.
func Survivors(w *ecs.World, buf []ecs.Entity) []ecs.Entity {
	for e := range w.Entities() {
		buf = append(buf, e)
	}
	return buf
}
