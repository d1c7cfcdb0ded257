package ecs_test

import (
	"testing"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

type hashVec struct{ X, Y float64 }

var (
	hashVecC  = ecs.NewComponent[hashVec]("hashstable.vec", nil)
	hashTagC  = ecs.NewComponent[uint32]("hashstable.tag", nil)
	hashNameC = ecs.NewComponent[string]("hashstable.name", nil)
)

// hashWorld builds the same small world on storage s: pointer-free values, a padded one, a
// value holding a pointer, a destroyed entity.
func hashWorld(t *testing.T, s ecs.Storage) *ecs.World {
	t.Helper()
	w := ecs.NewWorld(ecs.WithStorage(s))
	var es []ecs.Entity
	for i := range 6 {
		b := hashVecC.Value(hashVec{float64(i), -float64(i)})
		if i%2 == 0 {
			b = b.With(hashTagC.Value(uint32(i * 7)))
		}
		e, err := w.Create(b)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	if err := w.Upsert(es[1], padded6C.Value(padded6{A: 1, B: 2, C: 3, D: 4, E: 5, F: 6})); err != nil {
		t.Fatal(err)
	}
	if err := hashNameC.Add(w, es[3], "three"); err != nil {
		t.Fatal(err)
	}
	if err := w.Destroy(es[4]); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHashStable: World.Hash is a digest two processes compare (the determinism checks, a
// replica against its world), so its value for a given state does not change between
// versions: this world's digest is the one hash/fnv's FNV-1a gave before Hash kept its own
// running sum, on both storages. And Hash allocates nothing on a world of pointer-free values
// (versioned hashes both replicas after every replayed publish with CheckDivergence).
func TestHashStable(t *testing.T) {
	const want uint64 = 0xefa0582725e2f7eb
	// The digest is of the values' bytes, so of their layout: this one is a 64-bit
	// little-endian machine's (amd64, arm64). On 32-bit arm padded6's uint64 fields lie at
	// other offsets; elsewhere the storages must still agree.
	one := uint16(1)
	golden := unsafe.Sizeof(uintptr(0)) == 8 && *(*byte)(unsafe.Pointer(&one)) == 1
	var first uint64
	for i, s := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		w := hashWorld(t, s)
		got := w.Hash()
		if golden && got != want {
			t.Errorf("storage %v: Hash %#x, want %#x", s, got, want)
		}
		if i == 0 {
			first = got
		} else if got != first {
			t.Errorf("storage %v: Hash %#x, slot storage's %#x: the storages must hash alike", s, got, first)
		}
		var named []ecs.Entity
		for e := range w.Entities() {
			if hashNameC.Has(w, e) {
				named = append(named, e)
			}
		}
		for _, e := range named {
			if err := hashNameC.Remove(w, e); err != nil {
				t.Fatal(err)
			}
		}
		if n := testing.AllocsPerRun(10, func() { w.Hash() }); n != 0 {
			t.Errorf("storage %v: Hash of pointer-free values allocates %v times, want 0", s, n)
		}
	}
}
