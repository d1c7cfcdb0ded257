package ecs_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// churn applies the same seeded sequence of changing calls to every world in ws and returns
// the handles each world's creates returned, in order.
func churn(t *testing.T, seed uint64, steps int, ws ...*ecs.World) [][]ecs.Entity {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	created := make([][]ecs.Entity, len(ws))
	var live []ecs.Entity // handles of ws[0]; the same values name the same entities in the others
	for range steps {
		op, k := r.IntN(5), 0
		if len(live) > 0 {
			k = r.IntN(len(live))
		} else {
			op = 0 // nothing to name: create
		}
		v := float64(r.IntN(1000))
		for i, w := range ws {
			var err error
			switch {
			case op <= 1:
				var e ecs.Entity
				e, err = w.Create(Pos.Value(vec{v, -v}).With(HP.Value(hp{int32(v)})))
				created[i] = append(created[i], e)
				if i == 0 {
					live = append(live, e)
				}
			case op == 2:
				err = w.Destroy(live[k])
			case op == 3:
				err = w.Upsert(live[k], Vel.Value(vec{v, v}))
			default:
				if w.Has(live[k], HP.ID()) {
					err = w.Remove(live[k], HP.ID())
				}
			}
			if err != nil {
				t.Fatalf("world %d op %d: %v", i, op, err)
			}
		}
		if op == 2 && len(live) > 0 {
			live = append(live[:k], live[k+1:]...)
		}
	}
	return created
}

// TestReplicaHandlesValidInBoth: a replica carries the original's id, its handles are valid in
// both, and the same calls on both keep them identical, slot reuse and compaction included.
func TestReplicaHandlesValidInBoth(t *testing.T) {
	w := ecs.NewWorld()
	churn(t, 1, 500, w)
	r := w.Replica()
	if r.ID() != w.ID() || r.Hash() != w.Hash() || r.Len() != w.Len() || r.Slots() != w.Slots() {
		t.Fatalf("replica: id %d len %d slots %d hash %#x; original: id %d len %d slots %d hash %#x",
			r.ID(), r.Len(), r.Slots(), r.Hash(), w.ID(), w.Len(), w.Slots(), w.Hash())
	}
	for e := range w.Entities() {
		if !r.Alive(e) || r.MaskOf(e) != w.MaskOf(e) {
			t.Fatalf("%v: alive in replica %v, mask %b vs %b", e, r.Alive(e), r.MaskOf(e), w.MaskOf(e))
		}
		a, _ := Pos.Get(w, e)
		b, _ := Pos.Get(r, e)
		if a != b {
			t.Fatalf("%v: position %v in the replica, %v in the original", e, b, a)
		}
	}
	created := churn(t, 2, 2000, w, r) // destroys free slots, creates reuse them, holes compact
	for i := range created[0] {
		if created[0][i] != created[1][i] {
			t.Fatalf("create %d: original returned %v, replica %v", i, created[0][i], created[1][i])
		}
	}
	if r.Hash() != w.Hash() {
		t.Fatalf("after the same calls: replica hash %#x, original %#x", r.Hash(), w.Hash())
	}
	other := ecs.NewWorld()
	f := mustCreate(t, other, Pos.Value(vec{}))
	if err := r.Check(f); !errors.Is(err, ecs.ErrForeign) {
		t.Fatalf("a third world's handle in the replica: %v, want ErrForeign", err)
	}
}

// TestReplicaIndependent: changing one replica leaves the other as it was.
func TestReplicaIndependent(t *testing.T) {
	w := ecs.NewWorld()
	e := mustCreate(t, w, Pos.Value(vec{1, 1}))
	r := w.Replica()
	h := r.Hash()
	if err := Pos.Set(w, e, vec{2, 2}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, w, Vel.Value(vec{}))
	if err := w.Destroy(e); err != nil {
		t.Fatal(err)
	}
	if r.Hash() != h || !r.Alive(e) {
		t.Fatalf("replica changed with the original: hash %#x want %#x, alive %v", r.Hash(), h, r.Alive(e))
	}
	if p, _ := Pos.Get(r, e); p != (vec{1, 1}) {
		t.Fatalf("replica's position %v, want {1 1}", p)
	}
}

// TestCopyFrom: CopyFrom brings a replica to the source's state, strictly refuses worlds that
// are not replicas and a frozen target, and does not allocate once the target has grown.
func TestCopyFrom(t *testing.T) {
	w := ecs.NewWorld()
	churn(t, 3, 300, w)
	r := w.Replica()
	churn(t, 4, 300, w) // w moves on; r stays behind
	if r.Hash() == w.Hash() {
		t.Fatal("setup: replicas still equal")
	}
	before := r.Changes()
	if err := r.CopyFrom(w); err != nil {
		t.Fatal(err)
	}
	if r.Hash() != w.Hash() || r.Len() != w.Len() || r.Slots() != w.Slots() {
		t.Fatalf("after CopyFrom: hash %#x len %d, want %#x len %d", r.Hash(), r.Len(), w.Hash(), w.Len())
	}
	if r.Changes() == before {
		t.Error("CopyFrom did not move Changes")
	}
	created := churn(t, 5, 500, w, r)
	for i := range created[0] {
		if created[0][i] != created[1][i] {
			t.Fatalf("create %d after CopyFrom: %v vs %v", i, created[0][i], created[1][i])
		}
	}
	if allocs := testing.AllocsPerRun(10, func() {
		if err := r.CopyFrom(w); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("CopyFrom into a grown replica: %v allocs, want 0", allocs)
	}

	other := ecs.NewWorld()
	h := r.Hash()
	for name, err := range map[string]error{
		"another world": r.CopyFrom(other),
		"itself":        r.CopyFrom(r),
	} {
		if !errors.Is(err, ecs.ErrNotReplica) {
			t.Errorf("CopyFrom %s: %v, want ErrNotReplica", name, err)
		}
	}
	thaw := r.Freeze()
	if err := r.CopyFrom(w); !errors.Is(err, ecs.ErrIterating) {
		t.Errorf("CopyFrom into a frozen world: %v, want ErrIterating", err)
	}
	thaw()
	if r.Hash() != h {
		t.Error("a refused CopyFrom changed the world")
	}
}

// TestCopyFromDropsColumns: a column the source never made is dropped from the target, and a
// pointer-holding component is copied by assignment.
func TestCopyFromDropsColumns(t *testing.T) {
	w := ecs.NewWorld()
	e := mustCreate(t, w, Pos.Value(vec{}))
	r := w.Replica()
	if err := Label.Add(r, e, label{"only in r"}); err != nil {
		t.Fatal(err)
	}
	if err := r.CopyFrom(w); err != nil {
		t.Fatal(err)
	}
	if Label.Has(r, e) || r.Hash() != w.Hash() {
		t.Fatalf("after CopyFrom: label %v, hash %#x want %#x", Label.Has(r, e), r.Hash(), w.Hash())
	}
	if err := Label.Add(w, e, label{"from w"}); err != nil {
		t.Fatal(err)
	}
	if err := r.CopyFrom(w); err != nil {
		t.Fatal(err)
	}
	if l, err := Label.Get(r, e); err != nil || l.S != "from w" {
		t.Fatalf("copied label: %v, %v", l, err)
	}
}

// TestChanges: every successful changing call moves the counter, failed calls and reads do not.
func TestChanges(t *testing.T) {
	w := ecs.NewWorld()
	e := mustCreate(t, w, Pos.Value(vec{}))
	steps := []struct {
		name    string
		call    func() error
		changes bool
	}{
		{"create", func() error { _, err := w.Create(ecs.Bundle{}); return err }, true},
		{"add", func() error { return w.Add(e, Vel.Value(vec{})) }, true},
		{"set", func() error { return w.Set(e, Vel.Value(vec{1, 1})) }, true},
		{"upsert", func() error { return w.Upsert(e, HP.Value(hp{1})) }, true},
		{"component set", func() error { return Pos.Set(w, e, vec{2, 2}) }, true},
		{"remove", func() error { return w.Remove(e, HP.ID()) }, true},
		{"mark changed", func() error { w.MarkChanged(); return nil }, true},
		{"failed add", func() error { w.Add(e, Vel.Value(vec{})); return nil }, false},
		{"failed set", func() error { w.Set(e, HP.Value(hp{1})); return nil }, false},
		{"culled create", func() error { w.Create(HP.Value(hp{-1})); return nil }, false},
		{"read", func() error { w.Hash(); Pos.Get(w, e); w.Alive(e); return nil }, false},
		{"write through Ptr", func() error { Pos.Ptr(w, e).X = 9; return nil }, false},
		{"destroy", func() error { return w.Destroy(e) }, true},
		{"failed destroy", func() error { w.Destroy(e); return nil }, false},
	}
	for _, s := range steps {
		before := w.Changes()
		if err := s.call(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if moved := w.Changes() != before; moved != s.changes {
			t.Errorf("%s: Changes moved %v, want %v", s.name, moved, s.changes)
		}
	}
}

// TestStorageBytes: the storage a world reports grows with its entities and counts columns.
func TestStorageBytes(t *testing.T) {
	w := ecs.NewWorld()
	empty := w.StorageBytes()
	for range 1000 {
		mustCreate(t, w, Pos.Value(vec{}).With(Vel.Value(vec{})))
	}
	// Per entity at least: two 16-byte values, a generation, a mask, a live flag, two indexes.
	if got, min := w.StorageBytes()-empty, 1000*(16+16+4+8+1+4+4); got < min {
		t.Fatalf("StorageBytes grew by %d for 1000 entities, want at least %d", got, min)
	}
	// A replica's arrays are sized to the original's contents, without append slack.
	if r := w.Replica(); r.StorageBytes() > w.StorageBytes() || r.StorageBytes() < 1000*(16+16) {
		t.Fatalf("replica StorageBytes %d, original %d", r.StorageBytes(), w.StorageBytes())
	}
}

// TestReplicaBehindRefusesNewerHandle: a replica shares its world's id, so a handle the world
// issued after the copy reaches the replica with the generation the replica's free slot will
// issue next. The replica must call it dead, not live: a check on the generation alone let
// versioned's replay write to a free slot of its replica.
func TestReplicaBehindRefusesNewerHandle(t *testing.T) {
	w := ecs.NewWorld()
	e1 := mustCreate(t, w, Pos.Value(vec{1, 2}))
	if err := w.Destroy(e1); err != nil {
		t.Fatal(err)
	}
	r := w.Replica() // slot of e1 free, at the next generation
	e2 := mustCreate(t, w, Pos.Value(vec{3, 4}))
	if e2.Slot() != e1.Slot() {
		t.Fatalf("test setup: e2 %v did not reuse e1's slot %v", e2, e1)
	}
	if r.Alive(e2) || r.Has(e2, Pos.ID()) {
		t.Fatalf("replica: %v reads as alive", e2)
	}
	if err := r.Check(e2); !errors.Is(err, ecs.ErrDead) {
		t.Errorf("replica Check(%v) = %v, want ErrDead", e2, err)
	}
	for name, err := range map[string]error{
		"Set":    r.Set(e2, Pos.Value(vec{5, 6})),
		"Upsert": r.Upsert(e2, Pos.Value(vec{5, 6})),
		"Remove": r.Remove(e2, Pos.ID()),
	} {
		if !errors.Is(err, ecs.ErrDead) {
			t.Errorf("replica %s(%v) = %v, want ErrDead", name, e2, err)
		}
	}
	if r.Len() != 0 {
		t.Errorf("replica holds %d entities, want 0", r.Len())
	}
}

// TestCopyFromQueries: after CopyFrom, typed queries on the copy visit exactly src's
// entities once, also when the copy's own history had left it a longer prefix of the live
// order that lists slots in order than src has (src destroyed an early entity and reused
// its slot).
func TestCopyFromQueries(t *testing.T) {
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		w := ecs.NewWorld(ecs.WithStorage(st))
		r := w.Replica()
		var es []ecs.Entity
		for i := range 4 {
			es = append(es, mustCreate(t, w, Pos.Value(vec{float64(i), 0})))
			mustCreate(t, r, Pos.Value(vec{float64(i), 0}))
		}
		if err := w.Destroy(es[1]); err != nil {
			t.Fatal(err)
		}
		mustCreate(t, w, Pos.Value(vec{10, 0}))
		if err := r.CopyFrom(w); err != nil {
			t.Fatal(err)
		}
		if got, want := queried(r, Pos), queried(w, Pos); !slices.Equal(got, want) {
			t.Errorf("%v: NewQuery1 on the copy visits %v, want src's %v", st, got, want)
		}
	}
}

// trustCalls counts the calls of trusted's validator, which refuses negative values.
var (
	trustCalls atomic.Int64
	trusted    = ecs.NewComponent[int32]("test.trusted", func(v int32) bool { trustCalls.Add(1); return v >= 0 })
)

// TestTrustValues: a world told to trust values accepts a value its validator refuses, in
// every call that takes values (Create, Create2, Add, Set, Upsert, the Component calls),
// without calling the validator, and keeps doing so after its columns grow and after
// CopyFrom; its original and a Replica of it still validate, and so does the world once told
// to stop trusting.
func TestTrustValues(t *testing.T) {
	for _, s := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		w := ecs.NewWorld(ecs.WithStorage(s))
		e, err := w.Create(Pos.Value(vec{1, 1}).With(trusted.Value(1)))
		if err != nil {
			t.Fatal(err)
		}
		r := w.Replica()
		if _, err := r.Create(trusted.Value(-1)); !errors.Is(err, ecs.ErrInvalidValue) {
			t.Fatalf("%v: a Replica before TrustValues: Create of a refused value: got %v, want ErrInvalidValue", s, err)
		}
		r.TrustValues(true)
		before := trustCalls.Load()
		calls := []struct {
			name string
			f    func() error
		}{
			{"Create", func() error { _, err := r.Create(Pos.Value(vec{}).With(trusted.Value(-2))); return err }},
			{"Create2", func() error { _, err := ecs.Create2(r, Pos, vec{}, trusted, -3); return err }},
			{"Set", func() error { return r.Set(e, trusted.Value(-4)) }},
			{"Upsert", func() error { return r.Upsert(e, trusted.Value(-5)) }},
			{"Component.Set", func() error { return trusted.Set(r, e, -6) }},
			{"Remove, then Add", func() error {
				if err := r.Remove(e, trusted.ID()); err != nil {
					return err
				}
				return r.Add(e, trusted.Value(-7))
			}},
			{"Remove, then Component.Add", func() error {
				if err := r.Remove(e, trusted.ID()); err != nil {
					return err
				}
				return trusted.Add(r, e, -8)
			}},
			{"200 creates (the columns grow), then Upsert", func() error {
				for i := range 200 {
					if _, err := r.Create(trusted.Value(int32(-100 - i))); err != nil {
						return err
					}
				}
				// With a component the world has no column for yet: the checked path.
				return r.Upsert(e, trusted.Value(-9).With(Vel.Value(vec{2, 2})))
			}},
			{"CopyFrom, then Upsert", func() error {
				if err := r.CopyFrom(w); err != nil {
					return err
				}
				return r.Upsert(e, trusted.Value(-10))
			}},
		}
		for _, c := range calls {
			if err := c.f(); err != nil {
				t.Errorf("%v: %s of a refused value in a world that trusts values: %v", s, c.name, err)
			}
		}
		if got, _ := trusted.Get(r, e); got != -10 {
			t.Errorf("%v: the trusting world holds %d, want -10", s, got)
		}
		if n := trustCalls.Load() - before; n != 0 {
			t.Errorf("%v: the validator ran %d times in a world that trusts values; want 0", s, n)
		}
		if _, err := w.Create(trusted.Value(-1)); !errors.Is(err, ecs.ErrInvalidValue) {
			t.Errorf("%v: the original after its replica's TrustValues: got %v, want ErrInvalidValue", s, err)
		}
		if _, err := r.Replica().Create(trusted.Value(-1)); !errors.Is(err, ecs.ErrInvalidValue) {
			t.Errorf("%v: a Replica of a trusting world: got %v, want ErrInvalidValue", s, err)
		}
		r.TrustValues(false)
		if err := trusted.Set(r, e, -11); !errors.Is(err, ecs.ErrInvalidValue) {
			t.Errorf("%v: after TrustValues(false): Component.Set of a refused value: got %v, want ErrInvalidValue", s, err)
		}
		if _, err := ecs.Create2(r, Pos, vec{}, trusted, -12); !errors.Is(err, ecs.ErrInvalidValue) {
			t.Errorf("%v: after TrustValues(false): Create2 of a refused value: got %v, want ErrInvalidValue", s, err)
		}
	}
}
