package conformance

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkPositionNestedFailedCommit: a command a closure stages during a commit that then fails
// belongs to that commit's retry, so it is numbered after the recorder's other commands since
// the last drained commit. Closure A stages a failing command, closure B fails once: the commit
// fails at B (index 1), the retry at A's command (index 2).
func checkPositionNestedFailedCommit(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	var cause error
	broken := new(bool)
	r.Do(func(*ecs.World) error { cause = x.failing(r, e, v2(1, 1), broken); return nil })
	calls := 0
	r.Do(func(*ecs.World) error {
		if calls++; calls == 1 {
			return errBroken
		}
		return nil
	})
	x.wantFailedAt("commit failing at closure B", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, errBroken)
	want(x, "pending after the first failure (B and A's command)", x.s.Pending(), 2)
	x.wantFailedAt("retry failing at the command A staged", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 2}, cause)
	want(x, "pending after the retry", x.s.Pending(), 1)
	want(x, "discard", x.s.Discard(), 1)
}

// checkPositionNestedDrainedCommit: a command a closure stages during a commit that drains is
// applied by the next commit and numbered from 0 in it, before what the owner stages after.
func checkPositionNestedDrainedCommit(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	var cause error
	r.Create(pt(1, 1))
	r.Do(func(*ecs.World) error { cause = x.failing(r, e, v2(1, 1), new(bool)); return nil })
	x.commit("commit during which a closure stages", x.s)
	want(x, "pending after the drained commit (the staged command)", x.s.Pending(), 1)
	r.Add(e, pt(2, 2))
	x.wantFailedAt("next commit", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 0}, cause)
	want(x, "position of e (the command after the failing one is pending)", x.pos("e", x.w, e), v2(0, 0))
	want(x, "discard", x.s.Discard(), 2)
}

// checkPositionAfterDiscard: Discard restarts every recorder's numbering at 0, whether it
// dropped a failed commit's suffix or commands merely staged.
func checkPositionAfterDiscard(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Add(e, pt(1, 1))
	r.Add(e, pt(2, 2))
	cause := x.failing(r, e, v2(1, 1), new(bool))
	x.wantFailedAt("commit failing at index 2", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 2}, cause)
	want(x, "discard the failed suffix", x.s.Discard(), 1)
	r.Add(e, pt(3, 3))
	x.failing(r, e, v2(1, 1), new(bool))
	x.wantFailedAt("commit after discarding a failed suffix", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, cause)
	want(x, "discard", x.s.Discard(), 1)
	r.Add(e, pt(4, 4))
	r.Add(e, pt(5, 5))
	want(x, "discard of staged commands", x.s.Discard(), 2)
	x.failing(r, e, v2(1, 1), new(bool))
	x.wantFailedAt("commit after discarding staged commands", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 0}, cause)
	want(x, "discard", x.s.Discard(), 1)
	want(x, "e's position", x.pos("e", x.w, e), v2(3, 3))
}

// checkPositionAcrossFailedCommit: commands staged after a failed commit are numbered after
// the ones staged before it (numbering restarts only when a commit drains or at Discard).
func checkPositionAcrossFailedCommit(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	f := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Add(e, pt(1, 1))
	broken := new(bool)
	cause := x.failing(r, e, v2(1, 1), broken) // index 1
	x.wantFailedAt("first commit", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, cause)
	r.Add(f, pt(2, 2))                   // index 2
	x.failing(r, f, v2(2, 2), new(bool)) // index 3: fails for good
	if *broken {
		*broken = false
	} else if err := workload.Velocity.Add(x.w, e, v2(0, 0)); err != nil {
		x.Fatalf("setup: %v", err)
	}
	x.wantFailedAt("retry with more commands staged", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 3}, cause)
	want(x, "f's position (index 2 applied)", x.pos("f", x.w, f), v2(2, 2))
	want(x, "discard", x.s.Discard(), 1)
}

// checkAddSetInvalidFails: Add or Set of a value the component's validator rejects fails the
// commit with a *deferral.CommandError wrapping ecs.ErrInvalidValue and leaves the entity as
// it was; a Create with the same value is culled instead (nothing existing is changed by
// dropping it, and its placeholder answers deferral.ErrCulled).
func checkAddSetInvalidFails(x *fixture) {
	e := x.create(x.w, pt(1, 1).With(life(5)))
	r := x.rec()
	p := r.Create(pt(2, 2).With(life(0)))
	x.commit("create with an invalid value", x.s)
	_, err := x.s.Resolve(p)
	x.wantIs("resolve the culled create", err, deferral.ErrCulled)
	x.wantReport("create with an invalid value", x.s, deferral.Report{IgnoredCreates: 1, Applied: 1})

	for _, verb := range []deferral.Verb{deferral.VerbAdd, deferral.VerbSet} {
		h := x.w.Hash()
		r.Add(e, vl(1, 1))
		if verb == deferral.VerbAdd {
			r.Add(e, life(0))
		} else {
			r.Set(e, life(-1))
		}
		r.Add(e, pt(3, 3))
		err := x.s.Commit()
		x.wantFailedAt(fmt.Sprintf("%v of an invalid value", verb), err, deferral.Pos{Recorder: r.Index(), Index: 1}, ecs.ErrInvalidValue)
		var ce *deferral.CommandError
		if errors.As(err, &ce) {
			want(x, fmt.Sprintf("%v of an invalid value: verb", verb), ce.Verb, verb)
			want(x, fmt.Sprintf("%v of an invalid value: component", verb), ce.Component, workload.Lifetime.Name())
		}
		if l, _ := workload.Lifetime.Get(x.w, e); l.Remaining != 5 {
			x.Errorf("%v of an invalid value: lifetime got %v, want 5 (unchanged)", verb, l.Remaining)
		}
		want(x, fmt.Sprintf("%v of an invalid value: pending", verb), x.s.Pending(), 2)
		want(x, "discard", x.s.Discard(), 2)
		if h == x.w.Hash() {
			x.Errorf("%v of an invalid value: world unchanged, want the prefix (add of a velocity) applied", verb)
		}
		if err := workload.Velocity.Remove(x.w, e); err != nil {
			x.Fatalf("setup: %v", err)
		}
		x.wantReport(fmt.Sprintf("%v of an invalid value", verb), x.s, deferral.Report{Applied: 1})
	}
}

// checkDestroyPlaceholderSkipped: a Destroy naming a placeholder that does not resolve — of
// another strategy instance, of an earlier commit, or never applied — is skipped (the
// placeholder row of the lenient table), never counted as an ignored destroy.
func checkDestroyPlaceholderSkipped(x *fixture) {
	s2 := x.on(x.w)
	foreign := s2.NewRecorder().Create(pt(1, 1))
	x.commit("other instance's commit", s2)
	r := x.rec()
	old := r.Create(pt(2, 2))
	x.commit("first commit", x.s)
	x.wantReport("first commit", x.s, deferral.Report{Created: []ecs.Entity{x.resolve("old", x.s, old)}, Applied: 1})
	dropped := r.Create(pt(3, 3))
	want(x, "discard", x.s.Discard(), 1)
	h := x.w.Hash()
	r.Destroy(foreign)
	r.Destroy(old)
	r.Destroy(dropped)
	x.commit("destroys of placeholders that do not resolve", x.s)
	x.wantHash("destroys of placeholders that do not resolve", x.w, h)
	x.wantReport("destroys of placeholders that do not resolve", x.s, deferral.Report{Skipped: 3, Applied: 3})
}

// checkResolutionsResetAfterRetry: what placeholders resolved to in a commit that failed and
// was retried expires with it. A closure's placeholder resolved by a retry, and one a closure
// stages in the next commit at the same recorder and sequence number, are told apart: the
// later one answers deferral.ErrUnresolved until its own create applies, and then its own
// entity.
func checkResolutionsResetAfterRetry(x *fixture) {
	r := x.rec()
	var q, q2 ecs.Entity
	r.Do(func(*ecs.World) error { q = r.Create(pt(1, 1)); return nil })
	calls := 0
	r.Do(func(*ecs.World) error {
		if calls++; calls == 1 {
			return errBroken
		}
		return nil
	})
	x.wantFailedAt("commit failing after a closure staged a create", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, errBroken)
	x.commit("retry (applies the closure's create)", x.s)
	eq := x.resolve("closure's placeholder after the retry", x.s, q)
	want(x, "q's position", x.pos("q", x.w, eq), v2(1, 1))

	r.Do(func(*ecs.World) error { q2 = r.Create(pt(2, 2)); r.Add(q2, vl(2, 2)); return nil })
	x.commit("next commit (its closure stages a create)", x.s)
	_, err := x.s.Resolve(q2)
	x.wantIs("resolve the closure's placeholder before its create applied", err, deferral.ErrUnresolved)
	_, err = x.s.Resolve(q)
	x.wantIs("resolve the retried commit's placeholder after a later commit", err, deferral.ErrUnresolved)
	x.commit("commit applying the staged create", x.s)
	e2 := x.resolve("closure's placeholder after its create applied", x.s, q2)
	if e2 == eq {
		x.Errorf("second closure placeholder resolves to the first one's entity %v", eq)
	}
	want(x, "q2's position", x.pos("q2", x.w, e2), v2(2, 2))
	if v, ok := vel(x.w, e2); !ok || v != v2(2, 2) {
		x.Errorf("add on q2: velocity got %v (present %v), want {2 2}", v, ok)
	}
	if _, ok := vel(x.w, eq); ok {
		x.Errorf("add on q2 reached q's entity %v", eq)
	}
}

// checkFailureClearedByDiscard: after a failed commit is discarded nothing of the failure is
// left: reports, Close and the next commit behave as if it never failed, and the retry a
// failure allows does not replay anything.
func checkFailureClearedByDiscard(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Add(e, pt(1, 1))
	x.failing(r, e, v2(1, 1), new(bool))
	if x.s.Commit() == nil {
		x.Fatalf("commit with a failing command: got nil error")
	}
	want(x, "discard", x.s.Discard(), 1)
	want(x, "pending after discard", x.s.Pending(), 0)
	h := x.w.Hash()
	x.commit("empty commit after discard", x.s)
	x.wantHash("empty commit after discard", x.w, h)
	x.wantReport("after discard and an empty commit", x.s, deferral.Report{Applied: 1})
	r.Add(e, pt(2, 2))
	x.commit("commit after discard", x.s)
	want(x, "e's position", x.pos("e", x.w, e), v2(2, 2))
	x.wantReport("commit after discard", x.s, deferral.Report{Applied: 1})
	if f, ok := x.s.(interface{ Failed() bool }); ok {
		want(x, "Failed after the failure was discarded", f.Failed(), false)
	}
}

// checkReportNotAliased: later commits do not change a taken report: its Created slice stays
// as it was until the next TakeReport (which may reuse its storage), and a change the caller
// makes to a report does not reach a later one.
func checkReportNotAliased(x *fixture) {
	r := x.rec()
	for i := range 3 {
		r.Create(pt(float64(i), 0))
	}
	x.commit("first commit", x.s)
	first, err := x.s.TakeReport()
	x.wantNil("take the first report", err)
	x.compareReport("first report", first, deferral.Report{Created: first.Created, Applied: 3})
	saved := slices.Clone(first.Created)
	for i := range 5 {
		r.Create(pt(float64(i), 1))
	}
	x.commit("second commit", x.s)
	second, err := x.s.TakeReport()
	x.wantNil("take the second report", err)
	if !slices.Equal(first.Created, saved) {
		x.Errorf("first report's Created: got %v after a later commit, want %v (unchanged)", first.Created, saved)
	}
	if len(second.Created) > 0 {
		second.Created[0] = ecs.Entity{}
	}
	r.Create(pt(9, 9))
	x.commit("third commit", x.s)
	third, err := x.s.TakeReport()
	x.wantNil("take the third report", err)
	if len(third.Created) != 1 || third.Created[0].IsZero() {
		x.Errorf("third report's Created: got %v, want one entity (a change to an earlier report must not reach it)", third.Created)
	}
}

// checkClosurePlaceholderRetried: a closure stages a create and a destroy of its placeholder,
// and a later command of the same commit fails. The retry applies the closure's create and
// destroy: the destroy reaches the entity.
func checkClosurePlaceholderRetried(x *fixture) {
	target := x.create(x.w, pt(0, 0))
	r := x.rec()
	var q ecs.Entity
	r.Do(func(*ecs.World) error {
		q = r.Create(pt(1, 1))
		r.Destroy(q)
		return nil
	})
	broken := new(bool)
	cause := x.failing(r, target, v2(1, 1), broken)
	x.wantFailedAt("commit failing after the closure", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 1}, cause)
	if *broken {
		*broken = false
	} else if err := workload.Velocity.Add(x.w, target, v2(0, 0)); err != nil {
		x.Fatalf("setup: %v", err)
	}
	x.commit("retry", x.s)
	want(x, "pending after the retry", x.s.Pending(), 0)
	eq := x.resolve("the closure's placeholder", x.s, q)
	x.wantAlive("entity of the closure's placeholder (destroyed by the retry)", x.w, eq, false)
	want(x, "live entities", x.w.Len(), 1)
	x.wantReport("failed commit and retry", x.s, deferral.Report{Created: []ecs.Entity{eq}, Destroyed: 1, Applied: 4})
}

// checkStagedDuringCommit: what a closure stages while the commit runs — into its own recorder
// or one the commit already passed — is applied by the next commit, never lost and never in
// the running one; a create and a destroy of its placeholder staged that way both apply.
func checkStagedDuringCommit(x *fixture) {
	r0, r1 := x.rec(), x.rec()
	var p ecs.Entity
	r1.Do(func(*ecs.World) error {
		r0.Create(pt(1, 1))
		p = r1.Create(pt(2, 2))
		r1.Destroy(p)
		return nil
	})
	x.commit("commit whose closure stages", x.s)
	want(x, "live entities after it (staged commands wait)", x.w.Len(), 0)
	want(x, "pending after it", x.s.Pending(), 3)
	_, err := x.s.Resolve(p)
	x.wantIs("resolve a placeholder staged during the last commit", err, deferral.ErrUnresolved)
	x.commit("next commit", x.s)
	want(x, "pending after the next commit", x.s.Pending(), 0)
	want(x, "live entities after the next commit", x.w.Len(), 1)
	ep := x.resolve("placeholder staged during the commit before", x.s, p)
	x.wantAlive("entity created and destroyed by staged commands", x.w, ep, false)
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	x.compareReport("two commits", rep, deferral.Report{Created: rep.Created, Destroyed: 1, Applied: 4})
	want(x, "created entities", len(rep.Created), 2)
}

// checkDiscardFromClosureRefused: Discard from a closure while the commit runs drops nothing
// and returns 0, and leaves no trace (the commit's placeholders keep resolving, also through a
// failure and its retry); Commit from a closure is deferral.ErrReentry; the running commit goes
// on.
func checkDiscardFromClosureRefused(x *fixture) {
	r := x.rec()
	p := r.Create(pt(1, 1))
	var dropped int
	var reentry error
	r.Do(func(*ecs.World) error {
		dropped = x.s.Discard()
		reentry = x.s.Commit()
		return nil
	})
	r.Create(pt(2, 2))
	x.commit("commit whose closure discards and commits", x.s)
	want(x, "discard from a closure", dropped, 0)
	x.wantIs("commit from a closure", reentry, deferral.ErrReentry)
	want(x, "live entities (nothing was discarded)", x.w.Len(), 2)
	want(x, "pending", x.s.Pending(), 0)
	x.resolve("placeholder of the commit whose closure discarded", x.s, p)

	q := r.Create(pt(3, 3))
	r.Do(func(*ecs.World) error { dropped = x.s.Discard(); return nil })
	broken, e4 := new(bool), x.create(x.w, pt(4, 4))
	x.failing(r, e4, v2(1, 1), broken)
	r.Add(q, vl(5, 5))
	if x.s.Commit() == nil {
		x.Fatalf("commit with a failing command: got nil error")
	}
	want(x, "discard from a closure of a commit that fails", dropped, 0)
	x.fixFailing(e4, broken)
	x.commit("retry", x.s)
	eq := x.resolve("placeholder created before the refused discard, after the retry", x.s, q)
	if v, ok := vel(x.w, eq); !ok || v != v2(5, 5) {
		x.Errorf("add on the placeholder after the retry: velocity got %v (present %v), want {5 5}", v, ok)
	}
}

// errFuse is what fuse's validator panics with, on a negative value.
var errFuse = errors.New("conformance: validator panics on purpose")

// fuse is a component whose validator panics on a negative value: user code that runs
// inside a typed command, as a closure does.
var fuse = ecs.NewComponent[int32]("conformance.Fuse", func(v int32) bool {
	if v < 0 {
		panic(errFuse)
	}
	return true
})

// checkNestedCommitError: a closure that commits another strategy instance, whose command
// fails, and returns that error fails its own commit at the closure: the error names the
// outer command (verb func) and still wraps the inner cause.
func checkNestedCommitError(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	s2 := x.on(x.w)
	r2 := s2.NewRecorder()
	s2.NewRecorder().Create(pt(9, 9))
	r2.Set(e, vl(1, 1)) // fails: e lacks Velocity
	r := x.rec()
	r.Add(e, pt(1, 1))
	r.Do(func(*ecs.World) error { return s2.Commit() })
	err := x.s.Commit()
	x.wantFailedAt("commit whose closure commits a failing strategy", err, deferral.Pos{Recorder: r.Index(), Index: 1}, ecs.ErrMissingComponent)
	var ce *deferral.CommandError
	if errors.As(err, &ce) {
		want(x, "outer error: verb", ce.Verb, deferral.VerbFunc)
	}
	want(x, "discard", x.s.Discard(), 1)
}

// checkConcurrentMint: recorders minted from many goroutines at once are numbered 0…n-1,
// each number once; with a reproducible order the commit applies them in that order.
func checkConcurrentMint(x *fixture) {
	const n = 32
	for round := range 5 {
		w, s := x.pair()
		recs := make([]*deferral.Recorder, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				recs[i] = s.NewRecorder()
			})
		}
		close(start)
		wg.Wait()
		seen := make([]bool, n)
		for _, r := range recs {
			if i := r.Index(); i < 0 || i >= n || seen[i] {
				x.Errorf("round %d: recorder index %d: out of range or given twice", round, i)
			} else {
				seen[i] = true
			}
			r.Create(pt(float64(r.Index()), 0))
		}
		x.commit("commit of concurrently minted recorders", s)
		rep, err := s.TakeReport()
		x.wantNil("take report", err)
		want(x, "created entities", len(rep.Created), n)
		if !x.caps.ReproducibleOrder {
			continue
		}
		for k, e := range rep.Created {
			if p := x.pos("created", w, e); int(p.X) != k {
				x.Errorf("round %d: create %d came from recorder %v, want recorder order", round, k, p.X)
				break
			}
		}
	}
}

// checkLifecycle: one recorder through a strategy's life: create and change a placeholder,
// resolve it, fail a commit at a Set of a removed component, refuse the report and Close
// while the suffix is pending, discard it, close.
func checkLifecycle(x *fixture) {
	r := x.rec()
	p := r.Create(pt(1, 2))
	r.Add(p, vl(3, 4))
	r.Set(p, vl(5, 6))
	x.commit("create and change a placeholder", x.s)
	e := x.resolve("placeholder", x.s, p)
	if v, _ := vel(x.w, e); v != v2(5, 6) {
		x.Errorf("velocity: got %v, want {5 6}", v)
	}
	r.Set(e, pt(9, 9))
	r.Remove(e, workload.Velocity.ID())
	r.Set(e, vl(1, 1)) // fails: the remove before it took Velocity away
	r.Destroy(e)
	x.wantFailedAt("set after remove", x.s.Commit(), deferral.Pos{Recorder: r.Index(), Index: 2}, ecs.ErrMissingComponent)
	want(x, "pending after the failure", x.s.Pending(), 2)
	_, err := x.s.TakeReport()
	x.wantIs("take report while pending", err, deferral.ErrPending)
	x.wantIs("close while pending", x.s.Close(), deferral.ErrPendingAtClose)
	want(x, "discard", x.s.Discard(), 2)
	x.wantReport("lifecycle", x.s, deferral.Report{Created: []ecs.Entity{e}, Applied: 5})
	x.wantNil("close", x.s.Close())
}

// checkStagedAfterFailureKeyOrder: commands staged after a failed commit join its pending
// suffix in the declared order: with sort keys, a command with a lower key applies before the
// suffix.
func checkStagedAfterFailureKeyOrder(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r0 := x.s.NewRecorder()
	r1 := x.s.NewRecorder()
	r0.SetSortKey(5)
	broken := true
	var log []string
	r0.Do(func(*ecs.World) error {
		if broken {
			return errBroken
		}
		log = append(log, "suffix")
		return nil
	})
	x.wantFailedAt("commit", x.s.Commit(), deferral.Pos{Recorder: r0.Index(), Index: 0}, errBroken)
	r1.SetSortKey(1)
	r1.Do(func(*ecs.World) error { log = append(log, "later, key 1"); return nil })
	r0.SetSortKey(9)
	r0.Add(e, pt(1, 1))
	r0.Do(func(*ecs.World) error { log = append(log, "later, key 9"); return nil })
	broken = false
	x.commit("retry with commands staged after the failure", x.s)
	switch {
	case x.caps.ReproducibleOrder && x.caps.SortKeys:
		want(x, "apply order", fmt.Sprint(log), fmt.Sprint([]string{"later, key 1", "suffix", "later, key 9"}))
	case x.caps.ReproducibleOrder:
		want(x, "apply order", fmt.Sprint(log), fmt.Sprint([]string{"suffix", "later, key 9", "later, key 1"}))
	default:
		if len(log) != 3 || slices.Index(log, "suffix") > slices.Index(log, "later, key 9") {
			x.Errorf("apply order: got %v, want each command once, FIFO within a recorder", log)
		}
	}
}

// checkPositionAcrossRecorders: with three recorders holding commands (typed and closures),
// a failing command on the middle one is named by that recorder and its own FIFO index,
// whatever the order across recorders; on a retry with more staged on every recorder the
// same command is named; once fixed, a second failing command staged after the suffix is
// named by its index counted across the failed commit; the other recorders' commands apply
// once each.
func checkPositionAcrossRecorders(x *fixture) {
	e0 := x.create(x.w, pt(0, 0))
	e1 := x.create(x.w, pt(0, 0))
	e2 := x.create(x.w, pt(0, 0))
	r0, r1, r2 := x.rec(), x.s.NewRecorder(), x.s.NewRecorder()
	r1.SetSortKey(x.v.key)
	r2.SetSortKey(x.v.key)
	runs := 0
	r0.Set(e0, pt(1, 1))
	r0.Do(func(*ecs.World) error { runs++; return nil })
	r2.Set(e2, pt(1, 1))
	r2.Create(pt(9, 9))
	r1.Set(e1, pt(1, 1))
	r1.Do(func(*ecs.World) error { return nil })
	r1.Set(e1, pt(2, 2))
	broken := new(bool)
	cause := x.failing(r1, e1, v2(1, 1), broken) // r1's index 3
	r1.Set(e1, pt(3, 3))
	r0.Set(e0, pt(2, 2))
	at := deferral.Pos{Recorder: r1.Index(), Index: 3}
	x.wantFailedAt("commit failing on the middle recorder", x.s.Commit(), at, cause)
	want(x, "position of e1 (r1's prefix applied)", x.pos("e1", x.w, e1), v2(2, 2))
	r0.Set(e0, pt(3, 3))
	r2.Set(e2, pt(3, 3))
	x.wantFailedAt("retry with more staged on the other recorders", x.s.Commit(), at, cause)
	x.fixFailing(e1, broken)
	r1.Set(e1, pt(4, 4)) // r1's index 5
	broken2 := new(bool)
	x.failing(r1, e1, v2(1, 1), broken2) // r1's index 6: a closure fails again, a typed set now passes
	err := x.s.Commit()
	if x.v.closure {
		x.wantFailedAt("commit after the fix, failing at the second failing command", err, deferral.Pos{Recorder: r1.Index(), Index: 6}, cause)
		want(x, "pending (the second failing command, and what orders after it)", x.s.Pending() >= 1, true)
		x.fixFailing(e1, broken2)
		x.commit("commit after fixing the second", x.s)
	} else {
		x.wantNil("commit after the fix", err)
	}
	want(x, "position of e0", x.pos("e0", x.w, e0), v2(3, 3))
	want(x, "position of e1", x.pos("e1", x.w, e1), v2(4, 4))
	want(x, "position of e2", x.pos("e2", x.w, e2), v2(3, 3))
	want(x, "runs of r0's closure (never replayed)", runs, 1)
	want(x, "pending", x.s.Pending(), 0)
}
