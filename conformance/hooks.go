package conformance

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Hooks are commit-time transformations of the typed tier, for strategies that offer them
// (cmdbuffer's Hooks over deferral.Command): Sort stably reorders each run of typed commands
// between two closures; Dedup keeps the last command of each Key in a run; Reduce folds every
// later command of a Key into the first of its run, in order. Closures are barriers no hook
// moves a command across, and a command a hook drops counts as consumed. Dedup and Reduce
// need Key, and exclude each other: installing such Hooks is refused (SetHooks panics) and
// leaves the hooks installed before.
type Hooks struct {
	Sort   func(a, b *deferral.Command) int
	Key    func(c *deferral.Command) uint64
	Dedup  bool
	Reduce func(acc *deferral.Command, next *deferral.Command)
}

// SetHooks installs h on s, a strategy the suite's factory made.
type SetHooks func(s deferral.Strategy, h Hooks)

// TestHooks runs the hooks suite against strategies f makes, with hooks installed by set;
// each row is a subtest on a fresh World and strategy:
//
//	func TestConformanceHooks(t *testing.T) { conformance.TestHooks(t, cmdbuffer.Factory, setHooks) }
func TestHooks(t *testing.T, f Factory, set SetHooks) {
	t.Helper()
	if set == nil {
		t.Fatal("conformance.TestHooks: SetHooks is nil")
	}
	with := func(fn func(x *fixture, set SetHooks)) func(x *fixture) {
		return func(x *fixture) { fn(x, set) }
	}
	runRows(t, "TestHooks", f, []row{
		{"HooksSortWithinRuns", with(checkHooksSort), 0},
		{"HooksDedupLastWins", with(checkHooksDedup), 0},
		{"HooksReduceIntoFirst", with(checkHooksReduce), 0},
		{"HooksNoneChangesNothing", with(checkHooksNone), 0},
		{"HooksSortStableLongRuns", with(checkHooksSortStableLong), 0},
		{"HooksReduceInterleavedKeys", with(checkHooksReduceInterleaved), 0},
		{"HooksDedupInterleavedKeys", with(checkHooksDedupInterleaved), 0},
		{"HooksInvalidRefused", with(checkHooksInvalid), 0},
	})
}

// byEntity is a Key: the command's entity.
func byEntity(c *deferral.Command) uint64 { return uint64(c.Entity.Slot()) }

// checkHooksSort: sorting Sets before Adds reorders each run, never across a closure.
func checkHooksSort(x *fixture, set SetHooks) {
	set(x.s, Hooks{Sort: func(a, b *deferral.Command) int { return int(b.Verb) - int(a.Verb) }}) // Set before Add
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	var at workload.Vec2
	r.Add(e, pt(1, 1))
	r.Set(e, pt(2, 2))
	r.Do(func(w *ecs.World) error { at = x.pos("closure", w, e); return nil })
	r.Add(e, pt(3, 3))
	r.Set(e, pt(4, 4))
	x.commit("commit", x.s)
	want(x, "position the closure saw (its run sorted, Set then Add)", at, v2(1, 1))
	want(x, "position after the commit (the second run sorted)", x.pos("e", x.w, e), v2(3, 3))
	x.wantReport("commit", x.s, deferral.Report{Applied: 5})
}

// checkHooksDedup: only the last command of each entity in a run applies; the closure
// between two runs sees the first run's last; dropped commands count as consumed.
func checkHooksDedup(x *fixture, set SetHooks) {
	set(x.s, Hooks{Key: byEntity, Dedup: true})
	e, f := x.create(x.w, pt(0, 0)), x.create(x.w, pt(0, 0))
	r := x.rec()
	var at workload.Vec2
	r.Set(e, pt(1, 1))
	r.Set(f, pt(5, 5))
	r.Set(e, pt(2, 2))
	r.Do(func(w *ecs.World) error { at = x.pos("closure", w, e); return nil })
	r.Set(e, pt(3, 3))
	r.Set(e, pt(4, 4))
	x.commit("commit", x.s)
	want(x, "position the closure saw", at, v2(2, 2))
	want(x, "position of e", x.pos("e", x.w, e), v2(4, 4))
	want(x, "position of f", x.pos("f", x.w, f), v2(5, 5))
	x.wantReport("commit (dropped commands count as consumed)", x.s, deferral.Report{Applied: 6})
}

// checkHooksReduce: later commands of an entity fold into the first of its run (here: the
// first is kept and the later ones are counted), never across a closure.
func checkHooksReduce(x *fixture, set SetHooks) {
	folds := 0
	set(x.s, Hooks{Key: byEntity, Reduce: func(acc, next *deferral.Command) { folds++ }})
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Set(e, pt(1, 1))
	r.Set(e, pt(2, 2))
	r.Set(e, pt(3, 3))
	r.Do(func(*ecs.World) error { return nil })
	r.Set(e, pt(4, 4))
	x.commit("commit", x.s)
	want(x, "folds (two later commands of e in the first run, none across the closure)", folds, 2)
	want(x, "position of e (the second run's only command)", x.pos("e", x.w, e), v2(4, 4))
	x.wantReport("commit", x.s, deferral.Report{Applied: 5})
	r.Set(e, pt(5, 5))
	r.Set(e, pt(6, 6))
	x.commit("second commit", x.s)
	want(x, "position of e (the first command kept, the later folded into it)", x.pos("e", x.w, e), v2(5, 5))
}

// checkHooksNone: the zero Hooks change nothing: every command applies in order.
func checkHooksNone(x *fixture, set SetHooks) {
	set(x.s, Hooks{})
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Add(e, pt(1, 1))
	r.Set(e, pt(2, 2))
	r.Set(e, pt(3, 3))
	x.commit("commit", x.s)
	want(x, "position of e", x.pos("e", x.w, e), v2(3, 3))
	x.wantReport("commit", x.s, deferral.Report{Applied: 3})
}

// checkHooksInvalid: Dedup without Key, Reduce without Key, and Dedup with Reduce are each
// refused (the install panics); the Sort installed before stays in effect.
func checkHooksInvalid(x *fixture, set SetHooks) {
	set(x.s, Hooks{Sort: func(a, b *deferral.Command) int { return int(b.Verb) - int(a.Verb) }}) // Set before Add
	reduce := func(acc, next *deferral.Command) {}
	for _, c := range []struct {
		what string
		h    Hooks
	}{
		{"Dedup without Key", Hooks{Dedup: true}},
		{"Reduce without Key", Hooks{Reduce: reduce}},
		{"Dedup with Reduce", Hooks{Key: byEntity, Dedup: true, Reduce: reduce}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					x.Errorf("installing hooks with %s: no panic, want the install refused", c.what)
				}
			}()
			set(x.s, c.h)
		}()
	}
	e := x.create(x.w, pt(0, 0))
	r := x.rec()
	r.Add(e, pt(1, 1))
	r.Set(e, pt(2, 2))
	x.commit("commit after the refused installs", x.s)
	want(x, "position after the commit (the Sort installed before still sorts: Set, then Add)", x.pos("e", x.w, e), v2(1, 1))
}
