package ecs_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/ecs"
)

// refEntity is the reference model's record of one live entity.
type refEntity struct {
	pos, vel       *vec
	hp             *hp
	slot, gen, idx uint32
}

// refWorld is a map-based reference model of a World's strict semantics.
type refWorld struct {
	w      *ecs.World
	alive  map[ecs.Entity]*refEntity
	order  []ecs.Entity
	latest map[uint32]ecs.Entity // newest handle issued per slot
}

// check is the handle error the model expects for e.
func (m *refWorld) check(e ecs.Entity) error {
	switch {
	case e.IsPlaceholder():
		return ecs.ErrPlaceholder
	case e.IsZero():
		return ecs.ErrEmpty
	case e.WorldID() != m.w.ID():
		return ecs.ErrForeign
	case m.alive[e] != nil:
		return nil
	case m.latest[e.Slot()] != e:
		return ecs.ErrStale
	}
	return ecs.ErrDead
}

func ptr[T any](v T) *T { return &v }

// FuzzWorldOps applies a random sequence of World calls to a World and to the reference model
// and compares errors, live entities in order, and component values after every call. A call
// that fails must leave the world's hash unchanged. Each byte pair is one call: the first byte
// picks the call, the second its handle and value. Fuzz with a short minimisation time
// (go test -fuzz FuzzWorldOps -fuzzminimizetime 2s ./ecs): minimising a long input is slow.
func FuzzWorldOps(f *testing.F) {
	f.Add([]byte{0, 1, 0, 3, 1, 0, 0, 7, 2, 1, 4, 5, 6, 200, 7, 0, 9, 9, 1, 1})
	f.Add([]byte{0, 255, 0, 254, 0, 3, 1, 3, 1, 4, 0, 2, 0, 2, 3, 8, 5, 5, 4, 4, 6, 6, 8, 3})
	seq := make([]byte, 0, 400)
	for i := range 200 {
		seq = append(seq, byte(i*7), byte(i*13+5))
	}
	f.Add(seq)
	foreign := mustCreate(f, ecs.NewWorld(), ecs.Bundle{})
	f.Fuzz(func(t *testing.T, ops []byte) {
		// The checks after each call are linear in the world size; cap the sequence so an
		// input costs at most ~10⁶ steps.
		ops = ops[:min(len(ops), 2000)]
		w := ecs.NewWorld()
		m := &refWorld{w: w, alive: map[ecs.Entity]*refEntity{}, latest: map[uint32]ecs.Entity{}}
		handles := []ecs.Entity{{}, foreign, ecs.NewPlaceholder(1, 2, 3)}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%10, ops[i+1]
			e := handles[int(arg)%len(handles)]
			herr := m.check(e)
			r := m.alive[e]
			hpv := hp{int32(arg) - 32} // negative for arg < 32: invalid
			valid := hpv.N >= 0
			before := w.Hash()
			var err, want error
			var name string
			switch op {
			case 0:
				name = "Create"
				b := Pos.Value(vec{float64(arg), float64(i)})
				if arg&1 != 0 {
					b = b.With(Vel.Value(vec{float64(i), 1}))
				}
				if arg&2 != 0 {
					b = b.With(HP.Value(hpv))
					if !valid {
						want = ecs.ErrInvalidValue
					}
				}
				var n ecs.Entity
				n, err = w.Create(b)
				if err == nil && want == nil {
					if old, ok := m.latest[n.Slot()]; (ok && old.Generation() >= n.Generation()) || m.alive[n] != nil {
						t.Fatalf("op %d: Create returned %v, reusing handle or generation of %v", i, n, old)
					}
					nr := &refEntity{pos: ptr(vec{float64(arg), float64(i)})}
					if arg&1 != 0 {
						nr.vel = ptr(vec{float64(i), 1})
					}
					if arg&2 != 0 {
						nr.hp = ptr(hpv)
					}
					m.alive[n], m.latest[n.Slot()] = nr, n
					m.order = append(m.order, n)
					handles = append(handles, n)
				}
			case 1:
				name, want, err = "Destroy", herr, w.Destroy(e)
				if herr == nil {
					delete(m.alive, e)
					m.order = slices.DeleteFunc(m.order, func(x ecs.Entity) bool { return x == e })
				}
			case 2:
				name, want, err = "Pos.Add", herr, Pos.Add(w, e, vec{-1, float64(arg)})
				if herr == nil {
					if r.pos != nil {
						want = ecs.ErrHasComponent
					} else {
						r.pos = ptr(vec{-1, float64(arg)})
					}
				}
			case 3:
				name, want, err = "HP.Add", herr, HP.Add(w, e, hpv)
				switch {
				case herr != nil:
				case r.hp != nil:
					want = ecs.ErrHasComponent
				case !valid:
					want = ecs.ErrInvalidValue
				default:
					r.hp = ptr(hpv)
				}
			case 4:
				ids := []ecs.ComponentID{Pos.ID(), Vel.ID(), HP.ID()}
				name, want, err = "Remove", herr, w.Remove(e, ids[arg%3])
				if herr == nil {
					has := [3]bool{r.pos != nil, r.vel != nil, r.hp != nil}[arg%3]
					switch {
					case !has:
						want = ecs.ErrMissingComponent
					case arg%3 == 0:
						r.pos = nil
					case arg%3 == 1:
						r.vel = nil
					default:
						r.hp = nil
					}
				}
			case 5:
				name, want, err = "Pos.Set", herr, Pos.Set(w, e, vec{float64(arg), -2})
				if herr == nil {
					if r.pos == nil {
						want = ecs.ErrMissingComponent
					} else {
						r.pos = ptr(vec{float64(arg), -2})
					}
				}
			case 6:
				name, want, err = "Upsert", herr, w.Upsert(e, Vel.Value(vec{3, float64(arg)}).With(HP.Value(hpv)))
				switch {
				case herr != nil:
				case !valid:
					want = ecs.ErrInvalidValue
				default:
					r.vel, r.hp = ptr(vec{3, float64(arg)}), ptr(hpv)
				}
			case 7:
				name, want = "structural call inside a query", ecs.ErrIterating
				n := 0
				for range w.Entities() {
					n++
					switch arg % 3 {
					case 0:
						_, err = w.Create(ecs.Bundle{})
					case 1:
						if herr == nil {
							err = w.Destroy(e)
						} else {
							_, err = w.Create(Vel.Value(vec{}))
						}
					default:
						_, err = w.Create(Pos.Value(vec{}))
					}
					break
				}
				if n == 0 {
					want = nil // nothing to iterate: no call made
				}
			case 8:
				name = "Get"
				got, gerr := Pos.Get(w, e)
				err, want = gerr, herr
				if herr == nil {
					if r.pos == nil {
						want = ecs.ErrMissingComponent
					} else if got != *r.pos {
						t.Fatalf("op %d: Pos.Get(%v) = %v, model %v", i, e, got, *r.pos)
					}
				}
			case 9:
				name, want, err = "World.Set HP", herr, w.Set(e, HP.Value(hpv))
				switch {
				case herr != nil:
				case r.hp == nil:
					want = ecs.ErrMissingComponent
				case !valid:
					want = ecs.ErrInvalidValue
				default:
					r.hp = ptr(hpv)
				}
			}
			if (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
				t.Fatalf("op %d: %s(%v) = %v, want %v", i, name, e, err, want)
			}
			if err != nil && w.Hash() != before {
				t.Fatalf("op %d: failing %s changed the world", i, name)
			}
			compare(t, i, w, m)
		}
	})
}

// compare checks w against the model: live entities in order and every component value.
func compare(t *testing.T, op int, w *ecs.World, m *refWorld) {
	t.Helper()
	if got := slices.Collect(w.Entities()); !slices.Equal(got, m.order) {
		t.Fatalf("after op %d: live entities %v, model %v", op, got, m.order)
	}
	if w.Len() != len(m.order) {
		t.Fatalf("after op %d: Len %d, model %d", op, w.Len(), len(m.order))
	}
	for _, e := range m.order {
		r := m.alive[e]
		checkValue(t, op, w, e, Pos, r.pos)
		checkValue(t, op, w, e, Vel, r.vel)
		checkValue(t, op, w, e, HP, r.hp)
	}
}

func checkValue[T comparable](t *testing.T, op int, w *ecs.World, e ecs.Entity, c ecs.Component[T], want *T) {
	t.Helper()
	p := c.Ptr(w, e)
	switch {
	case (p == nil) != (want == nil) || c.Has(w, e) != (want != nil):
		t.Fatalf("after op %d: %v has %s: %v, model %v", op, e, c.Name(), p != nil, want != nil)
	case p != nil && *p != *want:
		t.Fatalf("after op %d: %v %s = %v, model %v", op, e, c.Name(), *p, *want)
	}
}
