package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// failedCommit is the state after a commit that stopped at its fourth command:
//
//	0 create p           applied
//	1 add e1 Velocity    applied
//	2 closure (runs++)   applied
//	3 set e2 Velocity    fails: e2 lacks Velocity (closure variant: a closure that fails
//	                     while the cause is not fixed, then gives e2 that velocity)
//	4 create q           pending
//	5 destroy e1         pending
//	6 add p Velocity     pending (names the placeholder the prefix created)
type failedCommit struct {
	r      *deferral.Recorder
	p, q   ecs.Entity // placeholders
	e1, e2 ecs.Entity
	runs   *int
	err    error
	broken *bool // closure variant: the failing closure fails while it is true
	cause  error // what the failing command's error wraps
}

// errBroken is what the failing closure of a closure variant returns until its cause is fixed.
var errBroken = errors.New("conformance: closure fails until its cause is fixed")

// failing stages the variant's failing command on r: a Set of e's Velocity (e lacks it) or a
// closure that fails while *broken and otherwise gives e the velocity v. It returns the cause
// the commit's error wraps.
func (x *fixture) failing(r *deferral.Recorder, e ecs.Entity, v workload.Vec2, broken *bool) error {
	if !x.v.closure {
		r.Set(e, workload.Velocity.Value(v))
		return ecs.ErrMissingComponent
	}
	*broken = true
	r.Do(func(w *ecs.World) error {
		if *broken {
			return errBroken
		}
		return w.Upsert(e, workload.Velocity.Value(v))
	})
	return errBroken
}

// fixFailing removes the cause of a command x.failing staged on e: e gets a velocity, or the
// closure is mended.
func (x *fixture) fixFailing(e ecs.Entity, broken *bool) {
	x.Helper()
	if *broken {
		*broken = false
		return
	}
	if err := workload.Velocity.Add(x.w, e, v2(0, 0)); err != nil {
		x.Fatalf("setup: give %v a velocity: %v", e, err)
	}
}

// fix removes the cause of the failing command: e2 gets a velocity, or the closure is mended.
func (fc *failedCommit) fix(x *fixture) {
	x.Helper()
	if *fc.broken {
		*fc.broken = false
		return
	}
	if err := workload.Velocity.Add(x.w, fc.e2, v2(0, 0)); err != nil { // fix the cause at the sync point
		x.Fatalf("setup: give e2 a velocity: %v", err)
	}
}

func (x *fixture) failCommit() *failedCommit {
	x.Helper()
	fc := &failedCommit{runs: new(int), broken: new(bool)}
	fc.e1 = x.create(x.w, pt(0, 0))
	fc.e2 = x.create(x.w, pt(0, 0))
	fc.r = x.rec()
	fc.p = fc.r.Create(pt(1, 1))
	fc.r.Add(fc.e1, vl(1, 1))
	fc.r.Do(func(*ecs.World) error { *fc.runs++; return nil })
	fc.cause = x.failing(fc.r, fc.e2, v2(2, 2), fc.broken)
	fc.q = fc.r.Create(pt(3, 3))
	fc.r.Destroy(fc.e1)
	fc.r.Add(fc.p, vl(6, 6))
	fc.err = x.s.Commit()
	x.wantFailedAt("commit failing at command 3", fc.err, deferral.Pos{Recorder: fc.r.Index(), Index: 3}, fc.cause)
	return fc
}

// wantFailedAt reports unless err is a *deferral.CommandError at pos wrapping cause.
func (x *fixture) wantFailedAt(op string, err error, pos deferral.Pos, cause error) {
	x.Helper()
	var ce *deferral.CommandError
	switch {
	case err == nil:
		x.Fatalf("%s: got nil error, want a *deferral.CommandError at %+v wrapping %v", op, pos, cause)
	case !errors.As(err, &ce):
		x.Errorf("%s: got error %T %v, want a *deferral.CommandError", op, err, err)
	default:
		want(x, op+": error position", ce.Pos, pos)
	}
	x.wantIs(op, err, cause)
}

// wantPrefixOnly checks the world holds the failed commit's prefix and not its suffix.
func (x *fixture) wantPrefixOnly(op string, fc *failedCommit) {
	x.Helper()
	ep := x.resolve(op+": placeholder created in the prefix", x.s, fc.p)
	x.wantAlive(op+": entity created in the prefix", x.w, ep, true)
	if _, ok := vel(x.w, ep); ok {
		x.Errorf("%s: entity created in the prefix: velocity present, want none (its add is in the suffix)", op)
	}
	v, ok := vel(x.w, fc.e1)
	want(x, op+": e1 has the velocity added in the prefix", ok, true)
	want(x, op+": e1's velocity", v, v2(1, 1))
	want(x, op+": prefix closure runs", *fc.runs, 1)
	_, ok = vel(x.w, fc.e2)
	want(x, op+": e2 has the velocity of the failed set", ok, false)
	x.wantAlive(op+": e1 (its destroy is in the suffix)", x.w, fc.e1, true)
	want(x, op+": live entities (e1, e2, p; q is in the suffix)", x.w.Len(), 3)
	_, err := x.s.Resolve(fc.q)
	x.wantIs(op+": resolve the suffix's placeholder", err, deferral.ErrUnresolved)
}

// checkFailurePrefixRetained: when command k fails, the commands before it stay applied with
// their receipts, k and everything after it stay pending, and the report cannot be taken.
func checkFailurePrefixRetained(x *fixture) {
	fc := x.failCommit()
	x.wantPrefixOnly("after the failed commit", fc)
	want(x, "pending after the failed commit (commands 3 to 6)", x.s.Pending(), 4)
	_, err := x.s.TakeReport()
	x.wantIs("take report after the failed commit", err, deferral.ErrPending)
}

// checkFailureRetryNoReplay: a retry applies only what is pending: while the cause persists
// it fails again at the same command without touching the world; once the cause is fixed it
// applies the suffix, never the prefix again, and the receipts of both attempts add up.
func checkFailureRetryNoReplay(x *fixture) {
	fc := x.failCommit()
	h := x.w.Hash()
	err := x.s.Commit()
	x.wantFailedAt("retry with the cause unfixed", err, deferral.Pos{Recorder: fc.r.Index(), Index: 3}, fc.cause)
	x.wantHash("retry with the cause unfixed", x.w, h)
	x.wantPrefixOnly("after the unfixed retry", fc)
	want(x, "pending after the unfixed retry", x.s.Pending(), 4)

	fc.fix(x)
	x.commit("retry with the cause fixed", x.s)
	want(x, "pending after the retry", x.s.Pending(), 0)
	want(x, "closure runs (the prefix's closure must not run again)", *fc.runs, 1)
	v, _ := vel(x.w, fc.e2)
	want(x, "e2's velocity (the retried set)", v, v2(2, 2))
	x.wantAlive("e1 (destroyed by the suffix)", x.w, fc.e1, false)
	eq := x.resolve("suffix's placeholder", x.s, fc.q)
	x.wantAlive("entity created by the suffix", x.w, eq, true)
	want(x, "live entities (e2, p, q: the prefix's create applied once)", x.w.Len(), 3)

	rep, err := x.s.TakeReport()
	x.wantNil("take report after the retry", err)
	want(x, "report: created entities (p once, then q)", len(rep.Created), 2)
	if len(rep.Created) == 2 {
		want(x, "report: second created entity", rep.Created[1], eq)
		ep := rep.Created[0]
		x.wantAlive("report: first created entity", x.w, ep, true)
		v, ok := vel(x.w, ep)
		want(x, "retried add on the prefix's placeholder: velocity present", ok, true)
		want(x, "retried add on the prefix's placeholder: velocity", v, v2(6, 6))
	}
	x.compareReport("report of the failed commit and its retry", rep, deferral.Report{
		Created: rep.Created, Destroyed: 1, Applied: 7,
	})
}

// checkFailureDiscard: Discard after a failed commit drops exactly the pending suffix and
// clears the failure: the prefix stays, receipts of the prefix can be taken, and the next
// commit works. Discard also drops commands that were merely staged.
func checkFailureDiscard(x *fixture) {
	fc := x.failCommit()
	want(x, "discard after the failed commit", x.s.Discard(), 4)
	want(x, "pending after discard", x.s.Pending(), 0)
	want(x, "discard again", x.s.Discard(), 0)
	x.wantPrefixOnly("after discard", fc)
	rep, err := x.s.TakeReport()
	x.wantNil("take report after discard", err)
	want(x, "report after discard: created entities (the prefix's one)", len(rep.Created), 1)
	x.compareReport("report after discard", rep, deferral.Report{Created: rep.Created, Applied: 3})

	fc.r.Create(pt(4, 4))
	fc.r.Destroy(fc.e1)
	x.commit("commit after discard", x.s)
	x.wantAlive("e1 destroyed by the commit after discard", x.w, fc.e1, false)
	want(x, "live entities after the commit after discard", x.w.Len(), 3)

	h := x.w.Hash()
	fc.r.Create(pt(5, 5))
	fc.r.Destroy(fc.e2)
	want(x, "discard of staged (not failed) commands", x.s.Discard(), 2)
	x.commit("commit after discarding staged commands", x.s)
	x.wantHash("commit after discarding staged commands", x.w, h)
}

// checkFailureClose: Close with pending commands — staged or left by a failed commit — is
// deferral.ErrPendingAtClose and leaves the strategy open; after Discard it succeeds, twice;
// a commit after Close is deferral.ErrClosed and changes nothing.
func checkFailureClose(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Create(pt(1, 1))
	x.wantIs("close with a staged command", x.s.Close(), deferral.ErrPendingAtClose)
	want(x, "pending after the refused close", x.s.Pending(), 1+2*(x.v.recorders-1))
	x.commit("commit after the refused close (the strategy stays open)", x.s)
	want(x, "live entities after that commit", x.w.Len(), 2)

	x.failing(r, e, v2(1, 1), new(bool)) // fails: e lacks Velocity, or the closure is broken
	r.Create(pt(2, 2))
	if err := x.s.Commit(); err == nil {
		x.Errorf("commit of a set of a missing component: got nil error, want one")
	}
	x.wantIs("close after a failed commit", x.s.Close(), deferral.ErrPendingAtClose)
	want(x, "discard", x.s.Discard(), 2)
	x.wantNil("close after discard", x.s.Close())
	x.wantNil("close twice", x.s.Close())

	h := x.w.Hash()
	r.Create(pt(3, 3))
	x.wantIs("commit after close", x.s.Commit(), deferral.ErrClosed)
	x.wantHash("commit after close", x.w, h)
}

// checkStagedAfterClose: commands staged after Close — a million typed commands and a
// thousand closures from a recorder that had room allocated before Close, then more from four
// producers staging at once — are never applied
// and never lost without a trace: Pending counts every one, Commit returns deferral.ErrClosed
// and changes nothing, a second Close is a no-op and Discard drops them all. The strategy's
// storage does not grow for them: staging them allocates less than a sixteenth of what
// storing the typed records would take.
func checkStagedAfterClose(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	for i := range 100 { // a working size, allocated before Close
		r.Add(e, vl(float64(i), 0))
	}
	x.commit("commit before close", x.s)
	x.wantNil("close", x.s.Close())
	h := x.w.Hash()
	const typed, closures = 1_000_000, 1_000
	noop := func(*ecs.World) error { return nil }
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range typed {
		r.Add(e, vl(float64(i), 1))
	}
	for range closures {
		r.Do(noop)
	}
	runtime.ReadMemStats(&after)
	budget := uint64(typed * unsafe.Sizeof(deferral.Command{}) / 16)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > budget {
		x.Errorf("staging %d typed commands and %d closures after close allocated %d bytes; want at most %d (the storage of a closed strategy must not grow)", typed, closures, grown, budget)
	}
	want(x, "pending after staging after close", x.s.Pending(), typed+closures)

	// Producers on their own goroutines, staging at once after Close (under -race: what
	// they count must be counted safely).
	const producers, each = 4, 10_000
	var wg sync.WaitGroup
	for range producers {
		wg.Add(1)
		go func(r *deferral.Recorder) {
			defer wg.Done()
			for i := range each {
				r.Add(e, vl(float64(i), 2))
				r.Do(noop)
			}
		}(x.s.NewRecorder())
	}
	wg.Wait()
	staged := typed + closures + producers*2*each
	want(x, "pending after producers staged after close", x.s.Pending(), staged)
	x.wantIs("commit after close", x.s.Commit(), deferral.ErrClosed)
	x.wantHash("commit after close", x.w, h)
	x.wantNil("close twice, with commands staged after the first", x.s.Close())
	want(x, "discard after close", x.s.Discard(), staged)
	want(x, "pending after discard", x.s.Pending(), 0)
	x.wantIs("commit after close and discard", x.s.Commit(), deferral.ErrClosed)
}

// tags is a component that is not inline (it holds pointers): it can be staged only through
// the closure tier.
var tags = ecs.NewComponent[[]string]("conformance.Tags", nil)

// checkClosureTier: closures staged with Do run in FIFO order with the typed commands, see the
// world as the commands before them left it, can reach non-inline components, and an error
// they return is a failing command (VerbFunc) under the failure policy.
func checkClosureTier(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	var log []string
	see := func(step string, wantVel workload.Vec2) func(*ecs.World) error {
		return func(w *ecs.World) error {
			v, _ := vel(w, e)
			log = append(log, fmt.Sprintf("%s:%v", step, v))
			if v != wantVel {
				x.Errorf("closure %s: velocity: got %v, want %v (the command staged before it)", step, v, wantVel)
			}
			return nil
		}
	}
	r.Add(e, vl(1, 1))
	r.Do(see("a", v2(1, 1)))
	r.Set(e, vl(2, 2))
	r.Do(see("b", v2(2, 2)))
	r.Do(func(w *ecs.World) error { return tags.Add(w, e, []string{"closure", "tier"}) })
	p := r.Create(pt(5, 5))
	r.Do(func(w *ecs.World) error {
		log = append(log, fmt.Sprintf("c:%d", w.Len()))
		return nil
	})
	x.commit("closures among typed commands", x.s)
	want(x, "closure log", fmt.Sprint(log), fmt.Sprint([]string{"a:{1 1}", "b:{2 2}", "c:2"}))
	if got, err := tags.Get(x.w, e); err != nil || len(got) != 2 {
		x.Errorf("non-inline component added by a closure: got %v (error %v), want [closure tier]", got, err)
	}
	ep := x.resolve("create among closures", x.s, p)
	x.wantReport("closures among typed commands", x.s, deferral.Report{Created: []ecs.Entity{ep}, Applied: 7})

	errBoom := errors.New("conformance: closure failed on purpose")
	calls := 0
	r.Add(e, pt(7, 7))
	r.Do(func(*ecs.World) error {
		calls++
		if calls == 1 {
			return errBoom
		}
		return nil
	})
	r.Add(e, pt(8, 8))
	err := x.s.Commit()
	x.wantFailedAt("commit with a failing closure", err, deferral.Pos{Recorder: r.Index(), Index: 1}, errBoom)
	var ce *deferral.CommandError
	if errors.As(err, &ce) {
		want(x, "failing closure: verb", ce.Verb, deferral.VerbFunc)
	}
	want(x, "position after the failing closure (prefix applied)", x.pos("after closure failure", x.w, e), v2(7, 7))
	want(x, "pending after the failing closure", x.s.Pending(), 2)
	x.commit("retry after the failing closure", x.s)
	want(x, "closure calls (failed once, then retried)", calls, 2)
	want(x, "position after the retry", x.pos("after retry", x.w, e), v2(8, 8))
	x.wantReport("failing closure and retry", x.s, deferral.Report{Applied: 3})
}

// checkFIFO: commands of one recorder apply in the order staged: the last of several Sets
// wins, Add/Remove sequences end as staged, creates are received in staging order — also when
// another recorder stages in between.
func checkFIFO(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	f := x.create(x.w, pt(0, 0))
	r0, r1 := x.s.NewRecorder(), x.s.NewRecorder()
	var ps []ecs.Entity
	for i := 1; i <= 50; i++ {
		r0.Set(e, pt(float64(i), 0))
		r1.Set(f, pt(0, float64(i)))
		ps = append(ps, r0.Create(pt(float64(i), -1)))
	}
	r0.Add(e, vl(1, 1))
	r0.Remove(e, workload.Velocity.ID())
	r0.Add(e, vl(3, 3))
	r1.Remove(f, workload.Position.ID())
	r1.Add(f, pt(9, 9))
	r1.Add(f, vl(9, 9))
	r1.Remove(f, workload.Velocity.ID())
	x.commit("sequences within recorders", x.s)
	want(x, "e's position (last of 50 sets by recorder 0)", x.pos("e", x.w, e), v2(50, 0))
	v, ok := vel(x.w, e)
	want(x, "e has velocity (add, remove, add)", ok, true)
	want(x, "e's velocity", v, v2(3, 3))
	want(x, "f's position (sets, remove, add by recorder 1)", x.pos("f", x.w, f), v2(9, 9))
	_, ok = vel(x.w, f)
	want(x, "f has velocity (add, remove)", ok, false)
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	var wantCreated []ecs.Entity
	for i, p := range ps {
		wantCreated = append(wantCreated, x.resolve(fmt.Sprintf("create %d", i), x.s, p))
	}
	x.compareReport("sequences within recorders", rep, deferral.Report{Created: wantCreated, Applied: 157})
}
