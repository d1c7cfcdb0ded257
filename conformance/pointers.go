package conformance

import (
	"fmt"
	"slices"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkPointerComponents: a component that holds pointers (not inline, so a table copies it
// by typed assignment, not as bytes) keeps each entity's own value through what a commit does
// to the entity's other components: an Add of one bundle to every entity of a table (one
// transition for all, which a strategy may apply in bulk), destroys that free rows in the
// middle of a table (the last row moves into the hole), a Remove from every entity, and a
// closure that changes the value. Each entity's value is read back, not compared with
// another world: a fault of the world would be shared.
func checkPointerComponents(x *fixture) {
	const n = 12
	es := make([]ecs.Entity, n)
	wantTags := make([][]string, n)
	for i := range es {
		es[i] = x.create(x.w, pt(float64(i), 0))
		wantTags[i] = []string{fmt.Sprint("t", i), fmt.Sprint("u", i)}
		if err := tags.Add(x.w, es[i], slices.Clone(wantTags[i])); err != nil {
			x.Fatalf("setup: add tags: %v", err)
		}
	}
	x.create(x.w, pt(-1, -1)) // an entity without tags, after them
	dead := map[int]bool{2: true, 5: true, 11: true}
	alive := func(i int) bool { return !dead[i] }
	check := func(op string, withVel bool) {
		x.Helper()
		for i, e := range es {
			if !alive(i) {
				if x.w.Alive(e) {
					x.Errorf("%s: entity %d destroyed, still alive", op, i)
				}
				continue
			}
			got, err := tags.Get(x.w, e)
			if err != nil || !slices.Equal(got, wantTags[i]) {
				x.Errorf("%s: tags of entity %d: got %q, %v, want %q", op, i, got, err, wantTags[i])
			}
			want(x, fmt.Sprintf("%s: position of entity %d", op, i), x.pos(op, x.w, e), v2(float64(i), 0))
			v, has := vel(x.w, e)
			if has != withVel || (withVel && v != v2(float64(i), 1)) {
				x.Errorf("%s: velocity of entity %d: got %v (present %v), want present %v", op, i, v, has, withVel)
			}
		}
	}
	r := x.rec()
	for i, e := range es {
		r.Add(e, vl(float64(i), 1).With(batchHeat.Value(int64(i))))
	}
	r.Destroy(es[2])
	r.Destroy(es[5])
	r.Destroy(es[11])
	x.commit("commit of an Add to every entity and three destroys", x.s)
	check("after the adds and destroys", true)
	r.Destroy(es[0])
	dead[0] = true
	for _, e := range es[1:] {
		r.Remove(e, workload.Velocity.ID())
		r.Remove(e, batchHeat.ID())
	}
	wantTags[7] = []string{"closure"}
	r.Do(func(w *ecs.World) error { return tags.Set(w, es[7], []string{"closure"}) })
	x.commit("commit of a destroy of the first row, a Remove from every entity and a closure", x.s)
	check("after the removes", false)

	// The world's Hash reads a pointer-holding value, not its address: another value changes
	// it, the same value again restores it; readers of a version see the same world.
	before := x.w.Hash()
	setTags := func(v []string) {
		r.Do(func(w *ecs.World) error { return tags.Set(w, es[7], v) })
		x.commit(fmt.Sprintf("commit of a closure setting tags %q", v), x.s)
	}
	setTags([]string{"changed"}) // as long as "closure": the bytes must differ, not only the length
	if x.w.Hash() == before {
		x.Errorf("Hash unchanged after an entity's tags changed from %q to %q", wantTags[7], []string{"changed"})
	}
	setTags([]string{"closure"})
	if got := x.w.Hash(); got != before {
		x.Errorf("Hash %#x after the tags were set back to %q (a fresh slice), want %#x as before", got, wantTags[7], before)
	}
	check("after the tags were set back", false)
	if _, ok := x.s.(deferral.VersionReader); ok {
		x.wantVersionIsWorld("after commits of pointer-holding values")
	}
}

// checkClosureHandleErrors: a closure's world call on a handle the world cannot use fails
// with the world's sentinel, reachable with errors.Is through the commit's error: a dead
// entity (ecs.ErrDead), the older handle of a slot reused since (ecs.ErrStale), a handle of
// another world (ecs.ErrForeign), the zero handle (ecs.ErrEmpty) and a placeholder not
// created yet (ecs.ErrPlaceholder); ecs.World.Alive is false and Destroy fails alike.
func checkClosureHandleErrors(x *fixture) {
	dead := x.create(x.w, pt(0, 0))
	if err := x.w.Destroy(dead); err != nil {
		x.Fatalf("setup: destroy: %v", err)
	}
	other := ecs.NewWorld()
	foreign, err := other.Create(pt(0, 0))
	if err != nil {
		x.Fatalf("setup: create on another world: %v", err)
	}
	try := func(what string, h ecs.Entity, sentinel error) {
		x.Helper()
		if x.w.Alive(h) {
			x.Errorf("%s: Alive reports true", what)
		}
		if x.w.Has(h, workload.Position.ID()) {
			x.Errorf("%s: Has reports a component (of the entity in its slot now?)", what)
		}
		for _, call := range []struct {
			name string
			fn   func(w *ecs.World) error
		}{
			{"Set", func(w *ecs.World) error { return w.Set(h, pt(1, 1)) }},
			{"Destroy", func(w *ecs.World) error { return w.Destroy(h) }},
		} {
			r := x.rec()
			r.Do(call.fn)
			x.wantIs(fmt.Sprintf("commit of a closure calling World.%s on %s", call.name, what), x.s.Commit(), sentinel)
			x.s.Discard()
		}
	}
	try("a dead entity", dead, ecs.ErrDead)
	reused := x.create(x.w, pt(2, 2)) // a world reuses a free slot
	if reused.Slot() != dead.Slot() {
		x.Fatalf("setup: the create after a destroy took slot %d, want the free slot %d", reused.Slot(), dead.Slot())
	}
	try("the handle of a slot reused since", dead, ecs.ErrStale)
	try("a handle of another world", foreign, ecs.ErrForeign)
	try("the zero handle", ecs.Entity{}, ecs.ErrEmpty)
	r := x.rec()
	p := r.Create(pt(3, 3))
	r.Do(func(w *ecs.World) error { return w.Set(p, pt(4, 4)) })
	x.wantIs("commit of a closure calling World.Set on a placeholder", x.s.Commit(), ecs.ErrPlaceholder)
	x.s.Discard()
	want(x, "position of the entity in the reused slot", x.pos("reused", x.w, reused), v2(2, 2))
}
