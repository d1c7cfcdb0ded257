package workload_test

import (
	"testing"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

var storages = []ecs.Storage{ecs.Slots, ecs.Archetypes}

// TestSpawn: a spawn's three commands make one particle with all three components and the
// values given, on both storages; applied one by one (the test strategy does not merge) it
// moves the row twice on archetype storage (the two adds), nothing on slots.
func TestSpawn(t *testing.T) {
	for _, s := range storages {
		w := ecs.NewWorld(ecs.WithStorage(s))
		st := newSliceStrategy(w)
		rec := st.NewRecorder()
		const n = 10
		var ps []ecs.Entity
		for i := range n {
			ps = append(ps, workload.Spawn(rec, workload.Vec2{X: float64(i)}, workload.Vec2{Y: 1}, 2))
		}
		if err := st.Commit(); err != nil {
			t.Fatalf("%v: commit: %v", s, err)
		}
		for i, p := range ps {
			e, err := st.Resolve(p)
			if err != nil {
				t.Fatalf("%v: resolve spawn %d: %v", s, i, err)
			}
			pos, err1 := workload.Position.Get(w, e)
			vel, err2 := workload.Velocity.Get(w, e)
			life, err3 := workload.Lifetime.Get(w, e)
			if err1 != nil || err2 != nil || err3 != nil || pos.X != float64(i) || vel.Y != 1 || life.Remaining != 2 {
				t.Errorf("%v: spawn %d: %v %v %v, errors %v %v %v", s, i, pos, vel, life, err1, err2, err3)
			}
		}
		want := uint64(0)
		if s == ecs.Archetypes {
			want = 2 * n
		}
		if got := w.Moves(); got != want {
			t.Errorf("%v: %d moves for %d spawns applied one by one, want %d", s, got, n, want)
		}
		st.Close()
	}
}

// TestEffectChurn: each frame stages 1 to 3 commands per entity, every count occurring; after
// each commit the world holds exactly the effects the churn says each entity holds, on both
// storages; the same seed stages the same frames (equal world hashes), another seed others.
func TestEffectChurn(t *testing.T) {
	ids := []ecs.ComponentID{workload.Stunned.ID(), workload.Burning.ID(), workload.Rooted.ID(),
		workload.Poisoned.ID(), workload.Slowed.ID(), workload.Shielded.ID()}
	run := func(s ecs.Storage, seed uint64) uint64 {
		w := ecs.NewWorld(ecs.WithStorage(s))
		var ents []ecs.Entity
		for i := range 200 {
			e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
			if err != nil {
				t.Fatal(err)
			}
			ents = append(ents, e)
		}
		st := newSliceStrategy(w)
		rec := st.NewRecorder()
		c := workload.NewEffectChurn(ents, seed)
		for f := range 20 {
			n := c.Stage(rec)
			if pending := st.Pending(); n != pending || n < len(ents) || n > 3*len(ents) {
				t.Fatalf("%v frame %d: Stage says %d commands, %d pending, for %d entities (want 1 to 3 each)", s, f, n, pending, len(ents))
			}
			if err := st.Commit(); err != nil {
				t.Fatalf("%v frame %d: commit: %v", s, f, err)
			}
			for j, e := range ents {
				held := c.Held(j)
				for i, id := range ids {
					if got, want := w.Has(e, id), held&(1<<i) != 0; got != want {
						t.Fatalf("%v frame %d: entity %d has effect %d: %v, churn says %v", s, f, j, i, got, want)
					}
				}
			}
		}
		if s == ecs.Archetypes && w.Moves() == 0 {
			t.Errorf("%v: the churn moved no rows", s)
		}
		st.Close()
		return w.Hash()
	}
	for _, s := range storages {
		if a, b := run(s, 1), run(s, 1); a != b {
			t.Errorf("%v: seed 1 twice: hashes %x and %x", s, a, b)
		}
		if a, b := run(s, 1), run(s, 2); a == b {
			t.Errorf("%v: seeds 1 and 2 reach the same world", s)
		}
	}
	if a, b := run(ecs.Slots, 3), run(ecs.Archetypes, 3); a != b {
		t.Errorf("seed 3: slots hash %x, archetypes %x: the storages disagree", a, b)
	}
}

// TestEffectChurnCounts: over a frame the entities get 1, 2 and 3 commands, each count about a
// third of the time.
func TestEffectChurnCounts(t *testing.T) {
	const n = 3000
	ents := make([]ecs.Entity, n)
	w := ecs.NewWorld()
	for i := range ents {
		e, err := w.Create(workload.Position.Value(workload.Vec2{}))
		if err != nil {
			t.Fatal(err)
		}
		ents[i] = e
	}
	st := newSliceStrategy(w)
	rec := st.NewRecorder()
	c := workload.NewEffectChurn(ents, 7)
	got := c.Stage(rec)
	if got < 2*n*9/10 || got > 2*n*11/10 {
		t.Errorf("%d commands for %d entities, want about %d (1 to 3 each, uniform)", got, n, 2*n)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	hist := [4]int{}
	for j := range ents {
		k := 0
		for h := c.Held(j); h != 0; h &= h - 1 {
			k++
		}
		hist[k]++
	}
	for k := 1; k <= 3; k++ {
		if hist[k] < n/4 || hist[k] > n*5/12 {
			t.Errorf("%d entities got %d effects, want about %d of %d: %v", hist[k], k, n/3, n, hist)
		}
	}
	st.Close()
}
