package conformance

import (
	"fmt"
	"slices"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkPlaceholderSameRecorder: commands on a placeholder staged earlier in the same recorder
// apply to the entity it becomes, including its destruction.
func checkPlaceholderSameRecorder(x *fixture) {
	r := x.rec()
	p := r.Create(pt(1, 1))
	r.Add(p, vl(2, 2))
	r.Set(p, pt(3, 3))
	r.Add(p, life(5))
	r.Remove(p, workload.Lifetime.ID())
	q := r.Create(pt(9, 9))
	r.Destroy(q)
	x.commit("commands on placeholders", x.s)
	e := x.resolve("placeholder p", x.s, p)
	eq := x.resolve("placeholder q", x.s, q)
	want(x, "p's position (set on the placeholder)", x.pos("p", x.w, e), v2(3, 3))
	got, ok := vel(x.w, e)
	want(x, "p has velocity (added on the placeholder)", ok, true)
	want(x, "p's velocity", got, v2(2, 2))
	want(x, "p has lifetime (added, then removed on the placeholder)", workload.Lifetime.Has(x.w, e), false)
	x.wantAlive("q (destroyed on its placeholder)", x.w, eq, false)
	want(x, "live entities", x.w.Len(), 1)
	x.wantReport("commands on placeholders", x.s, deferral.Report{Created: []ecs.Entity{e, eq}, Destroyed: 1, Applied: 7})
}

// checkPlaceholderOtherRecorder: a placeholder may be named by any recorder of the same
// strategy. Such a command applies when the create applied earlier in apply order, and is
// skipped otherwise — never an error. With a reproducible order the suite knows which; without
// one it asserts that each command either applied or was skipped, consistently with the
// report.
func checkPlaceholderOtherRecorder(x *fixture) {
	r0, r1 := x.s.NewRecorder(), x.s.NewRecorder()
	p := r0.Create(pt(1, 1)) // recorder 0 creates, recorder 1 names it: 0 applies first
	r1.Add(p, vl(1, 1))
	q := r1.Create(pt(2, 2)) // recorder 1 creates, recorder 0 names it: 0 applies first
	r0.Add(q, vl(2, 2))
	x.commit("placeholders named across recorders", x.s)
	ep, eq := x.resolve("p", x.s, p), x.resolve("q", x.s, q)
	_, pv := vel(x.w, ep)
	_, qv := vel(x.w, eq)
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	if x.caps.ReproducibleOrder {
		want(x, "add on recorder 0's placeholder from recorder 1 (create applied before): applied", pv, true)
		want(x, "add on recorder 1's placeholder from recorder 0 (create not applied yet): applied", qv, false)
		x.compareReport("placeholders across recorders", rep, deferral.Report{Created: []ecs.Entity{ep, eq}, Skipped: 1, Applied: 4})
	} else {
		skipped := 0
		for _, applied := range []bool{pv, qv} {
			if !applied {
				skipped++
			}
		}
		want(x, "report.Skipped: the adds that did not apply", rep.Skipped, skipped)
		want(x, "report.Applied", rep.Applied, 4)
		want(x, "report: created entities", len(rep.Created), 2)
		x.Logf("cross-recorder placeholder adds: p applied=%v, q applied=%v", pv, qv)
	}
	if !x.caps.SortKeys {
		return
	}
	// Sort keys can put recorder 1's create first.
	r1.SetSortKey(0)
	r0.SetSortKey(1)
	k := r1.Create(pt(3, 3))
	r0.Add(k, vl(3, 3))
	x.commit("placeholder named from a recorder with a later sort key", x.s)
	ek := x.resolve("k", x.s, k)
	_, kv := vel(x.w, ek)
	want(x, "add on a placeholder whose create has a lower sort key: applied", kv, true)
	x.wantReport("sort-keyed placeholder", x.s, deferral.Report{Created: []ecs.Entity{ek}, Applied: 2})
}

// checkPlaceholderCulled: commands naming a placeholder whose create was culled are skipped
// and counted, from the same recorder or another, whatever the order.
func checkPlaceholderCulled(x *fixture) {
	b := x.create(x.w, pt(0, 0))
	h := x.w.Hash()
	r0, r1 := x.rec(), x.rec()
	p := r0.Create(pt(1, 1).With(life(0)))
	r0.Add(p, vl(1, 1))
	r0.Set(p, pt(2, 2))
	r0.Remove(p, workload.Position.ID())
	r0.Destroy(p)
	r1.Add(p, vl(1, 1)) // before or after the cull: skipped either way
	x.commit("commands on a culled placeholder", x.s)
	x.wantHash("commands on a culled placeholder", x.w, h)
	x.wantAlive("bystander", x.w, b, true)
	_, err := x.s.Resolve(p)
	x.wantIs("resolve culled placeholder", err, deferral.ErrCulled)
	x.wantReport("commands on a culled placeholder", x.s, deferral.Report{IgnoredCreates: 1, Skipped: 5, Applied: 6})
}

// checkPlaceholderForeign: a placeholder minted by another strategy instance (over the same
// World or another) is skipped by every command and refused by Resolve with
// deferral.ErrForeignPlaceholder — even after its own strategy resolved it.
func checkPlaceholderForeign(x *fixture) {
	s2 := x.on(x.w) // same world, other instance
	p := s2.NewRecorder().Create(pt(1, 1))
	x.commit("other strategy's commit", s2)
	ep := x.resolve("other strategy resolves its own placeholder", s2, p)
	w3, s3 := x.pair() // other world
	p3 := s3.NewRecorder().Create(pt(3, 3))
	x.commit("third strategy's commit", s3)
	e3 := x.resolve("third strategy resolves its own placeholder", s3, p3)
	h, h3 := x.w.Hash(), w3.Hash()

	r := x.s.NewRecorder()
	r.Add(p, vl(1, 1))
	r.Set(p, pt(2, 2))
	r.Remove(p, workload.Position.ID())
	r.Destroy(p)
	r.Destroy(p3)
	x.commit("commands on foreign placeholders", x.s)
	x.wantHash("commands on foreign placeholders (this world)", x.w, h)
	x.wantHash("commands on foreign placeholders (the other world)", w3, h3)
	x.wantAlive("entity of the other strategy's placeholder", x.w, ep, true)
	x.wantAlive("entity of the third strategy's placeholder", w3, e3, true)
	for _, fp := range []ecs.Entity{p, p3} {
		_, err := x.s.Resolve(fp)
		x.wantIs(fmt.Sprintf("resolve foreign placeholder %v", fp), err, deferral.ErrForeignPlaceholder)
	}
	x.wantReport("commands on foreign placeholders", x.s, deferral.Report{Skipped: 5, Applied: 5})
}

// checkPlaceholderStale: a placeholder from an earlier commit, or one whose create was
// discarded, is skipped: it never reaches the entity it became nor the one a later create of
// the same recorder made.
func checkPlaceholderStale(x *fixture) {
	r := x.rec()
	p := r.Create(pt(1, 1))
	x.commit("first commit", x.s)
	ep := x.resolve("placeholder of the first commit", x.s, p)
	x.wantReport("first commit", x.s, deferral.Report{Created: []ecs.Entity{ep}, Applied: 1})

	q := r.Create(pt(2, 2)) // the recorder's first create of this commit, like p was
	r.Add(p, vl(1, 1))
	r.Set(p, pt(9, 9))
	r.Remove(p, workload.Position.ID())
	r.Destroy(p)
	x.commit("commands on a placeholder of an earlier commit", x.s)
	eq := x.resolve("placeholder of the second commit", x.s, q)
	x.wantAlive("entity p became", x.w, ep, true)
	x.wantAlive("entity q became", x.w, eq, true)
	for _, c := range []struct {
		e   ecs.Entity
		pos workload.Vec2
	}{{ep, v2(1, 1)}, {eq, v2(2, 2)}} {
		if _, ok := vel(x.w, c.e); ok {
			x.Errorf("add on a stale placeholder: entity %v got a velocity, want none", c.e)
		}
		want(x, fmt.Sprintf("set and remove on a stale placeholder: position of %v", c.e), x.pos("e", x.w, c.e), c.pos)
	}
	_, err := x.s.Resolve(p)
	x.wantIs("resolve a placeholder of an earlier commit", err, deferral.ErrUnresolved)
	x.wantReport("commands on a stale placeholder", x.s, deferral.Report{Created: []ecs.Entity{eq}, Skipped: 4, Applied: 5})

	d := r.Create(pt(3, 3))
	want(x, "discard", x.s.Discard(), 1)
	r.Add(d, vl(3, 3))
	x.commit("command on a discarded placeholder", x.s)
	want(x, "live entities after the discarded create", x.w.Len(), 2)
	_, err = x.s.Resolve(d)
	x.wantIs("resolve a discarded placeholder", err, deferral.ErrUnresolved)
	x.wantReport("command on a discarded placeholder", x.s, deferral.Report{Skipped: 1, Applied: 1})
}

// checkResolveLifetime: Resolve answers ErrUnresolved before the commit, the entity from the
// end of that commit until the next one starts (staging in between does not change it), and
// ErrUnresolved after the next commit. Real handles are refused with ErrNotPlaceholder.
func checkResolveLifetime(x *fixture) {
	e0 := x.create(x.w, pt(0, 0))
	for _, h := range []ecs.Entity{e0, {}} {
		_, err := x.s.Resolve(h)
		x.wantIs(fmt.Sprintf("resolve non-placeholder %v", h), err, deferral.ErrNotPlaceholder)
	}
	r := x.rec()
	p := r.Create(pt(1, 1))
	_, err := x.s.Resolve(p)
	x.wantIs("resolve before commit", err, deferral.ErrUnresolved)
	x.commit("first commit", x.s)
	ep := x.resolve("resolve after commit", x.s, p)
	x.wantAlive("resolved entity", x.w, ep, true)
	want(x, "resolved entity's position", x.pos("resolved", x.w, ep), v2(1, 1))

	q := r.Create(pt(2, 2)) // staging between commits does not end p's answers
	got, err := x.s.Resolve(p)
	x.wantNil("resolve while the next commit's commands are staged", err)
	want(x, "resolve while the next commit's commands are staged", got, ep)
	_, err = x.s.Resolve(q)
	x.wantIs("resolve a placeholder staged for the next commit", err, deferral.ErrUnresolved)

	x.commit("second commit", x.s)
	_, err = x.s.Resolve(p)
	x.wantIs("resolve the first commit's placeholder after the second commit", err, deferral.ErrUnresolved)
	eq := x.resolve("resolve the second commit's placeholder", x.s, q)
	x.wantAlive("second resolved entity", x.w, eq, true)
}

// checkReportApplyOrder: created entities appear in the report in apply order (for one
// recorder: staging order), culled creates leave no receipt, and the world's creation order
// agrees.
func checkReportApplyOrder(x *fixture) {
	old := x.create(x.w, pt(-1, -1))
	r := x.rec()
	const n = 20
	var ps []ecs.Entity
	for i := range n {
		l := 1.0
		if i%7 == 3 {
			l = 0 // culled: no receipt
		}
		ps = append(ps, r.Create(pt(float64(i), 0).With(life(l))))
		if i == n/2 {
			r.Destroy(old) // a destroy in the middle frees a slot the next create reuses
		}
	}
	x.commit("creates", x.s)
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	var wantCreated []ecs.Entity
	culled := 0
	for i, p := range ps {
		if i%7 == 3 {
			culled++
			continue
		}
		wantCreated = append(wantCreated, x.resolve(fmt.Sprintf("create %d", i), x.s, p))
	}
	x.compareReport("creates", rep, deferral.Report{Created: wantCreated, IgnoredCreates: culled, Destroyed: 1, Applied: n + 1})
	var live []ecs.Entity
	for e := range x.w.Entities() {
		live = append(live, e)
	}
	if !slices.Equal(live, rep.Created) {
		x.Errorf("world creation order: got %v, want the report's order %v", live, rep.Created)
	}
	prev := -1.0
	for _, e := range rep.Created {
		p := x.pos("created", x.w, e)
		if p.X <= prev {
			x.Errorf("report.Created: entity with position %v after one with %v, want staging order", p, prev)
		}
		prev = p.X
	}
}

// checkReportTakeRefused: reports accumulate across commits until taken; taking them while
// commands are pending is refused with deferral.ErrPending and loses nothing.
func checkReportTakeRefused(x *fixture) {
	r := x.rec()
	a := r.Create(pt(1, 1))
	x.commit("first commit", x.s)
	ea := x.resolve("a", x.s, a)
	b := r.Create(pt(2, 2))
	x.commit("second commit", x.s)
	eb := x.resolve("b", x.s, b)
	c := r.Create(pt(3, 3))
	_, err := x.s.TakeReport()
	x.wantIs("take report with a command pending", err, deferral.ErrPending)
	x.commit("third commit", x.s)
	ec := x.resolve("c", x.s, c)
	x.wantReport("report of three commits", x.s, deferral.Report{Created: []ecs.Entity{ea, eb, ec}, Applied: 3})
	x.wantReport("report taken twice", x.s, deferral.Report{})
}

// checkProportional: a commit applies only what is pending — after a large frame, a small
// frame's commit applies (and reports) only its own commands, and runs none of the large
// frame's closures again; an empty commit applies nothing. The suite checks the work done
// (receipts, closure runs, world changes), never time.
func checkProportional(x *fixture) {
	const big = 4096
	target := x.create(x.w, pt(0, 0))
	runs := 0
	count := func(*ecs.World) error { runs++; return nil }
	r0, r1 := x.s.NewRecorder(), x.s.NewRecorder()
	for i := range big / 4 {
		r0.Create(pt(float64(i), 0))
		r0.Do(count)
		r1.Set(target, pt(float64(i), 1))
		r1.Do(count)
	}
	x.commit("large frame", x.s)
	rep, err := x.s.TakeReport()
	x.wantNil("large frame: take report", err)
	want(x, "large frame: report.Applied", rep.Applied, big)
	want(x, "large frame: created entities", len(rep.Created), big/4)
	want(x, "closures run by the large frame", runs, big/2)
	n := x.w.Len()

	runs = 0
	p := r1.Create(pt(-1, -1))
	r1.Do(count)
	x.commit("small frame after a large one", x.s)
	e := x.resolve("small frame's create", x.s, p)
	x.wantReport("small frame after a large one", x.s, deferral.Report{Created: []ecs.Entity{e}, Applied: 2})
	want(x, "closures run by the small frame", runs, 1)
	want(x, "live entities after the small frame", x.w.Len(), n+1)

	runs = 0
	h := x.w.Hash()
	x.commit("empty frame after a large one", x.s)
	x.wantHash("empty frame", x.w, h)
	want(x, "closures run by the empty frame", runs, 0)
	x.wantReport("empty frame", x.s, deferral.Report{})
}
