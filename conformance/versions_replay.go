package conformance

// This file holds the TestVersions rows on closures that break the purity a replay needs:
// closures that act differently on their replay, fail or panic there, or read what a replay
// changes.

import (
	"errors"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// checkVersionImpureClosure: a closure that creates an entity the first time it runs only (it
// breaks the purity a replay of closures needs), followed by a typed create: a replay would
// make the typed create another entity than the world's. The commit may report the
// divergence; readers must see the world either way.
func checkVersionImpureClosure(x *fixture) {
	r := impureClosure(x)
	p := r.Create(pt(1, 1))
	wantImpureCreateRead(x, "create", p)
}

// checkVersionImpureClosureKeyedCreate is checkVersionImpureClosure with the create staged
// under a sort key (the closure keeps key 0, so it runs first in FIFO and in key order alike):
// a keyed create is its own command record, not part of a run of the record stream, so a
// replay of it is a replay of one command, whose handle must still be compared with the
// world's. The commit may report the divergence; readers must see the world either way, and
// the entity the create made with its position.
func checkVersionImpureClosureKeyedCreate(x *fixture) {
	r := impureClosure(x)
	r.SetSortKey(1)
	p := r.Create(pt(1, 1))
	r.Add(p, vl(2, 2))
	r.SetSortKey(0)
	wantImpureCreateRead(x, "keyed create", p)
}

// checkVersionClosureFailsOnReplay: a closure that writes and succeeds the first time it runs
// and fails, without writing, on every later run (what a replay of it on the readers' copy
// would be), between typed sets: the commit succeeds on the owner's world, may report the
// divergence — an error that also wraps the replayed closure's (errors.Is), so the caller
// learns why the replay failed — and readers see the owner's world, then again after a
// second commit.
func checkVersionClosureFailsOnReplay(x *fixture) {
	checkVersionClosureReplayBreaks(x, "fails", func() error { return errBroken }, errBroken)
}

// checkVersionClosurePanicsOnReplay is checkVersionClosureFailsOnReplay with a closure that
// panics on every run after its first: the panic of a replay must not reach the caller.
func checkVersionClosurePanicsOnReplay(x *fixture) {
	checkVersionClosureReplayBreaks(x, "panics", func() error { panic("closure panics when run again") }, nil)
}

// checkVersionClosureReplayBreaks runs the two rows above; a reported divergence must wrap
// cause when it is not nil.
func checkVersionClosureReplayBreaks(x *fixture, what string, again func() error, cause error) {
	e, f := x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	r := x.rec()
	r.Set(e, pt(1, 1))
	runs := 0
	r.Do(func(w *ecs.World) error {
		if runs++; runs > 1 {
			return again()
		}
		return w.Set(e, pt(2, 2))
	})
	r.Set(f, pt(3, 3))
	func() {
		defer func() {
			if p := recover(); p != nil {
				x.Errorf("commit of a closure that %s when run again: panicked %v, want the commit to return", what, p)
			}
		}()
		op := "commit of a closure that " + what + " when run again"
		if err := x.commitMayDiverge(op); err != nil && cause != nil && !errors.Is(err, cause) {
			x.Errorf("%s: the divergence %v does not wrap the replayed closure's error %v", op, err, cause)
		}
	}()
	want(x, "closure runs on the owner's world", min(runs, 1), 1)
	want(x, "position of e on the owner's world", x.pos("e", x.w, e), v2(2, 2))
	want(x, "position of f on the owner's world", x.pos("f", x.w, f), v2(3, 3))
	x.wantVersionIsWorld("after a closure that " + what + " when run again")
	r.Set(e, pt(4, 4))
	x.commitMayDiverge("second commit")
	x.wantVersionIsWorld("after a second commit")
}

// UncheckedReplayer is implemented by versioned-read strategies that can be set to replay
// closures on their readers' copy without checking what the replay wrote: UncheckedReplay
// reports whether this one does. A closure whose replay writes other values than its first
// run then leaves readers on a state the owner never had — the declared limit of that
// setting — and TestVersions's VersionAfterValueImpureClosure row skips.
type UncheckedReplayer interface {
	UncheckedReplay() bool
}

// checkVersionValueImpureClosure: a closure that writes another value each time it runs
// (it creates nothing, so only the values tell its replay from its first run): readers see
// the owner's world — or, where the strategy declares it replays closures unchecked, the
// state the replay left, in which the closure ran twice.
func checkVersionValueImpureClosure(x *fixture) {
	u, ok := x.s.(UncheckedReplayer)
	unchecked := ok && u.UncheckedReplay()
	e, f := x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	r := x.rec()
	r.Set(f, pt(1, 1))
	runs := 0
	r.Do(func(w *ecs.World) error {
		runs++
		return w.Set(e, pt(float64(runs), float64(runs)))
	})
	r.Set(f, pt(2, 2))
	x.commitMayDiverge("commit of a closure that writes another value when run again")
	want(x, "position of e on the owner's world", x.pos("e", x.w, e), v2(1, 1))
	if !unchecked {
		x.wantVersionIsWorld("after a closure that writes another value when run again")
		r.Set(f, pt(3, 3))
		x.commitMayDiverge("second commit")
		x.wantVersionIsWorld("after a second commit")
		return
	}
	vr := need[deferral.VersionReader](x, "TestVersions")
	vr.Read(func(w *ecs.World) error {
		want(x, "position of e read after an unchecked replay (the closure's second run)", x.pos("read", w, e), v2(2, 2))
		want(x, "position of f read after an unchecked replay", x.pos("read", w, f), v2(2, 2))
		return nil
	})
}

// checkVersionClosureBranchesOnRefusal: a pure closure that falls back when a validator
// refuses its value takes the same branch wherever it runs: readers see the owner's world,
// also where the closure runs again on a replica that replays other commands without
// validating them.
func checkVersionClosureBranchesOnRefusal(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	refused := -tokens.Add(1)
	r := x.rec()
	r.Do(func(w *ecs.World) error {
		if err := counted.Add(w, e, refused); errors.Is(err, ecs.ErrInvalidValue) {
			return countedOther.Add(w, e, 1)
		} else if err != nil {
			return err
		}
		return nil
	})
	x.commitMayDiverge("commit of a closure that falls back when its value is refused")
	want(x, "e has the fallback component on the owner's world", countedOther.Has(x.w, e) && !counted.Has(x.w, e), true)
	x.wantVersionIsWorld("after a closure that fell back on a refused value")
}

// firstRunOnly returns a closure that runs fn the first time it is called and does nothing
// after: what a replay of it on a readers' copy would not redo.
func firstRunOnly(fn func(*ecs.World) error) func(*ecs.World) error {
	ran := false
	return func(w *ecs.World) error {
		if ran {
			return nil
		}
		ran = true
		return fn(w)
	}
}

// impureClosure publishes a world of one entity, then stages on a new recorder, which it
// returns, a closure that creates an entity the first time it runs only.
func impureClosure(x *fixture) *deferral.Recorder {
	x.create(x.w, pt(0, 0))
	x.commit("publish the setup", x.s)
	r := x.rec()
	r.Do(firstRunOnly(func(w *ecs.World) error {
		_, err := w.Create(pt(9, 9))
		return err
	}))
	return r
}

// wantImpureCreateRead commits impureClosure's closure and the create of placeholder p staged
// after it (what names it), and requires readers to see the world, and in it the entity p
// became at position (1, 1).
func wantImpureCreateRead(x *fixture, what string, p ecs.Entity) {
	x.commitMayDiverge("commit of an impure closure and a " + what)
	ep := x.resolve("the "+what+" after the impure closure", x.s, p)
	x.wantVersionIsWorld("after an impure closure and a " + what)
	vr := need[deferral.VersionReader](x, "TestVersions")
	vr.Read(func(w *ecs.World) error {
		want(x, "read of the entity the "+what+" made: position", x.pos("read", w, ep), v2(1, 1))
		return nil
	})
}
