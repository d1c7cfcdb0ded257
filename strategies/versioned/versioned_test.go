package versioned_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/versioned"
	"github.com/deferbench/deferbench/workload"
)

// watchdog is how long a test waits for something that must happen promptly before it fails
// with a message instead of hanging.
const watchdog = 30 * time.Second

func populated(t *testing.T, n int) (*ecs.World, []ecs.Entity) {
	t.Helper()
	w := ecs.NewWorld()
	if err := workload.Populate(w, n, 7); err != nil {
		t.Fatal(err)
	}
	return w, slices.Collect(w.Entities())
}

func readHash(t *testing.T, s *versioned.ECS) uint64 {
	t.Helper()
	var h uint64
	if err := s.Read(func(w *ecs.World) error { h = w.Hash(); return nil }); err != nil {
		t.Fatal(err)
	}
	return h
}

// wantInSync fails unless readers see exactly the owner's world.
func wantInSync(t *testing.T, s *versioned.ECS, op string) {
	t.Helper()
	if got, want := readHash(t, s), s.World().Hash(); got != want {
		t.Fatalf("%s: readers' replica hash %#x, owner's world %#x", op, got, want)
	}
}

// TestReadNotBlockedByApply: a reader completes while a publish's apply is parked on a
// barrier, and it reads the previous version.
func TestReadNotBlockedByApply(t *testing.T) {
	for _, opts := range []versioned.Options{{}, {Resync: versioned.ResyncCopy}} {
		t.Run("resync="+opts.Resync.String(), func(t *testing.T) {
			w, ents := populated(t, 100)
			s := versioned.NewECS(w, opts)
			before := w.Hash()
			r := s.NewRecorder()
			parked, release := make(chan struct{}), make(chan struct{})
			r.Set(ents[0], workload.Position.Value(workload.Vec2{X: 1e6}))
			r.Do(func(*ecs.World) error {
				close(parked)
				<-release // the apply holds here until the reader below finished
				return nil
			})
			committed := make(chan error, 1)
			go func() { committed <- s.Commit() }()
			select {
			case <-parked:
			case <-time.After(watchdog):
				t.Fatal("the commit's apply did not reach the barrier")
			}
			read := make(chan uint64, 1)
			go func() {
				var h uint64
				s.Read(func(w *ecs.World) error { h = w.Hash(); return nil })
				read <- h
			}()
			select {
			case h := <-read:
				if h != before {
					t.Errorf("read during the apply: hash %#x, want the previous version's %#x", h, before)
				}
			case <-time.After(watchdog):
				close(release)
				t.Fatal("a reader blocked while the publish's apply was parked")
			}
			close(release)
			select {
			case err := <-committed:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(watchdog):
				t.Fatal("commit did not finish after the barrier opened")
			}
			wantInSync(t, s, "after the commit")
			if readHash(t, s) == before {
				t.Error("the committed set is not visible to readers")
			}
		})
	}
}

// TestReadersSeeWholeVersions: readers running through many publishes (replayed and copied,
// failing and retried) read worlds whose hash is one a publish produced, never a mix, and
// never go back to an older version.
func TestReadersSeeWholeVersions(t *testing.T) {
	for _, opts := range []versioned.Options{{}, {Resync: versioned.ResyncCopy}, {CheckDivergence: true}} {
		t.Run("resync="+opts.Resync.String(), func(t *testing.T) {
			w, ents := populated(t, 200)
			s := versioned.NewECS(w, opts)
			published := map[uint64]uint64{0: w.Hash()} // version -> hash
			var mu sync.Mutex
			type obs struct{ version, hash uint64 }
			var stop atomic.Bool
			const nreaders = 4
			seen := make([][]obs, nreaders)
			var wg sync.WaitGroup
			for k := range nreaders {
				wg.Go(func() {
					for !stop.Load() {
						s.ReadVersion(func(w *ecs.World, v uint64) error {
							seen[k] = append(seen[k], obs{v, w.Hash()})
							return nil
						})
					}
				})
			}
			recs := []*deferral.Recorder{s.NewRecorder(), s.NewRecorder(), s.NewRecorder(), s.NewRecorder()}
			rng := rand.New(rand.NewPCG(1, 2))
			rounds := 20
			if testing.Short() {
				rounds = 6
			}
			for round := range rounds {
				var producers sync.WaitGroup
				for k, r := range recs {
					producers.Go(func() {
						r.SetSortKey(uint64(k))
						for i := range 50 {
							e := ents[(k*50+i+round)%len(ents)]
							r.Set(e, workload.Position.Value(workload.Vec2{X: float64(round), Y: float64(i)}))
							if i%7 == 0 {
								r.Destroy(e)
								r.Create(workload.Particle(workload.Vec2{X: float64(k)}, workload.Vec2{}, 1))
							}
						}
					})
				}
				producers.Wait()
				if rng.IntN(4) == 0 { // a failing command: the prefix is published, then the retry
					recs[0].Stage(deferral.Command{}) // invalid record: fails
				}
				for attempt := 0; s.Pending() > 0 || attempt == 0; attempt++ {
					err := s.Commit()
					mu.Lock()
					published[s.Version()] = w.Hash()
					mu.Unlock()
					wantInSync(t, s, "after a commit")
					if err != nil {
						if !errors.Is(err, deferral.ErrInvalidCommand) {
							t.Fatalf("round %d: %v", round, err)
						}
						s.Discard()
					}
				}
				ents = slices.Collect(w.Entities())
			}
			stop.Store(true)
			wg.Wait()
			total := 0
			for k, os := range seen {
				total += len(os)
				last := uint64(0)
				for _, o := range os {
					want, ok := published[o.version]
					switch {
					case !ok || want != o.hash:
						t.Fatalf("reader %d: version %d with hash %#x; published hash %#x (%v)", k, o.version, o.hash, want, ok)
					case o.version < last:
						t.Fatalf("reader %d: version %d after version %d", k, o.version, last)
					}
					last = o.version
				}
			}
			t.Logf("%d reads over %d versions; stats %+v", total, s.Version(), s.Stats())
		})
	}
}

// TestDivergenceCheck: a closure reading a random source and the wall clock makes replayed
// replicas diverge; the check reports it naming the version and repairs the replica; the copy
// policy (and the default, which copies batches holding closures) never diverges.
func TestDivergenceCheck(t *testing.T) {
	impure := func(e ecs.Entity) func(w *ecs.World) error {
		return func(w *ecs.World) error {
			return workload.Position.Set(w, e, workload.Vec2{X: rand.Float64(), Y: float64(time.Now().UnixNano())})
		}
	}
	run := func(opts versioned.Options) (*versioned.ECS, error) {
		w, ents := populated(t, 10)
		s := versioned.NewECS(w, opts)
		r := s.NewRecorder()
		r.Set(ents[1], workload.Position.Value(workload.Vec2{X: 3}))
		if err := s.Commit(); err != nil { // version 1: replayed cleanly
			t.Fatal(err)
		}
		r.Do(impure(ents[0]))
		return s, s.Commit() // version 2
	}

	s, err := run(versioned.Options{Resync: versioned.ResyncReplayClosures})
	if err != nil {
		t.Fatalf("replay without the check: %v", err)
	}
	if readHash(t, s) == s.World().Hash() {
		t.Fatal("an impure closure replayed without the check: replicas equal; the test proves nothing")
	}

	s, err = run(versioned.Options{Resync: versioned.ResyncReplayClosures, CheckDivergence: true})
	var de *versioned.DivergenceError
	if !errors.As(err, &de) || !errors.Is(err, deferral.ErrDiverged) || de.Version != 2 || !de.Hash {
		t.Fatalf("replay with the check: %v, want a *DivergenceError for version 2 found by the hash", err)
	}
	for _, part := range []string{"version 2", "repaired by copy"} {
		if !contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	wantInSync(t, s, "after the repaired divergence")
	if s.Pending() != 0 {
		t.Errorf("pending after a divergence: %d, want 0 (the batch was committed)", s.Pending())
	}

	for _, c := range []struct {
		opts            versioned.Options
		replays, copies int
	}{
		{versioned.Options{Resync: versioned.ResyncCopy, CheckDivergence: true}, 0, 2},
		{versioned.Options{CheckDivergence: true}, 1, 1}, // the closure's batch is copied
	} {
		s, err := run(c.opts)
		if err != nil {
			t.Fatalf("%+v: %v", c.opts, err)
		}
		wantInSync(t, s, "resync="+c.opts.Resync.String())
		if st := s.Stats(); st.Copies != c.copies || st.Replays != c.replays {
			t.Errorf("%+v: stats %+v, want %d replays and %d copies", c.opts, st, c.replays, c.copies)
		}
	}
}

// TestReplayedClosureErrorIsDivergence: a closure that fails only on its second run (the
// replica) is reported as a divergence naming the command, and repaired.
func TestReplayedClosureErrorIsDivergence(t *testing.T) {
	w, ents := populated(t, 3)
	s := versioned.NewECS(w, versioned.Options{Resync: versioned.ResyncReplayClosures})
	r := s.NewRecorder()
	runs := 0
	r.Set(ents[0], workload.Position.Value(workload.Vec2{X: 1}))
	r.Do(func(w *ecs.World) error {
		if runs++; runs > 1 {
			return errors.New("second run")
		}
		return workload.Position.Set(w, ents[1], workload.Vec2{X: 2})
	})
	err := s.Commit()
	var de *versioned.DivergenceError
	if !errors.As(err, &de) || de.Hash || de.Pos != (deferral.Pos{Recorder: 0, Index: 1}) {
		t.Fatalf("commit: %v, want a *DivergenceError at recorder 0 command 1", err)
	}
	wantInSync(t, s, "after the repaired divergence")
}

// TestDirectWrites: writes to the owner's world at a sync point reach readers with the next
// commit, whether World calls (counted by ecs.World.Changes) or Ptr writes announced with
// MarkChanged; an unannounced Ptr write is caught by the divergence check.
func TestDirectWrites(t *testing.T) {
	w, ents := populated(t, 10)
	s := versioned.NewECS(w, versioned.Options{CheckDivergence: true})
	r := s.NewRecorder()
	if _, err := w.Create(workload.Position.Value(workload.Vec2{X: 9})); err != nil {
		t.Fatal(err)
	}
	before := readHash(t, s)
	r.Set(ents[0], workload.Position.Value(workload.Vec2{X: 1}))
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	wantInSync(t, s, "after a direct create")
	if before == readHash(t, s) {
		t.Fatal("the direct create and the set did not reach readers")
	}

	workload.Position.Ptr(w, ents[1]).X = 42
	w.MarkChanged()
	if err := s.Commit(); err != nil { // nothing staged: publishes the direct write alone
		t.Fatal(err)
	}
	wantInSync(t, s, "after an announced Ptr write")

	workload.Position.Ptr(w, ents[2]).X = 43 // not announced
	r.Set(ents[0], workload.Position.Value(workload.Vec2{X: 2}))
	err := s.Commit()
	if !errors.Is(err, deferral.ErrDiverged) {
		t.Fatalf("commit after an unannounced Ptr write: %v, want ErrDiverged from the check", err)
	}
	wantInSync(t, s, "after the repair")
}

// TestFailurePublishesPrefix: a commit failing at command k publishes the prefix (readers see
// it, replicas equal), keeps the suffix pending, and a retry publishes the suffix.
func TestFailurePublishesPrefix(t *testing.T) {
	w, ents := populated(t, 5)
	s := versioned.NewECS(w, versioned.Options{CheckDivergence: true})
	r := s.NewRecorder()
	bare, err := w.Create(ecs.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	p := r.Create(workload.Position.Value(workload.Vec2{X: 5}))
	r.Set(ents[0], workload.Position.Value(workload.Vec2{X: 6}))
	r.Set(bare, workload.Velocity.Value(workload.Vec2{})) // fails: bare lacks Velocity
	r.Destroy(ents[1])
	var ce *deferral.CommandError
	if err := s.Commit(); !errors.As(err, &ce) || ce.Pos.Index != 2 {
		t.Fatalf("commit: %v, want a *CommandError at command 2", err)
	}
	wantInSync(t, s, "after the failed commit")
	e, err := s.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	s.Read(func(rw *ecs.World) error {
		if !rw.Alive(e) || !rw.Alive(ents[1]) {
			t.Errorf("readers: prefix's entity alive %v, suffix's destroy target alive %v; want both", rw.Alive(e), rw.Alive(ents[1]))
		}
		return nil
	})
	if s.Pending() != 2 {
		t.Fatalf("pending %d, want 2", s.Pending())
	}
	if err := workload.Velocity.Add(w, bare, workload.Vec2{}); err != nil { // fix at the sync point
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	wantInSync(t, s, "after the retry")
	s.Read(func(rw *ecs.World) error {
		if rw.Alive(ents[1]) {
			t.Error("readers: the retried destroy is not visible")
		}
		return nil
	})
}

// TestPanicKeepsReadersOnPreviousVersion: a closure panicking in the apply leaves readers on
// the previous version; the next commit resyncs by copy.
func TestPanicKeepsReadersOnPreviousVersion(t *testing.T) {
	w, ents := populated(t, 5)
	s := versioned.NewECS(w, versioned.Options{CheckDivergence: true})
	r := s.NewRecorder()
	before := readHash(t, s)
	r.Set(ents[0], workload.Position.Value(workload.Vec2{X: 1}))
	r.Do(func(*ecs.World) error { panic("boom") })
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the closure's panic did not reach the caller")
			}
		}()
		s.Commit()
	}()
	if h := readHash(t, s); h != before {
		t.Fatalf("readers after the panic: hash %#x, want the previous version's %#x", h, before)
	}
	s.Discard()
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	wantInSync(t, s, "after the commit following the panic")
}

// TestReplayPolicy: under ResyncReplay a batch of typed commands is resynced by replay, even
// one that a copy of this small world would resync for less; one with a closure or after
// direct writes by copy; an empty commit publishes nothing.
func TestReplayPolicy(t *testing.T) {
	w, ents := populated(t, 50)
	s := versioned.NewECS(w, versioned.Options{Resync: versioned.ResyncReplay, CheckDivergence: true})
	r := s.NewRecorder()
	for i, e := range ents {
		if i%3 == 0 {
			r.Destroy(e)
			p := r.Create(workload.Particle(workload.Vec2{X: float64(i)}, workload.Vec2{}, 2))
			r.Add(p, workload.Velocity.Value(workload.Vec2{Y: 1}))
			r.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, -1)) // culled on both
		} else {
			r.Remove(e, workload.Lifetime.ID())
		}
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Replays != 1 || st.Copies != 0 || st.Publishes != 1 {
		t.Fatalf("stats after a typed batch: %+v, want one replay", st)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Publishes != 1 || s.Version() != 1 {
		t.Fatalf("an empty commit published: %+v, version %d", st, s.Version())
	}
	wantInSync(t, s, "after replay")
	if s.ReplicaBytes() < 50*16 {
		t.Errorf("ReplicaBytes %d for 50+ entities", s.ReplicaBytes())
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestReadNil: Read and ReadVersion given a nil function return an error wrapping
// deferral.ErrInvalidCommand instead of panicking, and leave no reader announced: the next
// commit publishes and readers see it.
func TestReadNil(t *testing.T) {
	w, ents := populated(t, 8)
	s := versioned.NewECS(w, versioned.Options{})
	if err := s.Read(nil); !errors.Is(err, deferral.ErrInvalidCommand) {
		t.Fatalf("Read(nil) = %v, want ErrInvalidCommand", err)
	}
	if err := s.ReadVersion(nil); !errors.Is(err, deferral.ErrInvalidCommand) {
		t.Fatalf("ReadVersion(nil) = %v, want ErrInvalidCommand", err)
	}
	s.NewRecorder().Destroy(ents[0])
	done := make(chan error, 1)
	go func() { done <- s.Commit() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(watchdog):
		t.Fatal("commit after Read(nil) did not finish: a reader was left announced")
	}
	var n int
	if err := s.Read(func(w *ecs.World) error { n = w.Len(); return nil }); err != nil || n != 7 {
		t.Fatalf("Read after the commit = %v, %d entities; want nil, 7", err, n)
	}
}

// TestCreateTwiceIsRefused: a hand-built create record (Recorder.Stage) naming a placeholder
// that a create of the same commit already created rebound the placeholder on the owner's
// world, and the replay, which resolves through the commit's final answers, compared the
// first create with the second's entity: Commit returned a *DivergenceError for a batch every
// other strategy commits. Core now refuses such a record (ErrInvalidCommand), in the stream's
// batched create path as one by one; the prefix before it is published and replayed in step,
// and the placeholder keeps its first answer.
func TestCreateTwiceIsRefused(t *testing.T) {
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		w := ecs.NewWorld(ecs.WithStorage(st))
		s := versioned.NewECS(w, versioned.Options{CheckDivergence: true})
		r := s.NewRecorder()
		p := r.Create(workload.Position.Value(workload.Vec2{X: 1}))
		deferral.Set(r, p, workload.Position, workload.Vec2{X: 5})
		r.Stage(deferral.Command{Verb: deferral.VerbCreate, Entity: p, Bundle: workload.Position.Value(workload.Vec2{X: 2})})
		deferral.Set(r, p, workload.Position, workload.Vec2{X: 7})
		err := s.Commit()
		var ce *deferral.CommandError
		var de *versioned.DivergenceError
		if !errors.As(err, &ce) || !errors.Is(err, deferral.ErrInvalidCommand) || ce.Pos.Index != 2 || errors.As(err, &de) {
			t.Fatalf("%v: Commit = %v; want a *CommandError at command 2 wrapping ErrInvalidCommand, no divergence", st, err)
		}
		e, err := s.Resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := workload.Position.Get(w, e); v.X != 5 || w.Len() != 1 {
			t.Errorf("%v: the placeholder's entity holds %v, %d entities; want X 5, 1 entity", st, v, w.Len())
		}
		wantInSync(t, s, st.String())
		if n := s.Discard(); n != 2 {
			t.Errorf("%v: Discard dropped %d; want the refused create and the set after it", st, n)
		}
	}
}

// TestCommitsAgainstBusyReaders: two readers read in a tight loop while the owner commits
// 20000 single-batch versions, each setting two entities to the same value. Every commit must
// return (a commit waits for the readers of the replica it resyncs; a wake-up lost between the
// commit's "draining" flag and a leaving reader's count parks it forever), and no reader may
// see the two entities differ (a reader admitted to the replica being resynced). Under
// qemu-user on an x86 host, where an arm64 store followed by a load of another variable can
// be reordered, the flag written by a plain store lost a wake-up about once in 3000 commits.
func TestCommitsAgainstBusyReaders(t *testing.T) {
	w, ents := populated(t, 16)
	s := versioned.NewECS(w, versioned.Options{})
	a, b := ents[0], ents[1]
	var stop atomic.Bool
	var torn atomic.Int64
	var reads atomic.Int64
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			n := 0
			for !stop.Load() {
				_ = s.ReadVersion(func(w *ecs.World, version uint64) error {
					pa, _ := workload.Position.Get(w, a)
					pb, _ := workload.Position.Get(w, b)
					if version > 0 && pa != pb { // version 0 is the populated world
						torn.Add(1)
					}
					return nil
				})
				n++
			}
			reads.Add(int64(n))
		})
	}
	const commits = 20000
	r := s.NewRecorder()
	var done atomic.Int64
	finished := make(chan error, 1)
	go func() {
		for i := range commits {
			v := workload.Position.Value(workload.Vec2{X: float64(i), Y: float64(i)})
			r.Set(a, v)
			r.Set(b, v)
			if err := s.Commit(); err != nil {
				finished <- err
				return
			}
			done.Add(1)
		}
		finished <- nil
	}()
	select {
	case err := <-finished:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(watchdog):
		stop.Store(true)
		t.Fatalf("a commit never returned: %d of %d commits done in %v (the owner waits for a reader that already left)", done.Load(), commits, watchdog)
	}
	stop.Store(true)
	readers.Wait()
	if n := torn.Load(); n > 0 {
		t.Fatalf("%d of %d reads saw the two entities of one version differ", n, reads.Load())
	}
	t.Logf("%d commits against %d reads", commits, reads.Load())
}

// TestDivergenceErrorIsDiverged: every DivergenceError satisfies errors.Is(err,
// deferral.ErrDiverged), also one whose cause wraps another sentinel (a replay that ran past
// its records wraps deferral.ErrInvalidCommand), and still unwraps to its cause.
func TestDivergenceErrorIsDiverged(t *testing.T) {
	cause := fmt.Errorf("replay: record 2 runs past the stream: %w", deferral.ErrInvalidCommand)
	var err error = &versioned.DivergenceError{Version: 3, Pos: deferral.Pos{Index: 2}, Err: cause}
	if !errors.Is(err, deferral.ErrDiverged) {
		t.Errorf("errors.Is(%v, ErrDiverged) = false", err)
	}
	if !errors.Is(err, deferral.ErrInvalidCommand) {
		t.Errorf("errors.Is(%v, ErrInvalidCommand) = false: the cause is lost", err)
	}
}

// TestAutoResync: under the default ResyncAuto a batch small against the world (400 Sets in
// 20,000 entities, or 800 structural commands in 100,000) is replayed, while a batch as large
// as the world (800 structural commands on 400 entities) is copied; every resync leaves the
// replicas equal.
func TestAutoResync(t *testing.T) {
	structural := func(r *deferral.Recorder, ents []ecs.Entity) {
		for _, e := range ents[:400] {
			r.Destroy(e)
			r.Create(workload.Particle(workload.Vec2{X: 1}, workload.Vec2{}, 2))
		}
	}
	sets := func(r *deferral.Recorder, ents []ecs.Entity) {
		for _, e := range ents[:400] {
			deferral.Set(r, e, workload.Position, workload.Vec2{X: 2})
		}
	}
	for _, c := range []struct {
		name     string
		entities int
		stage    func(*deferral.Recorder, []ecs.Entity)
		copied   bool
	}{
		{"sets in a large world", 20_000, sets, false},
		{"structural in a small world", 400, structural, true},
		{"structural in a large world", 100_000, structural, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, ents := populated(t, c.entities)
			s := versioned.NewECS(w, versioned.Options{})
			c.stage(s.NewRecorder(), ents)
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
			want := versioned.Stats{Publishes: 1, Replays: 1}
			if c.copied {
				want.Replays, want.Copies = 0, 1
			}
			if st := s.Stats(); st.Publishes != want.Publishes || st.Replays != want.Replays || st.Copies != want.Copies {
				t.Fatalf("stats %+v, want %d replays and %d copies", st, want.Replays, want.Copies)
			}
			wantInSync(t, s, c.name)
		})
	}
}

var (
	closureTag    = ecs.NewComponent[int32]("versioned_test.closureTag", nil)
	closureNonNeg = ecs.NewComponent[int64]("versioned_test.closureNonNeg", func(v int64) bool { return v >= 0 })
)

// TestReplayedClosureSeesValidators: under ResyncReplayClosures a closure runs again on the
// readers' replica; one that branches on a refused value must take the same branch there as
// on the world, so the replica, which otherwise trusts the values it replays, validates for
// it (it used to take the other branch and give readers a state the world never had).
func TestReplayedClosureSeesValidators(t *testing.T) {
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		w := ecs.NewWorld(ecs.WithStorage(st))
		e, err := w.Create(workload.Position.Value(workload.Vec2{}))
		if err != nil {
			t.Fatal(err)
		}
		s := versioned.NewECS(w, versioned.Options{Resync: versioned.ResyncReplayClosures})
		r := s.NewRecorder()
		r.Do(func(w *ecs.World) error {
			if err := closureNonNeg.Add(w, e, -5); errors.Is(err, ecs.ErrInvalidValue) {
				return closureTag.Add(w, e, 1)
			}
			return nil
		})
		if err := s.Commit(); err != nil {
			t.Fatalf("%v: commit: %v", st, err)
		}
		if err := s.Read(func(rw *ecs.World) error {
			if closureNonNeg.Has(rw, e) || !closureTag.Has(rw, e) || rw.Hash() != w.Hash() {
				return fmt.Errorf("readers' replica: nonneg %v, tag %v, hash equal %v; want the world's: tag only",
					closureNonNeg.Has(rw, e), closureTag.Has(rw, e), rw.Hash() == w.Hash())
			}
			return nil
		}); err != nil {
			t.Errorf("%v: %v", st, err)
		}
		// Commands replayed after the closure are trusted again: no validator runs twice.
		deferral.Set(r, e, closureTag, 2)
		if err := s.Commit(); err != nil {
			t.Fatalf("%v: second commit: %v", st, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
