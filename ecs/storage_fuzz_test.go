package ecs_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// errClasses are the sentinels a World call may return; two errors are of the same class when
// errors.Is matches the same first sentinel of this list (or both are nil).
var errClasses = []error{ecs.ErrEmpty, ecs.ErrForeign, ecs.ErrDead, ecs.ErrStale, ecs.ErrPlaceholder,
	ecs.ErrHasComponent, ecs.ErrMissingComponent, ecs.ErrIterating, ecs.ErrInvalidValue,
	ecs.ErrUnknownComponent, ecs.ErrDuplicateComponent, ecs.ErrWorldFull, ecs.ErrNotReplica}

func errClass(err error) string {
	if err == nil {
		return "nil"
	}
	for _, s := range errClasses {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "unclassified: " + err.Error()
}

// storagePair is a world on each storage, driven by the same calls; es holds the handles
// both issued, as pairs (slot storage's, archetype storage's).
type storagePair struct {
	t      testing.TB
	s, a   *ecs.World
	es     [][2]ecs.Entity
	frozen [2][]func() // thaw functions of each world's freezes
	last   string
}

func newStoragePair(t testing.TB) *storagePair {
	return &storagePair{t: t, s: ecs.NewWorld(), a: ecs.NewWorld(ecs.WithStorage(ecs.Archetypes))}
}

// pick returns a handle pair chosen by b: an issued pair, the empty handle, a placeholder or
// a handle of a slot never issued.
func (p *storagePair) pick(b byte) [2]ecs.Entity {
	switch {
	case b == 255:
		return [2]ecs.Entity{}
	case b == 254:
		ph := ecs.NewPlaceholder(p.s.ID(), 1, 2)
		return [2]ecs.Entity{ph, ph}
	case len(p.es) == 0:
		return [2]ecs.Entity{}
	}
	return p.es[int(b)%len(p.es)]
}

// bundleOf builds a bundle of up to three inline components from b's bits, with values from
// v; bit 6 repeats a lone component (ErrDuplicateComponent), a value 0x80 of HP is
// negative (ErrInvalidValue).
func bundleOf(b, v byte) ecs.Bundle {
	var out ecs.Bundle
	f := float64(v)
	if b&1 != 0 {
		out = out.With(Pos.Value(vec{f, -f}))
	}
	if b&2 != 0 {
		out = out.With(Vel.Value(vec{f + 1, 2}))
	}
	if b&4 != 0 {
		n := int32(v)
		if v&0x80 != 0 {
			n = -n
		}
		out = out.With(HP.Value(hp{n}))
	}
	if b&8 != 0 && out.Len() < 3 {
		out = out.With(Small.Value(small{v}))
	}
	if b&64 != 0 && out.Len() == 1 {
		out = out.With(out)
	}
	return out
}

// do applies op to both worlds and fails when the two results differ.
func (p *storagePair) do(op, arg, v byte) {
	t := p.t
	t.Helper()
	e := p.pick(arg)
	ids := []ecs.ComponentID{Pos.ID(), Vel.ID(), HP.ID(), Label.ID(), Huge.ID(), Small.ID(), 60}
	id := ids[int(v)%len(ids)]
	res := [2]string{}
	freeze := v%2 == 0 || len(p.frozen[0]) == 0 // op 14: freeze both worlds, or thaw both
	p.last = fmt.Sprintf("after op %d (arg %d, v %d)", op%17, arg, v)
	for i, w := range []*ecs.World{p.s, p.a} {
		var r string
		switch op % 17 {
		case 0, 1:
			ne, err := w.Create(bundleOf(v, arg))
			r = errClass(err)
			if err == nil && i == 0 {
				p.es = append(p.es, [2]ecs.Entity{ne, {}})
			} else if err == nil {
				p.es[len(p.es)-1][1] = ne
			}
			r += fmt.Sprintf(" slot=%d gen=%d", ne.Slot(), ne.Generation())
		case 2:
			r = errClass(w.Destroy(e[i]))
		case 3:
			r = errClass(w.Add(e[i], bundleOf(v, arg)))
		case 4:
			r = errClass(w.Set(e[i], bundleOf(v, arg)))
		case 5:
			r = errClass(w.Upsert(e[i], bundleOf(v, arg)))
		case 6, 7:
			r = errClass(w.Remove(e[i], id))
		case 8:
			b := bundleOf(v, arg)
			live, err := w.TryUpsert(e[i], &b)
			r = fmt.Sprint(live, errClass(err))
		case 9:
			b := bundleOf(v, arg)
			live, err := w.TrySet(e[i], &b)
			live2, had, err2 := w.TryRemove(e[i], id)
			r = fmt.Sprint(live, errClass(err), live2, had, errClass(err2))
		case 10: // typed calls, with components that are not inline
			switch v % 4 {
			case 0:
				r = errClass(Label.Add(w, e[i], label{fmt.Sprint(arg)}))
			case 1:
				r = errClass(Label.Set(w, e[i], label{fmt.Sprint("set", arg)}))
			case 2:
				r = errClass(Huge.Add(w, e[i], huge{int64(arg), 2, 3}))
			default:
				r = errClass(Huge.Set(w, e[i], huge{4, int64(arg)}))
			}
		case 11: // a component's Writer
			x := w.Writer(id)
			val := vec{float64(arg), 3}
			var live, had, done bool
			if id != Pos.ID() && id != Vel.ID() && v%3 != 2 {
				id = Pos.ID() // Set and Upsert copy a vec: only Pos and Vel hold one
				x = w.Writer(id)
			}
			switch v % 3 {
			case 0:
				live, done = x.Set(e[i], unsafe.Pointer(&val))
			case 1:
				live, done = x.Upsert(e[i], unsafe.Pointer(&val))
			default:
				live, had, done = x.Remove(e[i])
			}
			r = "nil"  // done: applied without an error
			if !done { // the checked path, as a deferral commit takes it; storages may differ in done
				if v%3 == 2 {
					_, _, err := w.TryRemove(e[i], id)
					r = errClass(err)
				} else {
					b := ecs.NewBundle()
					if id == Pos.ID() {
						b = Pos.Value(val)
					} else {
						b = Vel.Value(val)
					}
					var err error
					if v%3 == 0 {
						_, err = w.TrySet(e[i], &b)
					} else {
						_, err = w.TryUpsert(e[i], &b)
					}
					r = errClass(err)
				}
			}
			r += fmt.Sprint(" ", live, had)
		case 12: // ApplyValues: records of Pos and HP on a few handles
			words := p.records(i, arg, v)
			run := w.ApplyValues(words, 8)
			r = fmt.Sprintf("%+v", run)
		case 13:
			ne, err := ecs.Create2(w, Pos, vec{float64(arg), 1}, HP, hp{int32(v) - 3})
			r = errClass(err)
			if err == nil && i == 0 {
				p.es = append(p.es, [2]ecs.Entity{ne, {}})
			} else if err == nil {
				p.es[len(p.es)-1][1] = ne
			}
		case 14: // freeze and thaw
			if fz := &p.frozen[i]; freeze {
				*fz = append(*fz, w.Freeze())
			} else {
				(*fz)[len(*fz)-1]()
				*fz = (*fz)[:len(*fz)-1]
			}
			r = fmt.Sprint(w.Iterating())
		case 15: // writes during a typed query, then a structural call that is refused
			q := ecs.NewQuery1(w, Pos) // the visit order differs: pick entities by slot
			for q.Next() {
				q.Get().Y += float64(arg)
				if s := q.Entity().Slot(); s%4 == uint32(v)%4 {
					r += errClass(w.Destroy(q.Entity()))
					r += errClass(w.Set(q.Entity(), Pos.Value(vec{9, float64(s)})))
				}
			}
			w.MarkChanged()
		case 16: // a net change in one step
			b := bundleOf(v, arg)
			live, err := w.TryChange(e[i], &b, ecs.Mask(arg>>2)&ecs.MaskOf(ids...))
			r = fmt.Sprint(live, errClass(err))
		}
		res[i] = r
	}
	if res[0] != res[1] {
		t.Fatalf("op %d (arg %d, v %d): slots %q, archetypes %q", op%17, arg, v, res[0], res[1])
	}
	p.compare()
}

// records encodes ApplyValues records for world i: Add, Set and Remove of Pos (16 bytes) and
// HP (4 bytes in an 8-byte word) on handles picked from arg.
func (p *storagePair) records(i int, arg, v byte) []uint64 {
	var words []uint64
	for k := range 4 {
		e := p.pick(arg + byte(k))[i]
		verb := []byte{ecs.RecordAdd, ecs.RecordRemove, ecs.RecordSet}[(int(v)+k)%3]
		id, n := Pos.ID(), 2
		if (int(v)>>2+k)%2 == 1 {
			id, n = HP.ID(), 1
		}
		rec := make([]uint64, 2+n)
		h := uint32(verb) | uint32(n*8)<<8 | uint32(id)<<16
		*(*uint32)(unsafe.Pointer(&rec[0])) = h
		*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&rec[0]), 4)) = e
		rec[2] = uint64(arg) + uint64(k)
		words = append(words, rec...)
	}
	return words
}

// compare fails when an observable of the two worlds differs: Len, Slots, Changes, Hash,
// each handle's Alive, Check, MaskOf, Has and values, and the sets each query returns.
func (p *storagePair) compare() {
	t, s, a := p.t, p.s, p.a
	t.Helper()
	if s.Len() != a.Len() || s.Slots() != a.Slots() || s.Changes() != a.Changes() || s.Hash() != a.Hash() {
		t.Fatalf("%s: slots: len %d slots %d changes %d hash %#x; archetypes: len %d slots %d changes %d hash %#x",
			p.last, s.Len(), s.Slots(), s.Changes(), s.Hash(), a.Len(), a.Slots(), a.Changes(), a.Hash())
	}
	for _, e := range p.es {
		if s.Alive(e[0]) != a.Alive(e[1]) || errClass(s.Check(e[0])) != errClass(a.Check(e[1])) ||
			s.MaskOf(e[0]) != a.MaskOf(e[1]) || s.Has(e[0], HP.ID()) != a.Has(e[1], HP.ID()) {
			t.Fatalf("%v/%v: alive %v/%v, mask %b/%b", e[0], e[1], s.Alive(e[0]), a.Alive(e[1]), s.MaskOf(e[0]), a.MaskOf(e[1]))
		}
		p.same(e, "Pos", Pos, s, a)
		p.same(e, "Vel", Vel, s, a)
		p.same(e, "HP", HP, s, a)
		p.same(e, "Label", Label, s, a)
		p.same(e, "Huge", Huge, s, a)
		p.same(e, "Small", Small, s, a)
	}
	for _, m := range []ecs.Mask{0, ecs.MaskOf(Pos.ID()), ecs.MaskOf(Pos.ID(), HP.ID()), ecs.MaskOf(Vel.ID(), Label.ID())} {
		if gs, ga := slotsOf(s.Query(m)), slotsOf(a.Query(m)); !slices.Equal(gs, ga) {
			t.Fatalf("Query(%b): slots %v, archetypes %v", m, gs, ga)
		}
	}
	if gs, ga := query2Of(s), query2Of(a); !slices.Equal(gs, ga) {
		t.Fatalf("Query2(Pos, HP): slots %v, archetypes %v", gs, ga)
	}
}

func (p *storagePair) same(e [2]ecs.Entity, name string, c interface {
	Has(*ecs.World, ecs.Entity) bool
}, s, a *ecs.World) {
	p.t.Helper()
	var vs, va any
	var es, ea error
	switch c := c.(type) {
	case ecs.Component[vec]:
		vs, es = c.Get(s, e[0])
		va, ea = c.Get(a, e[1])
	case ecs.Component[hp]:
		vs, es = c.Get(s, e[0])
		va, ea = c.Get(a, e[1])
	case ecs.Component[label]:
		vs, es = c.Get(s, e[0])
		va, ea = c.Get(a, e[1])
	case ecs.Component[huge]:
		vs, es = c.Get(s, e[0])
		va, ea = c.Get(a, e[1])
	case ecs.Component[small]:
		vs, es = c.Get(s, e[0])
		va, ea = c.Get(a, e[1])
	}
	if vs != va || errClass(es) != errClass(ea) {
		p.t.Fatalf("%s of %v: slots %v (%v), archetypes %v (%v)", name, e[0], vs, es, va, ea)
	}
}

// slotsOf returns the slots q yields, sorted: archetype storage visits them in table order.
func slotsOf(q func(func(ecs.Entity) bool)) []uint32 {
	var out []uint32
	for e := range q {
		out = append(out, e.Slot())
	}
	slices.Sort(out)
	return out
}

// query2Of returns "slot:pos.X:hp" for each entity a Query2 over Pos and HP visits, sorted.
func query2Of(w *ecs.World) []string {
	var out []string
	q := ecs.NewQuery2(w, Pos, HP)
	for q.Next() {
		p, h := q.Get()
		out = append(out, fmt.Sprintf("%d:%v:%d", q.Entity().Slot(), p.X, h.N))
	}
	slices.Sort(out)
	return out
}

// runStorageOps decodes ops in byte triples (call, handle, value) and applies each to both
// worlds, comparing after every call; every few calls it checks a replica and CopyFrom too.
func runStorageOps(t testing.TB, ops []byte) {
	p := newStoragePair(t)
	rs, ra := p.s.Replica(), p.a.Replica()
	for i := 0; i+2 < len(ops); i += 3 {
		p.do(ops[i], ops[i+1], ops[i+2])
		if i%30 == 27 && !p.s.Iterating() {
			if err := rs.CopyFrom(p.s); err != nil {
				t.Fatal(err)
			}
			if err := ra.CopyFrom(p.a); err != nil {
				t.Fatal(err)
			}
			if rs.Hash() != ra.Hash() || ra.Hash() != p.a.Hash() || ra.Storage() != ecs.Archetypes || rs.Storage() != ecs.Slots {
				t.Fatalf("replicas: slots %#x, archetypes %#x, world %#x", rs.Hash(), ra.Hash(), p.a.Hash())
			}
			if ra.StorageBytes() <= 0 {
				t.Fatal("StorageBytes of an archetype replica is not positive")
			}
			ra = p.a.Replica() // a fresh copy as well as one into reused storage
		}
	}
	for i := range p.frozen {
		for _, thaw := range p.frozen[i] {
			thaw()
		}
	}
	if p.s.Moves() != 0 {
		t.Fatalf("Moves on slot storage: %d, want 0", p.s.Moves())
	}
}

// FuzzStorages drives a world on slot storage and one on archetype storage with the same
// decoded calls and compares every observable result after each: errors by class, handles,
// liveness, masks, values, Len, Changes, Hash and the sets queries return.
//
//	go test ./ecs -run XXX -fuzz FuzzStorages -fuzztime 10m
func FuzzStorages(f *testing.F) {
	f.Add([]byte{0, 0, 3, 0, 1, 7, 3, 0, 4, 6, 0, 0, 2, 1, 0, 0, 2, 5, 12, 0, 5, 15, 0, 1})
	seq := make([]byte, 0, 600)
	for i := range 200 {
		seq = append(seq, byte(i*7), byte(i*13+5), byte(i*29+3))
	}
	f.Add(seq)
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 900 {
			ops = ops[:900]
		}
		runStorageOps(t, ops)
	})
}

// TestStoragesRandom runs FuzzStorages' comparison on seeded random call sequences, so that
// every go test run drives both storages through a few thousand calls.
func TestStoragesRandom(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	for seed := range n {
		ops := make([]byte, 600)
		x := uint64(seed)*0x9e3779b97f4a7c15 + 1
		for i := range ops {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			ops[i] = byte(x >> 24)
		}
		// Creates are rarer than other calls in uniform bytes: bias the first third to them.
		for i := 0; i < len(ops)/3; i += 6 {
			ops[i] = 0
		}
		runStorageOps(t, ops)
	}
}
