package conformance

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/internal/racetest"
	"github.com/deferbench/deferbench/workload"
)

// TestVersions runs the versioned-read suite against strategies f makes, which must
// implement deferral.VersionReader (and declare Capabilities.ReadsPreviousVersion): after
// every commit — drained, failed at a typed command, failed at a closure that wrote before
// failing, after a closure that panicked, after direct writes of the owner, after a closure
// whose replay would not redo what it did or that fails or panics when run again, before a
// create of the record stream or a keyed create — a read sees exactly the owner's world
// (equal ecs.World.Hash), whatever the strategy's way of bringing its readers' copy up to
// date (a replay of the commands, closures included, or a copy). A commit that finds its
// readers' copy diverged may say so with an error wrapping deferral.ErrDiverged, and must
// repair it. VersionNumbers also needs VersionNumberReader: version numbers never go back,
// and each commit that changed the world publishes exactly one more. Each row is a subtest on a fresh
// World and strategy; run it once per resync mode:
//
//	func TestConformanceVersions(t *testing.T) { conformance.TestVersions(t, versioned.Factory) }
func TestVersions(t *testing.T, f Factory) {
	t.Helper()
	runRows(t, "TestVersions", f, []row{
		{"VersionAfterDrainedCommit", checkVersionDrained, 0},
		{"VersionAfterFailedCommit", checkVersionFailed, varyCmd},
		{"VersionAfterClosureWroteThenFailed", checkVersionClosureWroteThenFailed, 0},
		{"VersionAfterFirstClosureWroteThenFailed", checkVersionFirstClosureWroteThenFailed, 0},
		{"VersionAfterClosurePanicked", checkVersionClosurePanicked, 0},
		{"VersionAfterDirectWrites", checkVersionDirectWrites, 0},
		{"VersionAfterCulledCreates", checkVersionCulledCreates, 0},
		{"VersionAfterImpureClosure", checkVersionImpureClosure, 0},
		{"VersionAfterImpureClosureKeyedCreate", checkVersionImpureClosureKeyedCreate, 0},
		{"VersionAfterClosureFailsOnReplay", checkVersionClosureFailsOnReplay, 0},
		{"VersionAfterClosurePanicsOnReplay", checkVersionClosurePanicsOnReplay, 0},
		{"VersionAfterValueImpureClosure", checkVersionValueImpureClosure, 0},
		{"VersionAfterClosureBranchesOnRefusal", checkVersionClosureBranchesOnRefusal, 0},
		{"VersionNumbers", checkVersionNumbers, varyCmd},
		{"VersionNumbersUnderConcurrentReads", checkVersionNumbersConcurrent, 0},
		{"VersionDivergenceNamesItsCommand", checkVersionDivergencePos, 0},
		{"VersionDivergenceInCreateRun", checkVersionDivergenceInCreateRun, 0},
		{"VersionDivergenceLaterInRun", checkVersionDivergenceLaterInRun, 0},
		{"VersionQueriesAfterCopyResync", checkVersionQueriesAfterCopy, 0},
		{"VersionReadsNewerHandle", checkVersionNewerHandle, 0},
		{"VersionReadNilFunc", checkVersionReadNil, 0},
	})
}

// wantVersionIsWorld checks that a read sees the owner's world.
func (x *fixture) wantVersionIsWorld(op string) {
	x.Helper()
	vr := need[deferral.VersionReader](x, "TestVersions")
	var got uint64
	var visits []string
	if err := vr.Read(func(w *ecs.World) error { got, visits = w.Hash(), queryVisits(w); return nil }); err != nil {
		x.Errorf("%s: read: got error %v, want nil", op, err)
	}
	if want := x.w.Hash(); got != want {
		x.Errorf("%s: read sees hash %#x, want the owner's world's %#x (readers see a state the owner never had)", op, got, want)
	}
	if want := queryVisits(x.w); !slices.Equal(visits, want) {
		x.Errorf("%s: typed queries in a read visit %v, want the owner's world's %v", op, visits, want)
	}
}

// commitMayDiverge commits and accepts nil or an error wrapping deferral.ErrDiverged alone;
// it returns the commit's error.
func (x *fixture) commitMayDiverge(op string) error {
	x.Helper()
	err := x.s.Commit()
	if err != nil && !errors.Is(err, deferral.ErrDiverged) {
		x.Errorf("%s: got error %v, want nil or one wrapping deferral.ErrDiverged", op, err)
	}
	return err
}

// checkVersionCulledCreates: a typed batch whose creates the validator culls — alone, among
// valid ones, hand-built (naming no placeholder) and typed, and each followed by commands on
// its placeholder (which then change nothing) —
// commits without error (a culled create is no divergence: the replay culls it too), and
// readers see the owner's world.
func checkVersionCulledCreates(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s) // so that the batch below may be replayed
	r := x.rec()
	p := r.Create(workload.Particle(v2(1, 1), v2(1, 1), 0))
	r.Set(p, pt(2, 2))
	q := r.Create(workload.Particle(v2(3, 3), v2(1, 1), 1))
	r.Set(q, pt(4, 4))
	c := r.Create(life(-1))
	r.Add(c, vl(5, 5))
	r.Create(life(-2))
	r.Create(life(-3))
	// Hand-built creates (no placeholder: nothing can name them), one culled, one not, each
	// followed by a typed create whose handle a replay compares with the world's.
	r.Stage(deferral.Command{Verb: deferral.VerbCreate, Bundle: life(-4)})
	r.Create(pt(8, 8))
	r.Stage(deferral.Command{Verb: deferral.VerbCreate, Bundle: pt(9, 9)})
	r.Create(pt(10, 10))
	r.Set(e, pt(6, 6))
	x.commit("commit of culled creates among valid ones", x.s)
	want(x, "live entities", x.w.Len(), 5)
	want(x, "position of the valid create's entity", x.pos("q", x.w, x.resolve("the valid create", x.s, q)), v2(4, 4))
	x.wantVersionIsWorld("after culled creates")
	r.Create(life(0))
	r.Stage(deferral.Command{Verb: deferral.VerbCreate, Bundle: pt(11, 11)}) // hand-built, kept
	r.Create(pt(7, 7))
	x.commit("second commit", x.s)
	x.wantVersionIsWorld("after a second commit of a culled create")
}

func checkVersionDrained(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	p := r.Create(pt(1, 1))
	r.Add(p, vl(1, 0))
	r.Set(e, pt(2, 2))
	r.Do(func(w *ecs.World) error { return w.Upsert(e, vl(3, 3)) })
	r.Destroy(e)
	x.commit("commit", x.s)
	x.wantVersionIsWorld("after a drained commit")
	r.Create(pt(4, 4))
	x.commit("second commit", x.s)
	x.wantVersionIsWorld("after a second commit")
}

// checkVersionFailed: a commit that fails at a command publishes its prefix and returns
// that command's error, never a divergence; the retry publishes the rest.
func checkVersionFailed(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	r := x.rec()
	r.Create(pt(1, 1))
	r.Set(e, pt(2, 2))
	broken := new(bool)
	sentinel := x.failing(r, e, v2(1, 1), broken)
	r.Set(e, pt(3, 3))
	err := x.s.Commit()
	if !errors.Is(err, sentinel) {
		x.Fatalf("commit: got %v, want the failing command's %v", err, sentinel)
	}
	// The prefix replays on the readers' copy as it applied: a replay of more than the
	// prefix (the failed command, or the suffix after it) is the strategy's own divergence.
	var dp DivergencePositioner
	if errors.Is(err, deferral.ErrDiverged) || errors.As(err, &dp) {
		x.Errorf("commit: %v: a failed commit of pure commands reported a divergence of the readers' copy", err)
	}
	x.wantVersionIsWorld("after a failed commit (its prefix published)")
	x.fixFailing(e, broken)
	x.commit("retry", x.s)
	x.wantVersionIsWorld("after the retry")
}

func checkVersionClosureWroteThenFailed(x *fixture) { closureWroteThenFailed(x, true) }

// checkVersionFirstClosureWroteThenFailed: as checkVersionClosureWroteThenFailed with the
// closure the batch's first command, so that no command of the commit succeeded: what the
// closure wrote still changed the owner's world, and readers must see it.
func checkVersionFirstClosureWroteThenFailed(x *fixture) { closureWroteThenFailed(x, false) }

// closureWroteThenFailed commits a batch in which a closure writes e and then fails, after a
// Set of e when setFirst holds: the owner's world keeps the write, readers see the owner's
// world, and the retry publishes it too.
func closureWroteThenFailed(x *fixture, setFirst bool) {
	e := x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	r := x.rec()
	if setFirst {
		r.Set(e, pt(1, 1))
	}
	fail := true
	r.Do(func(w *ecs.World) error {
		if err := w.Set(e, pt(2, 2)); err != nil {
			return err
		}
		if fail {
			return errBroken // after writing
		}
		return nil
	})
	if err := x.s.Commit(); !errors.Is(err, errBroken) {
		x.Fatalf("commit: got %v, want the closure's error", err)
	}
	want(x, "position of e on the owner's world (the closure wrote before failing)", x.pos("e", x.w, e), v2(2, 2))
	x.wantVersionIsWorld("after a commit that failed at a closure that wrote")
	fail = false
	x.commit("retry", x.s)
	x.wantVersionIsWorld("after the retry")
}

func checkVersionClosurePanicked(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	r := x.rec()
	r.Set(e, pt(1, 1))
	r.Do(func(w *ecs.World) error {
		w.Set(e, pt(2, 2))
		panic("closure panics after writing")
	})
	func() {
		defer func() { recover() }()
		x.s.Commit()
		x.Errorf("commit: a closure panicked, want the panic to reach the caller")
	}()
	x.s.Discard()
	x.commit("commit after discarding the panicked suffix", x.s)
	x.wantVersionIsWorld("after a closure panicked, Discard and a commit")
}

func checkVersionDirectWrites(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	if err := x.w.Set(e, pt(5, 5)); err != nil {
		x.Fatalf("setup: %v", err)
	}
	x.create(x.w, pt(6, 6))
	r := x.rec()
	r.Set(e, pt(1, 1))
	x.commit("commit after direct writes", x.s)
	x.wantVersionIsWorld("after direct writes and a commit")
	x.create(x.w, pt(7, 7))
	x.commit("empty commit after a direct write", x.s)
	x.wantVersionIsWorld("after a direct write and an empty commit")
	// Each of the world's other changing calls, alone between two commits: readers must see
	// it after an empty commit, whichever call made the change.
	f := x.create(x.w, pt(8, 8))
	x.commit("publish f", x.s)
	for _, d := range []struct {
		what  string
		write func() error
	}{
		{"Add", func() error { return x.w.Add(f, vl(1, 1)) }},
		{"Set", func() error { return x.w.Set(f, vl(2, 2)) }},
		{"Upsert", func() error { return x.w.Upsert(f, pt(3, 3).With(vl(3, 3))) }},
		{"Remove", func() error { return x.w.Remove(f, workload.Velocity.ID()) }},
		{"Destroy", func() error { return x.w.Destroy(f) }},
	} {
		if err := d.write(); err != nil {
			x.Fatalf("setup: direct %s: %v", d.what, err)
		}
		x.commit("empty commit after a direct "+d.what, x.s)
		x.wantVersionIsWorld("after a direct " + d.what + " and an empty commit")
	}
}

// VersionNumberReader is implemented by versioned-read strategies that number their versions:
// ReadVersion is deferral.VersionReader's Read that also passes the number of the version fn
// reads, 0 before the first publish and one more per publish. TestVersions's VersionNumbers
// row needs it.
type VersionNumberReader interface {
	ReadVersion(fn func(w *ecs.World, version uint64) error) error
}

// VersionCounter is implemented by versioned-read strategies whose owner can ask how many
// versions were published: Version, called from the owner's goroutine, returns the number a
// read started after it passes to ReadVersion. TestVersions's VersionNumbers row compares the
// two when the strategy has both.
type VersionCounter interface {
	Version() uint64
}

// DivergencePositioner is implemented by an error a versioned-read strategy's commit returns
// when the replay of one command on the readers' copy diverged: DivergedAt returns that
// command's position (its recorder and FIFO index), and false when the divergence is not one
// command's. TestVersions's VersionDivergenceNamesItsCommand row checks the position.
type DivergencePositioner interface {
	DivergedAt() (pos deferral.Pos, ok bool)
}

// checkVersionDivergencePos: a closure that destroys an entity the first time it runs only,
// then a Set and a create on the same recorder: a replay of the closure on the readers' copy
// leaves the entity, so the create there takes another slot than on the owner's world. A
// commit that reports the divergence with a position (DivergencePositioner) names the create,
// the recorder's third command — not the first of the commands replayed with it; readers see
// the owner's world either way.
func checkVersionDivergencePos(x *fixture) { x.versionDivergesAtCreate(false) }

// checkVersionDivergenceInCreateRun: checkVersionDivergencePos with a Set of the created
// entity's placeholder after the create, so that a strategy replaying a create and the values
// that name its placeholder as one create (deferral's create runs) must notice that the
// replica's create made another entity than the world's.
func checkVersionDivergenceInCreateRun(x *fixture) { x.versionDivergesAtCreate(true) }

// checkVersionDivergenceLaterInRun: a closure that destroys an entity the first time it runs
// only, a destroy of another, then two creates of one shape (a run a strategy may replay in
// bulk): the replica's free slots differ below the top, so its first create makes the world's
// entity and its second another. A commit reporting the divergence with a position names the
// second create, not the run's first.
func checkVersionDivergenceLaterInRun(x *fixture) {
	p0, q := x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 1))
	x.commit("publish the setup", x.s)
	r := x.rec()
	r.Do(firstRunOnly(func(w *ecs.World) error { return w.Destroy(p0) }))
	r.Destroy(q)
	a := r.Create(pt(2, 2))
	b := r.Create(pt(3, 3))
	x.commitDivergingAt(deferral.Pos{Recorder: r.Index(), Index: 3}, "the second create's position (the first create made the world's entity)")
	want(x, "position of the first create's entity", x.pos("a", x.w, x.resolve("the first create", x.s, a)), v2(2, 2))
	want(x, "position of the second create's entity", x.pos("b", x.w, x.resolve("the second create", x.s, b)), v2(3, 3))
	x.wantVersionIsWorld("after a divergence later in a run of creates")
}

// commitDivergingAt commits, accepting nil or an error wrapping deferral.ErrDiverged; an error
// that names a position (DivergencePositioner) must name at, which what describes.
func (x *fixture) commitDivergingAt(at deferral.Pos, what string) {
	x.Helper()
	err := x.s.Commit()
	if err != nil && !errors.Is(err, deferral.ErrDiverged) {
		x.Fatalf("commit: got error %v, want nil or one wrapping deferral.ErrDiverged", err)
	}
	var dp DivergencePositioner
	if errors.As(err, &dp) {
		if pos, ok := dp.DivergedAt(); ok && pos != at {
			x.Errorf("commit: divergence at %+v, want %s %+v", pos, what, at)
		}
	}
}

// versionDivergesAtCreate is checkVersionDivergencePos, with a Set of the placeholder after
// the create when setAfter.
func (x *fixture) versionDivergesAtCreate(setAfter bool) {
	e, d := x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	r := x.rec()
	r.Do(firstRunOnly(func(w *ecs.World) error { return w.Destroy(d) }))
	r.Set(e, pt(1, 1))
	p := r.Create(pt(2, 2))
	if setAfter {
		r.Set(p, pt(3, 3))
	}
	x.commitDivergingAt(deferral.Pos{Recorder: r.Index(), Index: 2}, "the create's position (the command whose replay differed)")
	c := x.resolve("the create", x.s, p)
	if setAfter {
		if got, want := x.pos("the created entity", x.w, c), (workload.Vec2{X: 3, Y: 3}); got != want {
			x.Errorf("the created entity's position is %v, want %v (the Set after its create)", got, want)
		}
	}
	x.wantVersionIsWorld("after a divergence")
}

// checkVersionNumbersConcurrent: readers that read version after version while the owner
// commits see, with each version number, the world the owner had when it published that
// number, and never a number going back; run under the race detector, the reads and the
// commits touch no shared state unsynchronised.
func checkVersionNumbersConcurrent(x *fixture) {
	vn := need[VersionNumberReader](x, "TestVersions")
	e := x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	type seen struct{ version, hash uint64 }
	published := map[uint64]uint64{}
	read := func() seen {
		var got seen
		if err := vn.ReadVersion(func(w *ecs.World, v uint64) error { got = seen{v, w.Hash()}; return nil }); err != nil {
			x.Errorf("read version: got error %v, want nil", err)
		}
		return got
	}
	first := read()
	published[first.version] = x.w.Hash()
	var mu sync.Mutex
	var reads [][]seen
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			var mine []seen
			for {
				select {
				case <-stop:
					mu.Lock()
					reads = append(reads, mine)
					mu.Unlock()
					return
				default:
				}
				mine = append(mine, read())
			}
		})
	}
	r := x.rec()
	commits := 4000 // the window where a wrong number shows is a few instructions of each publish
	if racetest.Enabled {
		commits = 200 // the race detector reports an unsynchronised number on the first
	}
	for k := range commits {
		r.Set(e, pt(float64(k+1), 0))
		x.commit(fmt.Sprintf("commit %d", k), x.s)
		got := read()
		if got.hash != x.w.Hash() {
			x.Errorf("commit %d: the owner's read after it sees hash %#x, want the world's %#x", k, got.hash, x.w.Hash())
		}
		published[got.version] = got.hash
	}
	close(stop)
	wg.Wait()
	for i, rs := range reads {
		last := uint64(0)
		for _, o := range rs {
			h, ok := published[o.version]
			switch {
			case o.version < last:
				x.Errorf("reader %d: version %d after version %d (numbers go back)", i, o.version, last)
			case !ok:
				x.Errorf("reader %d: version %d, which no commit published", i, o.version)
			case h != o.hash:
				x.Errorf("reader %d: version %d with hash %#x, want the world published as that version (%#x)", i, o.version, o.hash, h)
			}
			last = max(last, o.version)
		}
	}
}

// checkVersionNumbers: version numbers never go back, a commit that changed the world
// publishes exactly one more version, whose world is the owner's (a typed batch, closures,
// a failed commit's prefix, its retry, direct writes then an empty commit, each through the
// strategy's resync: a replay or a copy), and a commit or discard that changed nothing
// publishes at most one.
func checkVersionNumbers(x *fixture) {
	vn := need[VersionNumberReader](x, "TestVersions")
	read := func(op string) (uint64, uint64) {
		var h, v uint64
		if err := vn.ReadVersion(func(w *ecs.World, version uint64) error { h, v = w.Hash(), version; return nil }); err != nil {
			x.Errorf("%s: read version: got error %v, want nil", op, err)
		}
		return h, v
	}
	_, last := read("before the first commit")
	want(x, "version before the first commit", last, uint64(0))
	step := func(op string, changed bool) {
		x.Helper()
		h, v := read(op)
		switch {
		case v < last:
			x.Errorf("%s: version %d, want no less than the previous %d", op, v, last)
		case changed && v != last+1:
			x.Errorf("%s: version %d, want %d (one publish after a commit that changed the world)", op, v, last+1)
		case !changed && v > last+1:
			x.Errorf("%s: version %d, want at most %d (nothing changed)", op, v, last+1)
		}
		if want := x.w.Hash(); h != want {
			x.Errorf("%s: version %d's world hash %#x, want the owner's %#x", op, v, h, want)
		}
		if vc, ok := x.s.(VersionCounter); ok && vc.Version() != v {
			x.Errorf("%s: the owner's Version is %d, readers read version %d", op, vc.Version(), v)
		}
		last = v
	}
	e := x.create(x.w, pt(0, 0))
	f := x.create(x.w, pt(0, 0).With(vl(1, 1)))
	x.commit("publish the setup", x.s)
	step("after publishing the setup (direct writes)", true)
	r := x.rec()
	p := r.Create(pt(1, 1))
	r.Add(p, vl(2, 2))
	r.Set(e, pt(3, 3))
	r.Remove(f, workload.Velocity.ID())
	r.Add(e, life(4))
	x.commit("typed commit", x.s)
	step("after a typed commit", true)
	x.commit("empty commit", x.s)
	step("after an empty commit", false)
	r.Do(func(w *ecs.World) error { return w.Set(e, pt(5, 5)) })
	r.Set(f, pt(6, 6))
	x.commit("commit with a closure", x.s)
	step("after a commit with a closure", true)
	r.Set(e, pt(7, 7))
	broken := new(bool)
	x.failing(r, f, v2(8, 8), broken)
	r.Set(e, pt(9, 9))
	if x.s.Commit() == nil {
		x.Fatalf("commit with a failing command: got nil, want the failure")
	}
	step("after a failed commit (its prefix published)", true)
	if x.s.Commit() == nil {
		x.Fatalf("retry with the cause unfixed: got nil, want the failure")
	}
	step("after a retry that applied nothing", false)
	x.fixFailing(f, broken)
	x.commit("retry after the fix", x.s)
	step("after the retry", true)
	if err := x.w.Set(e, pt(10, 10)); err != nil {
		x.Fatalf("setup: %v", err)
	}
	x.commit("empty commit after a direct write", x.s)
	step("after a direct write and an empty commit", true)
	r.Set(e, pt(11, 11))
	x.s.Discard()
	step("after a discard", false)
	r.Destroy(e)
	r.Create(pt(12, 12))
	x.commit("commit of a destroy and a create", x.s)
	step("after a destroy and a create", true)
}
