package conformance

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkQueriesSeeCommit: after a commit of creates, Adds, Removes, Sets and destroys over
// entities of several component sets, the world's typed queries (ecs.NewQuery1,
// ecs.NewQuery2, with and without an extra filter) and ecs.World.Query visit exactly the
// entities that have the queried components, each once, with the values the commit left;
// a value written through a query's pointer is what the world reads afterwards.
func checkQueriesSeeCommit(x *fixture) {
	type state struct {
		pos, vel  workload.Vec2
		hasVel    bool
		tag       uint32
		hasTag    bool
		destroyed bool
	}
	const n = 30
	es := make([]ecs.Entity, 0, n+4)
	model := map[ecs.Entity]*state{}
	for i := range n {
		b := pt(float64(i), 0)
		st := &state{pos: v2(float64(i), 0)}
		if i%3 >= 1 {
			b = b.With(vl(float64(i), 1))
			st.vel, st.hasVel = v2(float64(i), 1), true
		}
		if i%3 == 2 {
			b = b.With(tag(uint32(i)))
			st.tag, st.hasTag = uint32(i), true
		}
		e := x.create(x.w, b)
		es = append(es, e)
		model[e] = st
	}
	r := x.rec()
	for i, e := range es {
		st := model[e]
		switch {
		case i == 4 || i == 7 || i == 29:
			r.Destroy(e)
			st.destroyed = true
		case i%3 == 0 && i < 15:
			r.Add(e, vl(float64(i), 9))
			st.vel, st.hasVel = v2(float64(i), 9), true
		case i%3 == 1 && i > 20:
			r.Remove(e, workload.Velocity.ID())
			st.hasVel = false
		case i%3 == 2 && i < 12:
			r.Remove(e, batchTag.ID())
			st.hasTag = false
		}
		if !st.destroyed {
			r.Set(e, pt(float64(i), 5))
			st.pos = v2(float64(i), 5)
		}
	}
	var ph []ecs.Entity
	for i := range 4 {
		ph = append(ph, r.Create(pt(float64(100+i), 0).With(vl(float64(100+i), 1))))
	}
	x.commit("commit", x.s)
	for i, p := range ph {
		e := x.resolve("create", x.s, p)
		model[e] = &state{pos: v2(float64(100+i), 0), vel: v2(float64(100+i), 1), hasVel: true}
	}
	visit := func(what string, match func(*state) bool, each func(yield func(e ecs.Entity, check func(*state)) bool)) {
		x.Helper()
		seen := map[ecs.Entity]bool{}
		each(func(e ecs.Entity, check func(*state)) bool {
			st, ok := model[e]
			switch {
			case !ok || st.destroyed:
				x.Errorf("%s visits %v, which the commit destroyed or never existed", what, e)
			case seen[e]:
				x.Errorf("%s visits %v twice", what, e)
			case !match(st):
				x.Errorf("%s visits %v, which lacks a queried component", what, e)
			default:
				check(st)
			}
			seen[e] = true
			return true
		})
		for e, st := range model {
			if !st.destroyed && match(st) && !seen[e] {
				x.Errorf("%s misses %v", what, e)
			}
		}
	}
	withVel := func(st *state) bool { return st.hasVel }
	visit("NewQuery2(Position, Velocity)", withVel, func(yield func(ecs.Entity, func(*state)) bool) {
		q := ecs.NewQuery2(x.w, workload.Position, workload.Velocity)
		defer q.Close()
		for q.Next() {
			p, v := q.Get()
			e := q.Entity()
			yield(e, func(st *state) {
				if *p != st.pos || *v != st.vel {
					x.Errorf("NewQuery2 on %v: got %v, %v, want %v, %v", e, *p, *v, st.pos, st.vel)
				}
				v.Y += 1000 // written through the query
				st.vel.Y += 1000
			})
		}
	})
	visit("NewQuery1(Position) with the tag", func(st *state) bool { return st.hasTag }, func(yield func(ecs.Entity, func(*state)) bool) {
		q := ecs.NewQuery1(x.w, workload.Position, batchTag.ID())
		defer q.Close()
		for q.Next() {
			p := q.Get()
			e := q.Entity()
			yield(e, func(st *state) {
				if *p != st.pos {
					x.Errorf("NewQuery1 on %v: got %v, want %v", e, *p, st.pos)
				}
			})
		}
	})
	visit("World.Query(Velocity)", withVel, func(yield func(ecs.Entity, func(*state)) bool) {
		for e := range x.w.Query(ecs.MaskOf(workload.Velocity.ID())) {
			yield(e, func(st *state) {
				if v, _ := vel(x.w, e); v != st.vel {
					x.Errorf("World.Query: velocity of %v: got %v, want %v (the value written through NewQuery2)", e, v, st.vel)
				}
			})
		}
	})
	want(x, "structural change after the queries closed", fmt.Sprint(x.w.Iterating()), "false")
}

// checkCommitWhileIterating: a commit while a query of the world iterates applies what the
// world allows then (a Set) and fails at the first structural command with ecs.ErrIterating
// (an Add that would move e's row), changing nothing structural; once the query is closed,
// the retry applies the rest.
func checkCommitWhileIterating(x *fixture) {
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Set(e, pt(1, 1))
	r.Add(e, vl(2, 2))
	q := ecs.NewQuery1(x.w, workload.Position)
	if !q.Next() {
		x.Fatalf("setup: the query visits nothing")
	}
	x.wantIs("commit while a query iterates", x.s.Commit(), ecs.ErrIterating)
	if x.w.Has(e, workload.Velocity.ID()) {
		x.Errorf("after a commit refused while a query iterates: e has the velocity its Add would give")
	}
	q.Close()
	x.commit("retry after the query closed", x.s)
	want(x, "position of e", x.pos("e", x.w, e), v2(1, 1))
	if v, ok := vel(x.w, e); !ok || v != v2(2, 2) {
		x.Errorf("velocity of e after the retry: %v, %v, want %v", v, ok, v2(2, 2))
	}
	// A Remove that would move the row is refused the same way, its error naming the
	// component.
	r.Remove(e, workload.Velocity.ID())
	q = ecs.NewQuery1(x.w, workload.Position)
	q.Next()
	err := x.s.Commit()
	q.Close()
	x.wantIs("commit of a Remove while a query iterates", err, ecs.ErrIterating)
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || ce.Verb != deferral.VerbRemove || ce.Component != workload.Velocity.Name() {
		x.Errorf("commit of a Remove while a query iterates: error %v, want a *deferral.CommandError of verb %v naming component %q", err, deferral.VerbRemove, workload.Velocity.Name())
	}
	x.commit("retry of the Remove after the query closed", x.s)
	if _, ok := vel(x.w, e); ok {
		x.Errorf("e has velocity after the Remove's retry")
	}
}

// checkCreateRunWhileIterating: a commit while a query of the world iterates fails with
// ecs.ErrIterating at a create followed by a Set of its placeholder (a create run a strategy
// may apply as one create), naming the create's position, creating nothing and leaving both
// commands pending; the retry after the query closes creates the entity with the Set's value.
func checkCreateRunWhileIterating(x *fixture) {
	x.create(x.w, pt(0, 0))
	n := x.w.Len()
	r := x.rec()
	p := r.Create(pt(1, 1))
	r.Set(p, pt(2, 2))
	q := ecs.NewQuery1(x.w, workload.Position)
	if !q.Next() {
		x.Fatalf("setup: the query visits nothing")
	}
	err := x.s.Commit()
	x.wantIs("commit of a create run while a query iterates", err, ecs.ErrIterating)
	var ce *deferral.CommandError
	switch {
	case !errors.As(err, &ce):
		x.Errorf("the refused commit's error %v is no *deferral.CommandError naming the create", err)
	case ce.Pos != (deferral.Pos{Recorder: r.Index(), Index: 0}) || ce.Verb != deferral.VerbCreate:
		x.Errorf("the refused commit names %v at %+v, want the create at %+v", ce.Verb, ce.Pos, deferral.Pos{Recorder: r.Index(), Index: 0})
	}
	want(x, "entities after the refused commit", x.w.Len(), n)
	want(x, "pending after the refused commit", x.s.Pending(), 2)
	q.Close()
	x.commit("retry after the query closed", x.s)
	e := x.resolve("the create", x.s, p)
	want(x, "position of the created entity", x.pos("created", x.w, e), v2(2, 2))
	want(x, "entities after the retry", x.w.Len(), n+1)
}
