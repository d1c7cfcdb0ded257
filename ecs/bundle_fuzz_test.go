package ecs_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

type (
	zzA struct{ X, Y float64 }
	zzB struct{ N int32 } // validator: N ≥ 0
	zzE struct{}          // zero-size
	zzP struct {          // padded: 7 bytes of padding after F
		F uint8
		G uint64
	}
)

var (
	zzCA = ecs.NewComponent[zzA]("zz.A", nil)
	zzCB = ecs.NewComponent[zzB]("zz.B", func(b zzB) bool { return b.N >= 0 })
	zzCE = ecs.NewComponent[zzE]("zz.E", nil)
	zzCP = ecs.NewComponent[zzP]("zz.P", nil)
)

// zzVals is the model's view of one entity: which of the four components it has, and values.
type zzVals struct {
	has [4]bool
	a   zzA
	b   zzB
	p   zzP
}

func zzIDs() [4]ecs.ComponentID {
	return [4]ecs.ComponentID{zzCA.ID(), zzCB.ID(), zzCE.ID(), zzCP.ID()}
}

// zzBundle builds a bundle from bits of x: up to three values, possibly naming one component
// twice, possibly with a value B's validator rejects. It returns the bundle, the values it
// carries (the last one of a component wins only when there is no duplicate), whether it has
// a duplicate, and whether it has an invalid value.
func zzBundle(x, y byte) (b ecs.Bundle, set zzVals, dup, invalid bool) {
	n, used := int(x%4), 0
	size := [4]int{16, 8, 0, 16} // bytes each value takes in a bundle
	for k := range n {
		c := (x >> (2 + 2*k)) & 3
		if used+size[c] > ecs.MaxInline {
			continue // With panics on overflow, by design
		}
		used += size[c]
		v := y + byte(k)
		if set.has[c] {
			dup = true
		}
		set.has[c] = true
		switch c {
		case 0:
			set.a = zzA{float64(v), float64(k)}
			b = b.With(zzCA.Value(set.a))
		case 1:
			set.b = zzB{int32(v) - 40}
			invalid = invalid || set.b.N < 0
			b = b.With(zzCB.Value(set.b))
		case 2:
			b = b.With(zzCE.Value(zzE{}))
		case 3:
			set.p = zzP{F: v, G: uint64(v) * 3}
			b = b.With(zzCP.Value(set.p))
		}
	}
	return
}

// FuzzBundles drives a World with multi-value bundles (Create, Add, Set, Upsert), removes,
// destroys, queries by mask and freezes, against a map model, and replays every call on a
// second World whose hash must match after each call. A failing call must leave the hash
// unchanged; duplicate components are ErrDuplicateComponent; invalid values ErrInvalidValue.
func FuzzBundles(f *testing.F) {
	f.Add([]byte{0, 0x7f, 3, 1, 0, 0xff, 2, 9, 4, 5, 1, 1, 7, 3})
	f.Add([]byte{0, 0x1d, 3, 40, 0, 0x25, 6, 6, 2, 0x3f, 9, 5, 7, 0, 1, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		ops = ops[:min(len(ops), 1500)]
		w, w2 := ecs.NewWorld(), ecs.NewWorld()
		ids := zzIDs()
		model := map[ecs.Entity]*zzVals{}
		var order, order2 []ecs.Entity
		handles := []ecs.Entity{{}}
		handles2 := []ecs.Entity{{}}
		for i := 0; i+2 < len(ops); i += 3 {
			op, x, y := ops[i]%9, ops[i+1], ops[i+2]
			hi := int(y) % len(handles)
			e, e2 := handles[hi], handles2[hi]
			m := model[e]
			before := w.Hash()
			b, set, dup, invalid := zzBundle(x, y)
			var err, err2, want error
			switch op {
			case 0, 8: // create
				var n, n2 ecs.Entity
				n, err = w.Create(b)
				n2, err2 = w2.Create(b)
				switch {
				case dup && invalid:
					want = errAny // either sentinel may come first
				case dup:
					want = ecs.ErrDuplicateComponent
				case invalid:
					want = ecs.ErrInvalidValue
				default:
					v := set
					model[n] = &v
					order = append(order, n)
					order2 = append(order2, n2)
					handles = append(handles, n)
					handles2 = append(handles2, n2)
				}
			case 1: // destroy
				err, err2 = w.Destroy(e), w2.Destroy(e2)
				if m == nil {
					want = errAny
				} else {
					delete(model, e)
					order = slices.DeleteFunc(order, func(v ecs.Entity) bool { return v == e })
					order2 = slices.DeleteFunc(order2, func(v ecs.Entity) bool { return v == e2 })
				}
			case 2, 3, 4: // add, set, upsert
				add, upd := op != 3, op != 2
				switch op {
				case 2:
					err, err2 = w.Add(e, b), w2.Add(e2, b)
				case 3:
					err, err2 = w.Set(e, b), w2.Set(e2, b)
				default:
					err, err2 = w.Upsert(e, b), w2.Upsert(e2, b)
				}
				if m == nil {
					want = errAny
					break
				}
				kinds := 0 // distinct errors that apply: any of them may be reported
				for c := range 4 {
					if !set.has[c] {
						continue
					}
					if m.has[c] && !upd && want != ecs.ErrHasComponent {
						want = ecs.ErrHasComponent
						kinds++
					}
					if !m.has[c] && !add && want != ecs.ErrMissingComponent {
						want = ecs.ErrMissingComponent
						kinds++
					}
				}
				if dup {
					want = ecs.ErrDuplicateComponent
					kinds++
				}
				if invalid {
					want = ecs.ErrInvalidValue
					kinds++
				}
				if kinds > 1 {
					want = errAny
				}
				if want == nil {
					for c := range 4 {
						if set.has[c] {
							m.has[c] = true
						}
					}
					if set.has[0] {
						m.a = set.a
					}
					if set.has[1] {
						m.b = set.b
					}
					if set.has[3] {
						m.p = set.p
					}
				}
			case 5: // remove
				c := int(x) % 4
				err, err2 = w.Remove(e, ids[c]), w2.Remove(e2, ids[c])
				switch {
				case m == nil:
					want = errAny
				case !m.has[c]:
					want = ecs.ErrMissingComponent
				default:
					m.has[c] = false
				}
			case 6: // frozen: structural calls refused, Set of present values allowed
				thaw := w.Freeze()
				_, err = w.Create(ecs.Bundle{})
				if !errors.Is(err, ecs.ErrIterating) {
					t.Fatalf("op %d: create while frozen: %v", i, err)
				}
				if m != nil {
					if err := w.Destroy(e); !errors.Is(err, ecs.ErrIterating) {
						t.Fatalf("op %d: destroy while frozen: %v", i, err)
					}
				}
				thaw()
				err = nil
			case 7: // query by mask
				var mask ecs.Mask
				for c := range 4 {
					if x&(1<<c) != 0 {
						mask |= 1 << ids[c]
					}
				}
				var wantQ []ecs.Entity
				for _, v := range order {
					ok := true
					for c := range 4 {
						if x&(1<<c) != 0 && !model[v].has[c] {
							ok = false
						}
					}
					if ok {
						wantQ = append(wantQ, v)
					}
				}
				if got := slices.Collect(w.Query(mask)); !slices.Equal(got, wantQ) {
					t.Fatalf("op %d: query %b = %v, want %v", i, mask, got, wantQ)
				}
			}
			if (err == nil) != (err2 == nil) {
				t.Fatalf("op %d: replay disagrees: %v vs %v", i, err, err2)
			}
			switch {
			case want == nil && err != nil:
				t.Fatalf("op %d (%d): unexpected error %v", i, op, err)
			case want != nil && err == nil:
				t.Fatalf("op %d (%d): no error, want %v", i, op, want)
			case want != nil && want != errAny && !errors.Is(err, want):
				t.Fatalf("op %d (%d): error %v, want %v", i, op, err, want)
			}
			if err != nil && w.Hash() != before {
				t.Fatalf("op %d (%d): failing call changed the hash", i, op)
			}
			if w.Hash() != w2.Hash() {
				t.Fatalf("op %d (%d): replayed world hashes differently", i, op)
			}
			if got := slices.Collect(w.Entities()); !slices.Equal(got, order) {
				t.Fatalf("op %d: live %v, want %v", i, got, order)
			}
			if got := slices.Collect(w2.Entities()); !slices.Equal(got, order2) {
				t.Fatalf("op %d: replay live %v, want %v", i, got, order2)
			}
			for _, v := range order {
				mv := model[v]
				if w.MaskOf(v) != zzMask(mv, ids) {
					t.Fatalf("op %d: mask of %v = %b, want %b", i, v, w.MaskOf(v), zzMask(mv, ids))
				}
				if got, err := zzCA.Get(w, v); mv.has[0] && (err != nil || got != mv.a) {
					t.Fatalf("op %d: A of %v = %v, %v; want %v", i, v, got, err, mv.a)
				}
				if got, err := zzCB.Get(w, v); mv.has[1] && (err != nil || got != mv.b) {
					t.Fatalf("op %d: B of %v = %v, %v; want %v", i, v, got, err, mv.b)
				}
				if got, err := zzCP.Get(w, v); mv.has[3] && (err != nil || got != mv.p) {
					t.Fatalf("op %d: P of %v = %v, %v; want %v", i, v, got, err, mv.p)
				}
			}
		}
	})
}

var errAny = errors.New("any error")

func zzMask(v *zzVals, ids [4]ecs.ComponentID) ecs.Mask {
	var m ecs.Mask
	for c := range 4 {
		if v.has[c] {
			m |= 1 << ids[c]
		}
	}
	return m
}

// The entity before the last one of a slot: a handle is stale once its slot was reused by a
// newer entity, and stays stale after that newer entity, the slot's last, retires the slot —
// it must not turn back into ErrDead.
func TestRetiredSlotOlderHandleIsStale(t *testing.T) {
	w := ecs.NewWorld()
	e0, err := w.Create(ecs.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Destroy(e0); err != nil {
		t.Fatal(err)
	}
	ecs.SetNextGeneration(w, e0.Slot(), ecs.MaxGeneration-1)
	prev, _ := w.Create(ecs.Bundle{})
	if err := w.Destroy(prev); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(prev); !errors.Is(err, ecs.ErrDead) {
		t.Fatalf("Check(just destroyed) = %v, want ErrDead", err)
	}
	n, _ := w.Create(ecs.Bundle{}) // free slots are reused last-in first-out
	if n.Slot() == prev.Slot() {
		if err := w.Check(prev); !errors.Is(err, ecs.ErrStale) {
			t.Errorf("Check(prev) while its slot holds %v = %v, want ErrStale", n, err)
		}
		if err := w.Destroy(n); err != nil {
			t.Fatal(err)
		}
		if err := w.Check(n); !errors.Is(err, ecs.ErrDead) {
			t.Errorf("Check(last entity of the slot) = %v, want ErrDead", err)
		}
		if err := w.Check(prev); !errors.Is(err, ecs.ErrStale) {
			t.Errorf("Check(older handle of a retired slot) = %v, want ErrStale", err)
		}
	} else if err := w.Check(prev); !errors.Is(err, ecs.ErrDead) {
		t.Errorf("Check(last entity of a retired slot) = %v, want ErrDead", err)
	}
	for range 3 {
		if m, _ := w.Create(ecs.Bundle{}); m.Slot() == prev.Slot() {
			t.Fatalf("retired slot reused by %v", m)
		}
	}
}
