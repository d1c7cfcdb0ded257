package ecs_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// fixture is a world with one entity of each kind of handle a misuse can name.
type fixture struct {
	w         *ecs.World
	live      ecs.Entity // Pos + HP
	bare      ecs.Entity // no components
	dead      ecs.Entity // destroyed, slot not reused
	stale     ecs.Entity // destroyed, slot reused by reuser
	reuser    ecs.Entity
	foreign   ecs.Entity // alive in another world
	holder    ecs.Entity // placeholder
	withLabel ecs.Entity // has a non-inline component
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{w: ecs.NewWorld()}
	w := f.w
	f.live = mustCreate(t, w, Pos.Value(vec{1, 2}).With(HP.Value(hp{10})))
	f.bare = mustCreate(t, w, ecs.Bundle{})
	f.stale = mustCreate(t, w, Pos.Value(vec{3, 4}))
	if err := w.Destroy(f.stale); err != nil {
		t.Fatal(err)
	}
	f.reuser = mustCreate(t, w, Vel.Value(vec{5, 6}))
	if f.reuser.Slot() != f.stale.Slot() {
		t.Fatalf("slot not reused: %v after %v", f.reuser, f.stale)
	}
	f.withLabel = mustCreate(t, w, ecs.Bundle{})
	if err := Label.Add(w, f.withLabel, label{"x"}); err != nil {
		t.Fatal(err)
	}
	f.dead = mustCreate(t, w, Pos.Value(vec{7, 8})) // destroyed last: its slot stays free
	if err := w.Destroy(f.dead); err != nil {
		t.Fatal(err)
	}
	other := ecs.NewWorld()
	f.foreign = mustCreate(t, other, Pos.Value(vec{}))
	f.holder = ecs.NewPlaceholder(99, 1, 2)
	return f
}

// TestStrictMisuse checks that every strict misuse returns its own sentinel and changes
// nothing.
func TestStrictMisuse(t *testing.T) {
	type op func(f *fixture) error
	destroy := func(pick func(*fixture) ecs.Entity) op {
		return func(f *fixture) error { return f.w.Destroy(pick(f)) }
	}
	cases := []struct {
		name string
		op   op
		want error
	}{
		{"destroy/empty", destroy(func(*fixture) ecs.Entity { return ecs.Entity{} }), ecs.ErrEmpty},
		{"destroy/foreign", destroy(func(f *fixture) ecs.Entity { return f.foreign }), ecs.ErrForeign},
		{"destroy/dead", destroy(func(f *fixture) ecs.Entity { return f.dead }), ecs.ErrDead},
		{"destroy/stale", destroy(func(f *fixture) ecs.Entity { return f.stale }), ecs.ErrStale},
		{"destroy/placeholder", destroy(func(f *fixture) ecs.Entity { return f.holder }), ecs.ErrPlaceholder},
		{"add/existing", func(f *fixture) error { return f.w.Add(f.live, Pos.Value(vec{9, 9})) }, ecs.ErrHasComponent},
		{"add/existing/typed", func(f *fixture) error { return HP.Add(f.w, f.live, hp{1}) }, ecs.ErrHasComponent},
		{"add/existing/second-of-bundle", func(f *fixture) error {
			return f.w.Add(f.live, Vel.Value(vec{1, 1}).With(Pos.Value(vec{9, 9})))
		}, ecs.ErrHasComponent},
		{"add/duplicate", func(f *fixture) error {
			return f.w.Add(f.bare, ecs.NewBundle(Vel.Value(vec{1, 1}), Vel.Value(vec{2, 2})))
		}, ecs.ErrDuplicateComponent},
		{"add/invalid", func(f *fixture) error { return f.w.Add(f.bare, HP.Value(hp{-1})) }, ecs.ErrInvalidValue},
		{"add/invalid/typed", func(f *fixture) error { return HP.Add(f.w, f.bare, hp{-1}) }, ecs.ErrInvalidValue},
		{"add/dead", func(f *fixture) error { return f.w.Add(f.dead, Vel.Value(vec{})) }, ecs.ErrDead},
		{"upsert/invalid", func(f *fixture) error { return f.w.Upsert(f.live, HP.Value(hp{-5})) }, ecs.ErrInvalidValue},
		{"upsert/stale", func(f *fixture) error { return f.w.Upsert(f.stale, Vel.Value(vec{})) }, ecs.ErrStale},
		{"remove/missing", func(f *fixture) error { return f.w.Remove(f.live, Vel.ID()) }, ecs.ErrMissingComponent},
		{"remove/missing/typed", func(f *fixture) error { return Vel.Remove(f.w, f.bare) }, ecs.ErrMissingComponent},
		{"remove/unknown", func(f *fixture) error { return f.w.Remove(f.live, unknownID) }, ecs.ErrUnknownComponent},
		{"remove/foreign", func(f *fixture) error { return f.w.Remove(f.foreign, Pos.ID()) }, ecs.ErrForeign},
		{"set/missing", func(f *fixture) error { return f.w.Set(f.live, Vel.Value(vec{})) }, ecs.ErrMissingComponent},
		{"set/missing/typed", func(f *fixture) error { return Vel.Set(f.w, f.live, vec{}) }, ecs.ErrMissingComponent},
		{"set/missing/second-of-bundle", func(f *fixture) error {
			return f.w.Set(f.live, Pos.Value(vec{9, 9}).With(Vel.Value(vec{})))
		}, ecs.ErrMissingComponent},
		{"set/invalid", func(f *fixture) error { return HP.Set(f.w, f.live, hp{-1}) }, ecs.ErrInvalidValue},
		{"set/empty", func(f *fixture) error { return Pos.Set(f.w, ecs.Entity{}, vec{}) }, ecs.ErrEmpty},
		{"get/missing", func(f *fixture) error { _, err := Vel.Get(f.w, f.live); return err }, ecs.ErrMissingComponent},
		{"get/stale", func(f *fixture) error { _, err := Vel.Get(f.w, f.stale); return err }, ecs.ErrStale},
		{"create/duplicate", func(f *fixture) error {
			_, err := f.w.Create(Pos.Value(vec{}).With(Pos.Value(vec{})))
			return err
		}, ecs.ErrDuplicateComponent},
		{"create/invalid", func(f *fixture) error {
			_, err := f.w.Create(Pos.Value(vec{}).With(HP.Value(hp{-3})))
			return err
		}, ecs.ErrInvalidValue},
	}
	seen := map[error]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			before := snap(f.w)
			err := c.op(f)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			for _, other := range []error{ecs.ErrEmpty, ecs.ErrForeign, ecs.ErrDead, ecs.ErrStale, ecs.ErrPlaceholder,
				ecs.ErrHasComponent, ecs.ErrMissingComponent, ecs.ErrIterating, ecs.ErrInvalidValue,
				ecs.ErrUnknownComponent, ecs.ErrDuplicateComponent, ecs.ErrWorldFull} {
				if other != c.want && errors.Is(err, other) {
					t.Errorf("error %v also matches %v", err, other)
				}
			}
			if after := snap(f.w); after != before {
				t.Errorf("state changed: %+v -> %+v", before, after)
			}
			seen[c.want] = true
		})
	}
	if len(seen) != 10 {
		t.Errorf("covered %d distinct sentinels, want 10", len(seen))
	}
}

func TestSentinelsDistinct(t *testing.T) {
	all := []error{ecs.ErrEmpty, ecs.ErrForeign, ecs.ErrDead, ecs.ErrStale, ecs.ErrPlaceholder,
		ecs.ErrHasComponent, ecs.ErrMissingComponent, ecs.ErrIterating, ecs.ErrInvalidValue,
		ecs.ErrUnknownComponent, ecs.ErrDuplicateComponent, ecs.ErrWorldFull}
	for i, a := range all {
		for j, b := range all {
			if i != j && (errors.Is(a, b) || a.Error() == b.Error()) {
				t.Errorf("sentinels %d and %d are not distinct: %v, %v", i, j, a, b)
			}
		}
	}
}

// TestPlaceholderRefused checks every World call with a placeholder.
func TestPlaceholderRefused(t *testing.T) {
	f := newFixture(t)
	w, p := f.w, f.holder
	before := snap(w)
	if !p.IsPlaceholder() || p.IsZero() {
		t.Fatalf("%v: IsPlaceholder %v", p, p.IsPlaceholder())
	}
	calls := map[string]error{
		"Check":   w.Check(p),
		"Destroy": w.Destroy(p),
		"Add":     w.Add(p, Vel.Value(vec{})),
		"Upsert":  w.Upsert(p, Vel.Value(vec{})),
		"Set":     w.Set(p, Pos.Value(vec{})),
		"Remove":  w.Remove(p, Pos.ID()),
		"Pos.Add": Pos.Add(w, p, vec{}),
		"Pos.Set": Pos.Set(w, p, vec{}),
	}
	_, calls["Pos.Get"] = Pos.Get(w, p)
	for name, err := range calls {
		if !errors.Is(err, ecs.ErrPlaceholder) {
			t.Errorf("%s(placeholder) = %v, want ErrPlaceholder", name, err)
		}
	}
	if w.Alive(p) || w.Has(p, Pos.ID()) || Pos.Has(w, p) || w.MaskOf(p) != 0 || Pos.Ptr(w, p) != nil {
		t.Error("a read call accepted a placeholder")
	}
	// A placeholder that carries this world's id and a live slot is still refused.
	q := ecs.NewPlaceholder(w.ID(), f.live.Slot(), f.live.Generation())
	if err := w.Destroy(q); !errors.Is(err, ecs.ErrPlaceholder) || !w.Alive(f.live) {
		t.Errorf("Destroy(placeholder aliasing a live slot) = %v", err)
	}
	if snap(w) != before {
		t.Error("placeholder calls changed the world")
	}
	owner, hi, lo, ok := ecs.NewPlaceholder(7, 1<<31+5, 1<<31|9).PlaceholderParts()
	if !ok || owner != 7 || hi != 1<<31+5 || lo != 9 {
		t.Errorf("PlaceholderParts = %d %d %d %v", owner, hi, lo, ok)
	}
	if _, _, _, ok := f.live.PlaceholderParts(); ok {
		t.Error("PlaceholderParts of a real handle ok")
	}
}

// TestIteratingRefusesStructural checks ErrIterating inside a query, the calls that stay
// allowed, and that the refusal ends after break and after a panic in the loop body.
func TestIteratingRefusesStructural(t *testing.T) {
	f := newFixture(t)
	w := f.w
	structural := func() map[string]error {
		m := map[string]error{}
		_, m["Create"] = w.Create(Pos.Value(vec{}))
		m["Destroy"] = w.Destroy(f.bare)
		m["Add"] = w.Add(f.bare, Vel.Value(vec{}))
		m["Upsert(new)"] = w.Upsert(f.bare, Vel.Value(vec{}))
		m["Vel.Add"] = Vel.Add(w, f.bare, vec{})
		m["Remove"] = w.Remove(f.live, HP.ID())
		m["HP.Remove"] = HP.Remove(w, f.live)
		return m
	}
	assertRefused := func(where string) {
		t.Helper()
		before := snap(w)
		if !w.Iterating() {
			t.Errorf("%s: Iterating() = false", where)
		}
		for name, err := range structural() {
			if !errors.Is(err, ecs.ErrIterating) {
				t.Errorf("%s: %s = %v, want ErrIterating", where, name, err)
			}
		}
		if snap(w) != before {
			t.Errorf("%s: refused calls changed the world", where)
		}
	}
	n := 0
	for e := range w.Query(ecs.MaskOf(Pos.ID())) {
		assertRefused("query")
		// Set, Upsert of an existing component and writes through Ptr are not structural.
		if err := Pos.Set(w, e, vec{float64(n), 0}); err != nil {
			t.Errorf("Set while iterating: %v", err)
		}
		if err := w.Upsert(e, Pos.Value(vec{float64(n), 1})); err != nil {
			t.Errorf("Upsert(existing) while iterating: %v", err)
		}
		Pos.Ptr(w, e).X += 100
		n++
	}
	if n != 1 {
		t.Errorf("query over Pos yielded %d entities, want 1 (live)", n)
	}
	if got, _ := Pos.Get(w, f.live); got != (vec{100, 1}) {
		t.Errorf("writes while iterating lost: %v", got)
	}
	allowed := func(where string) {
		t.Helper()
		if w.Iterating() {
			t.Errorf("%s: still iterating", where)
		}
		e, err := w.Create(Pos.Value(vec{}))
		if err != nil {
			t.Errorf("%s: Create = %v", where, err)
			return
		}
		if err := w.Destroy(e); err != nil {
			t.Errorf("%s: Destroy = %v", where, err)
		}
	}
	allowed("after range")
	for range w.Entities() {
		break
	}
	allowed("after break")
	func() {
		defer func() {
			if r := recover(); r != "body panics" {
				t.Errorf("recovered %v", r)
			}
		}()
		for range w.Entities() {
			panic("body panics")
		}
	}()
	allowed("after a panic in the loop body")
	// Nested queries stack: the outer one still refuses after the inner one ends.
	for range w.Entities() {
		for range w.Entities() {
			break
		}
		assertRefused("outer query after inner break")
		break
	}
	allowed("after nested queries")
}

func TestFreeze(t *testing.T) {
	w := ecs.NewWorld()
	e := mustCreate(t, w, Pos.Value(vec{}))
	thaw := w.Freeze()
	if _, err := w.Create(ecs.Bundle{}); !errors.Is(err, ecs.ErrIterating) {
		t.Errorf("Create while frozen = %v, want ErrIterating", err)
	}
	if err := w.Destroy(e); !errors.Is(err, ecs.ErrIterating) {
		t.Errorf("Destroy while frozen = %v, want ErrIterating", err)
	}
	if err := Pos.Set(w, e, vec{1, 1}); err != nil {
		t.Errorf("Set while frozen = %v", err)
	}
	thaw2 := w.Freeze()
	thaw()
	if _, err := w.Create(ecs.Bundle{}); !errors.Is(err, ecs.ErrIterating) {
		t.Errorf("Create with one of two freezes thawed = %v, want ErrIterating", err)
	}
	thaw2()
	if _, err := w.Create(ecs.Bundle{}); err != nil {
		t.Errorf("Create after thaw = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("second thaw did not panic")
		}
		if w.Iterating() {
			t.Error("second thaw unbalanced the freeze count")
		}
	}()
	thaw()
}

// TestCreationOrderAndReuse checks that a reused low slot does not jump the creation order
// and that the old handle never reaches the new entity.
func TestCreationOrderAndReuse(t *testing.T) {
	w := ecs.NewWorld()
	a := mustCreate(t, w, Pos.Value(vec{1, 0}))
	b := mustCreate(t, w, Pos.Value(vec{2, 0}))
	c := mustCreate(t, w, Pos.Value(vec{3, 0}))
	if err := w.Destroy(a); err != nil {
		t.Fatal(err)
	}
	d := mustCreate(t, w, Pos.Value(vec{4, 0}).With(Vel.Value(vec{})))
	if d.Slot() != a.Slot() || d.Generation() <= a.Generation() {
		t.Fatalf("reuse: a=%v d=%v, want same slot, newer generation", a, d)
	}
	if got, want := slices.Collect(w.Entities()), []ecs.Entity{b, c, d}; !slices.Equal(got, want) {
		t.Errorf("Entities = %v, want %v", got, want)
	}
	if got, want := slices.Collect(w.Query(ecs.MaskOf(Pos.ID(), Vel.ID()))), []ecs.Entity{d}; !slices.Equal(got, want) {
		t.Errorf("Query(Pos,Vel) = %v, want %v", got, want)
	}
	// The stale handle never reaches d.
	before := snap(w)
	if err := w.Destroy(a); !errors.Is(err, ecs.ErrStale) {
		t.Errorf("Destroy(stale) = %v", err)
	}
	if err := Pos.Set(w, a, vec{-1, -1}); !errors.Is(err, ecs.ErrStale) {
		t.Errorf("Set(stale) = %v", err)
	}
	if err := w.Remove(a, Vel.ID()); !errors.Is(err, ecs.ErrStale) {
		t.Errorf("Remove(stale) = %v", err)
	}
	if _, err := Pos.Get(w, a); !errors.Is(err, ecs.ErrStale) {
		t.Errorf("Get(stale) = %v", err)
	}
	if w.Alive(a) || Pos.Ptr(w, a) != nil || w.Has(a, Pos.ID()) || w.MaskOf(a) != 0 {
		t.Error("stale handle reads the new entity")
	}
	if snap(w) != before || !w.Alive(d) {
		t.Error("stale-handle calls changed the world")
	}
	if v, _ := Pos.Get(w, d); v != (vec{4, 0}) {
		t.Errorf("reused slot value = %v, want the new entity's (no leftover)", v)
	}
}

// TestOrderSurvivesCompaction destroys most entities (forcing the live-order list to
// compact) and checks creation order against a reference list.
func TestOrderSurvivesCompaction(t *testing.T) {
	w := ecs.NewWorld()
	var ref []ecs.Entity
	for round := range 5 {
		for i := range 400 {
			ref = append(ref, mustCreate(t, w, Pos.Value(vec{float64(round), float64(i)})))
		}
		kept := ref[:0]
		for i, e := range ref {
			if (i+round)%4 != 0 {
				if err := w.Destroy(e); err != nil {
					t.Fatal(err)
				}
				continue
			}
			kept = append(kept, e)
		}
		ref = kept
		if got := slices.Collect(w.Entities()); !slices.Equal(got, ref) {
			t.Fatalf("round %d: order differs from reference (%d vs %d entities)", round, len(got), len(ref))
		}
		if w.Len() != len(ref) {
			t.Fatalf("Len = %d, want %d", w.Len(), len(ref))
		}
	}
	if w.Slots() > 600 {
		t.Errorf("Slots = %d: freed slots are not reused", w.Slots())
	}
}

// TestGenerationRetirement checks that a slot reaching the last generation is retired, not
// reused, so its handles can never alias a wrapped generation.
func TestGenerationRetirement(t *testing.T) {
	w := ecs.NewWorld()
	first := mustCreate(t, w, Pos.Value(vec{}))
	if err := w.Destroy(first); err != nil {
		t.Fatal(err)
	}
	ecs.SetNextGeneration(w, first.Slot(), ecs.MaxGeneration)
	last := mustCreate(t, w, Pos.Value(vec{}))
	if last.Slot() != first.Slot() || last.Generation() != ecs.MaxGeneration || last.IsPlaceholder() {
		t.Fatalf("last = %v, want slot %d generation %d", last, first.Slot(), ecs.MaxGeneration)
	}
	if err := w.Destroy(last); err != nil {
		t.Fatal(err)
	}
	next := mustCreate(t, w, Pos.Value(vec{}))
	if next.Slot() == last.Slot() {
		t.Errorf("retired slot reused by %v", next)
	}
	if err := w.Check(last); !errors.Is(err, ecs.ErrDead) {
		t.Errorf("Check(last of a retired slot) = %v, want ErrDead", err)
	}
	if err := w.Check(first); !errors.Is(err, ecs.ErrStale) {
		t.Errorf("Check(older handle of a retired slot) = %v, want ErrStale", err)
	}
	if w.Len() != 1 || w.Slots() != 2 {
		t.Errorf("Len %d Slots %d, want 1, 2", w.Len(), w.Slots())
	}
}

func TestHandles(t *testing.T) {
	w1, w2 := ecs.NewWorld(), ecs.NewWorld()
	if w1.ID() == 0 || w1.ID() == w2.ID() {
		t.Errorf("world ids %d, %d: want non-zero and distinct", w1.ID(), w2.ID())
	}
	e := mustCreate(t, w1, ecs.Bundle{})
	if e.IsZero() || e.WorldID() != w1.ID() || e.Generation() == 0 {
		t.Errorf("handle %v: zero %v world %d gen %d", e, e.IsZero(), e.WorldID(), e.Generation())
	}
	var zero ecs.Entity
	if !zero.IsZero() || zero.IsPlaceholder() || zero.String() != "e<empty>" {
		t.Errorf("zero handle: %v", zero)
	}
	for _, s := range []string{e.String(), ecs.NewPlaceholder(1, 2, 3).String()} {
		if s == "" || s == "e<empty>" {
			t.Errorf("String = %q", s)
		}
	}
}

// TestHashDeterminism: the same operations give the same hash in different worlds; a
// different order or value gives a different one.
func TestHashDeterminism(t *testing.T) {
	type step struct {
		create  bool
		v       vec
		destroy int // index of entity to destroy when !create
	}
	build := func(steps []step) uint64 {
		w := ecs.NewWorld()
		var es []ecs.Entity
		for _, s := range steps {
			if s.create {
				es = append(es, mustCreate(t, w, Pos.Value(s.v)))
				if err := Label.Add(w, es[len(es)-1], label{fmt.Sprint(s.v)}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := w.Destroy(es[s.destroy]); err != nil {
				t.Fatal(err)
			}
		}
		return w.Hash()
	}
	base := []step{{create: true, v: vec{1, 1}}, {create: true, v: vec{2, 2}}, {destroy: 0}, {create: true, v: vec{3, 3}}}
	swapped := []step{{create: true, v: vec{2, 2}}, {create: true, v: vec{1, 1}}, {destroy: 1}, {create: true, v: vec{3, 3}}}
	other := []step{{create: true, v: vec{1, 1}}, {create: true, v: vec{2, 2}}, {destroy: 0}, {create: true, v: vec{3, 4}}}
	if build(base) != build(base) {
		t.Error("same operations, different hashes")
	}
	if build(base) == build(swapped) {
		t.Error("different creation order, same hash")
	}
	if build(base) == build(other) {
		t.Error("different value, same hash")
	}
	if ecs.NewWorld().Hash() != ecs.NewWorld().Hash() {
		t.Error("empty worlds hash differently")
	}
	// A non-inline component's value is part of the hash too.
	w1, w2 := ecs.NewWorld(), ecs.NewWorld()
	e1, e2 := mustCreate(t, w1, ecs.Bundle{}), mustCreate(t, w2, ecs.Bundle{})
	_ = Label.Add(w1, e1, label{"a"})
	_ = Label.Add(w2, e2, label{"b"})
	if w1.Hash() == w2.Hash() {
		t.Error("non-inline values do not reach the hash")
	}
	_ = Label.Set(w2, e2, label{"a"})
	if w1.Hash() != w2.Hash() {
		t.Error("equal non-inline values hash differently")
	}
}

// TestRemoveThenAdd checks that removed values do not leak back.
func TestRemoveThenAdd(t *testing.T) {
	w := ecs.NewWorld()
	e := mustCreate(t, w, Pos.Value(vec{5, 5}).With(Vel.Value(vec{6, 6})))
	if err := Vel.Remove(w, e); err != nil {
		t.Fatal(err)
	}
	if Vel.Has(w, e) || Vel.Ptr(w, e) != nil || w.MaskOf(e) != ecs.MaskOf(Pos.ID()) {
		t.Errorf("after Remove: mask %b", w.MaskOf(e))
	}
	if err := w.Upsert(e, Vel.Value(vec{7, 7}).With(Pos.Value(vec{8, 8}))); err != nil {
		t.Fatal(err)
	}
	p, _ := Pos.Get(w, e)
	v, _ := Vel.Get(w, e)
	if p != (vec{8, 8}) || v != (vec{7, 7}) {
		t.Errorf("after Upsert: Pos %v Vel %v", p, v)
	}
	big := huge{1, 2, 3}
	if err := Huge.Add(w, e, big); err != nil {
		t.Fatal(err)
	}
	if got, _ := Huge.Get(w, e); got != big {
		t.Errorf("non-inline Get = %v", got)
	}
}

// TestTryCalls: TryUpsert, TrySet and TryRemove report a target that is gone (or, for
// TryRemove, lacks the component) without an error and without allocating, and otherwise do
// what Upsert, Set and Remove do, errors included.
func TestTryCalls(t *testing.T) {
	w := ecs.NewWorld()
	dead := mustCreate(t, w, Pos.Value(vec{1, 2}))
	if err := w.Destroy(dead); err != nil {
		t.Fatal(err)
	}
	e := mustCreate(t, w, Pos.Value(vec{1, 2}))
	vel := Vel.Value(vec{3, 4})
	before := w.Hash()
	if n := testing.AllocsPerRun(100, func() {
		if live, err := w.TryUpsert(dead, &vel); live || err != nil {
			t.Fatalf("TryUpsert(dead) = %v, %v; want false, nil", live, err)
		}
		if live, err := w.TrySet(dead, &vel); live || err != nil {
			t.Fatalf("TrySet(dead) = %v, %v; want false, nil", live, err)
		}
		if live, had, err := w.TryRemove(dead, Pos.ID()); live || had || err != nil {
			t.Fatalf("TryRemove(dead) = %v, %v, %v; want false, false, nil", live, had, err)
		}
		if live, had, err := w.TryRemove(e, Vel.ID()); !live || had || err != nil {
			t.Fatalf("TryRemove(e without Vel) = %v, %v, %v; want true, false, nil", live, had, err)
		}
	}); n != 0 {
		t.Errorf("Try calls on a gone target: %v allocs, want 0", n)
	}
	if w.Hash() != before {
		t.Fatal("Try calls on a gone target changed the world")
	}
	if live, err := w.TrySet(e, &vel); !live || !errors.Is(err, ecs.ErrMissingComponent) {
		t.Errorf("TrySet(e without Vel) = %v, %v; want true, ErrMissingComponent", live, err)
	}
	if live, err := w.TryUpsert(e, &vel); !live || err != nil || !w.Has(e, Vel.ID()) {
		t.Errorf("TryUpsert(e) = %v, %v (has Vel: %v); want true, nil, true", live, err, w.Has(e, Vel.ID()))
	}
	for range w.Query(0) {
		if live, had, err := w.TryRemove(e, Vel.ID()); !live || !had || !errors.Is(err, ecs.ErrIterating) {
			t.Errorf("TryRemove while iterating = %v, %v, %v; want true, true, ErrIterating", live, had, err)
		}
		break
	}
	if live, had, err := w.TryRemove(e, Vel.ID()); !live || !had || err != nil || w.Has(e, Vel.ID()) {
		t.Errorf("TryRemove(e) = %v, %v, %v (has Vel: %v); want true, true, nil, false", live, had, err, w.Has(e, Vel.ID()))
	}
}
