package conformance

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// hooksRuns is the length of the long runs below: more than the dozen elements a sort
// handles by insertion, so that an unstable sort reorders equal keys.
const hooksRuns = 24

// checkHooksSortStableLong: a sort by verb alone (Sets before Adds) keeps the order of equal
// keys on runs of hooksRuns entities with two Sets each, on both sides of a closure: the
// second Set of each entity applies last.
func checkHooksSortStableLong(x *fixture, set SetHooks) {
	set(x.s, Hooks{Sort: func(a, b *deferral.Command) int { return int(b.Verb) - int(a.Verb) }})
	es := make([]ecs.Entity, hooksRuns)
	for i := range es {
		es[i] = x.create(x.w, pt(0, 0))
	}
	seen := make([]float64, len(es))
	r := x.rec()
	stage := func(y float64) {
		for i, e := range es {
			r.Set(e, pt(float64(i), y))
			if i%5 == 0 {
				r.Add(es[len(es)-1-i], pt(-1, -1)) // sorted after every Set of the run
			}
			r.Set(e, pt(float64(i), y+1))
		}
	}
	stage(1)
	r.Do(func(w *ecs.World) error {
		for i, e := range es {
			seen[i] = x.pos("closure", w, e).Y
		}
		return nil
	})
	stage(3)
	x.commit("commit", x.s)
	for i, e := range es {
		wantSeen, wantY := 2.0, 4.0
		if (len(es)-1-i)%5 == 0 { // the runs' Add of this entity sorts after its Sets
			wantSeen, wantY = -1, -1
		}
		want(x, fmt.Sprintf("y of entity %d the closure saw (the first run sorted stably)", i), seen[i], wantSeen)
		want(x, fmt.Sprintf("y of entity %d after the commit (the second run sorted stably)", i), x.pos("e", x.w, e).Y, wantY)
	}
	adds := (len(es) + 4) / 5
	x.wantReport("commit", x.s, deferral.Report{Applied: 2*(2*len(es)+adds) + 1})
}

// checkHooksReduceInterleaved: with a reduce that keeps the later value, interleaved keys
// fold each later command into the first of its own key, also after earlier duplicates were
// dropped and at every position of the run.
func checkHooksReduceInterleaved(x *fixture, set SetHooks) {
	folds := 0
	set(x.s, Hooks{Key: byEntity, Reduce: func(acc, next *deferral.Command) { folds++; acc.Bundle = next.Bundle }})
	es := []ecs.Entity{x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0))}
	// keys a b a c b d c a: duplicates at positions 2, 4, 6, 7, each after a drop but the first.
	order := []int{0, 1, 0, 2, 1, 3, 2, 0}
	last := make([]float64, len(es))
	r := x.rec()
	for k, i := range order {
		r.Set(es[i], pt(float64(k+1), 0))
		last[i] = float64(k + 1)
	}
	x.commit("commit", x.s)
	want(x, "folds", folds, 4)
	for i, e := range es {
		want(x, fmt.Sprintf("x of entity %d (its last command, folded into its first)", i), x.pos("e", x.w, e).X, last[i])
	}
	x.wantReport("commit (folded commands count as consumed)", x.s, deferral.Report{Applied: len(order)})
}

// checkHooksDedupInterleaved: dedup keeps the last command of each key, whatever the
// interleaving, with drops at the first, middle and last positions of a run, and keeps a
// run's first command when no later one shares its key.
func checkHooksDedupInterleaved(x *fixture, set SetHooks) {
	set(x.s, Hooks{Key: byEntity, Dedup: true})
	es := []ecs.Entity{x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0))}
	order := []int{2, 0, 1, 0, 2, 1, 1, 0}
	last := make([]float64, len(es))
	r := x.rec()
	for k, i := range order {
		r.Set(es[i], pt(float64(k+1), 0))
		last[i] = float64(k + 1)
	}
	x.commit("commit", x.s)
	for i, e := range es {
		want(x, fmt.Sprintf("x of entity %d (its last command)", i), x.pos("e", x.w, e).X, last[i])
	}
	x.wantReport("commit (dropped commands count as consumed)", x.s, deferral.Report{Applied: len(order)})

	// Again with every command but each entity's last an Add of a velocity: a dropped command
	// that applied anyway (at the first position of the run, the middle or the end) shows.
	lastAt := map[int]int{}
	for k, i := range order {
		lastAt[i] = k
	}
	for k, i := range order {
		if lastAt[i] == k {
			r.Set(es[i], pt(float64(k+10), 0))
			continue
		}
		r.Add(es[i], vl(float64(k), 0))
	}
	x.commit("commit of adds each dropped by a later set", x.s)
	for i, e := range es {
		if v, ok := vel(x.w, e); ok {
			x.Errorf("velocity of entity %d: %v, want none (every add of it was dropped by its later set)", i, v)
		}
		want(x, fmt.Sprintf("x of entity %d after the second commit", i), x.pos("e", x.w, e).X, float64(lastAt[i]+10))
	}
	x.wantReport("second commit", x.s, deferral.Report{Applied: len(order)})

	// Runs whose first command is the only one of its key, before and after a closure: a
	// walk that never reached a run's first position dropped it.
	r.Set(es[0], pt(21, 0))
	r.Set(es[1], pt(22, 0))
	r.Set(es[1], pt(23, 0))
	r.Do(func(*ecs.World) error { return nil })
	r.Set(es[2], pt(24, 0))
	r.Set(es[1], pt(25, 0))
	x.commit("commit of runs whose first key is unique", x.s)
	for i, wx := range []float64{21, 25, 24} {
		want(x, fmt.Sprintf("x of entity %d after runs whose first key is unique", i), x.pos("e", x.w, es[i]).X, wx)
	}
	x.wantReport("third commit", x.s, deferral.Report{Applied: 6})
}
