package workload_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

var errBoom = errors.New("boom")

// tagValue is a component no particle has, for structural Add calls.
type tagValue struct{ N int }

var tag = ecs.NewComponent[tagValue]("workload_test.Tag", nil)

// newSim returns a Sim over a fresh world holding n seeded particles.
func newSim(t testing.TB, n int, seed uint64) (*workload.Sim, *ecs.World) {
	t.Helper()
	w := ecs.NewWorld()
	if err := workload.Populate(w, n, seed); err != nil {
		t.Fatalf("Populate(%d, %d): %v", n, seed, err)
	}
	return workload.NewSim(newSliceStrategy(w)), w
}

func mustCreate(t testing.TB, w *ecs.World, b ecs.Bundle) ecs.Entity {
	t.Helper()
	e, err := w.Create(b)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return e
}

func pos(t testing.TB, w *ecs.World, e ecs.Entity) workload.Vec2 {
	t.Helper()
	p, err := workload.Position.Get(w, e)
	if err != nil {
		t.Fatalf("Position.Get(%v): %v", e, err)
	}
	return p
}

func TestStepRejectsInvalidDt(t *testing.T) {
	for _, dt := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -0.5, -math.MaxFloat64} {
		t.Run(fmt.Sprint("dt=", dt), func(t *testing.T) {
			sim, w := newSim(t, 50, 1)
			before := w.Hash()
			called := false
			err := sim.Step(dt, func(workload.View, *deferral.Recorder) error { called = true; return nil })
			if !errors.Is(err, workload.ErrInvalidDt) {
				t.Errorf("Step(%v) = %v, want ErrInvalidDt", dt, err)
			}
			err = sim.StepParallel(dt, 2, func(workload.View, int, []ecs.Entity, *deferral.Recorder) error { called = true; return nil })
			if !errors.Is(err, workload.ErrInvalidDt) {
				t.Errorf("StepParallel(%v) = %v, want ErrInvalidDt", dt, err)
			}
			if called {
				t.Error("decisions ran for a rejected dt")
			}
			if got := w.Hash(); got != before {
				t.Errorf("world hash changed: %x -> %x", before, got)
			}
			if sim.Frame() != 0 || w.Len() != 50 {
				t.Errorf("after rejected dt: Frame %d, Len %d; want 0, 50", sim.Frame(), w.Len())
			}
		})
	}
}

func TestStepParallelRejectsProducers(t *testing.T) {
	for _, p := range []int{0, -1} {
		sim, w := newSim(t, 20, 1)
		before := w.Hash()
		err := sim.StepParallel(0.1, p, workload.Replace(1, 1))
		if !errors.Is(err, workload.ErrInvalidProducers) {
			t.Errorf("StepParallel(producers=%d) = %v, want ErrInvalidProducers", p, err)
		}
		if w.Hash() != before || sim.Frame() != 0 {
			t.Errorf("producers=%d: world or frame changed", p)
		}
	}
}

// TestStepPhaseOrder checks movement → lifetime → cleanup → decisions → commit, and that a
// created particle first moves (and ages) in the next frame.
func TestStepPhaseOrder(t *testing.T) {
	w := ecs.NewWorld()
	a := mustCreate(t, w, workload.Particle(workload.Vec2{}, workload.Vec2{X: 1}, 10))
	doomed := mustCreate(t, w, workload.Particle(workload.Vec2{X: 50}, workload.Vec2{X: 1}, 0.75))
	still := mustCreate(t, w, workload.Position.Value(workload.Vec2{X: 7})) // no velocity: never moves
	sim := workload.NewSim(newSliceStrategy(w))

	var placeholder ecs.Entity
	err := sim.Step(1, func(v workload.View, rec *deferral.Recorder) error {
		// Movement and lifetime ran before decisions; cleanup removed the expired one.
		if p, ok := v.Position(a); !ok || p != (workload.Vec2{X: 1}) {
			t.Errorf("decisions see Position(a) = %v, %v; want {1 0}", p, ok)
		}
		if l, ok := v.Lifetime(a); !ok || l.Remaining != 9 {
			t.Errorf("decisions see Lifetime(a) = %v, %v; want 9", l, ok)
		}
		if v.Alive(doomed) {
			t.Error("expired particle still alive during decisions")
		}
		if got, want := slices.Collect(v.Survivors()), []ecs.Entity{a, still}; !slices.Equal(got, want) {
			t.Errorf("Survivors = %v, want %v", got, want)
		}
		if v.Len() != 2 || v.Frame() != 0 {
			t.Errorf("Len %d Frame %d, want 2, 0", v.Len(), v.Frame())
		}
		placeholder = rec.Create(workload.Particle(workload.Vec2{X: 100}, workload.Vec2{X: 1}, 5))
		return nil
	})
	if err != nil {
		t.Fatalf("Step: %v", err)
	}
	if sim.Expired() != 1 || sim.Frame() != 1 {
		t.Errorf("Expired %d Frame %d, want 1, 1", sim.Expired(), sim.Frame())
	}
	b, err := sim.Strategy().Resolve(placeholder)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if got := pos(t, w, b); got != (workload.Vec2{X: 100}) {
		t.Errorf("new particle moved in its creation frame: %v", got)
	}
	if l, _ := workload.Lifetime.Get(w, b); l.Remaining != 5 {
		t.Errorf("new particle aged in its creation frame: %v", l)
	}
	if err := sim.Step(1, nil); err != nil {
		t.Fatalf("second Step: %v", err)
	}
	if got := pos(t, w, b); got != (workload.Vec2{X: 101}) {
		t.Errorf("new particle after next frame at %v, want {101 0}", got)
	}
	if got := pos(t, w, a); got != (workload.Vec2{X: 2}) {
		t.Errorf("a after two frames at %v, want {2 0}", got)
	}
	if got := pos(t, w, still); got != (workload.Vec2{X: 7}) {
		t.Errorf("entity without Velocity moved to %v", got)
	}
	if sim.Expired() != 0 || sim.Frame() != 2 {
		t.Errorf("Expired %d Frame %d, want 0, 2", sim.Expired(), sim.Frame())
	}
}

// TestDecisionsReentryRefused checks that decisions can neither reshape the world nor drive
// the Sim, serially and in parallel, and that the world thaws afterwards.
func TestDecisionsReentryRefused(t *testing.T) {
	check := func(t *testing.T, sim *workload.Sim, w *ecs.World, e ecs.Entity) {
		if err := sim.Step(1, nil); !errors.Is(err, deferral.ErrReentry) {
			t.Errorf("Step inside decisions = %v, want ErrReentry", err)
		}
		if err := sim.StepParallel(1, 2, nil); !errors.Is(err, deferral.ErrReentry) {
			t.Errorf("StepParallel inside decisions = %v, want ErrReentry", err)
		}
		if err := sim.Commit(); !errors.Is(err, deferral.ErrReentry) {
			t.Errorf("Commit inside decisions = %v, want ErrReentry", err)
		}
		if n, err := sim.Discard(); !errors.Is(err, deferral.ErrReentry) || n != 0 {
			t.Errorf("Discard inside decisions = %d, %v; want 0, ErrReentry", n, err)
		}
		if _, err := sim.TakeReport(); !errors.Is(err, deferral.ErrReentry) {
			t.Errorf("TakeReport inside decisions = %v, want ErrReentry", err)
		}
		structural := map[string]error{}
		_, structural["Create"] = w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1))
		structural["Destroy"] = w.Destroy(e)
		structural["Remove"] = workload.Velocity.Remove(w, e)
		structural["Add"] = w.Add(e, tag.Value(tagValue{1}))
		for name, err := range structural {
			if !errors.Is(err, ecs.ErrIterating) {
				t.Errorf("World.%s inside decisions = %v, want ErrIterating", name, err)
			}
		}
	}
	t.Run("serial", func(t *testing.T) {
		sim, w := newSim(t, 10, 3)
		before := len(slices.Collect(w.Entities()))
		err := sim.Step(0.01, func(v workload.View, rec *deferral.Recorder) error {
			for e := range v.Survivors() {
				check(t, sim, w, e)
				break
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Step: %v", err)
		}
		if w.Len() != before {
			t.Errorf("world changed size during frozen decisions: %d -> %d", before, w.Len())
		}
		if _, err := w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1)); err != nil {
			t.Errorf("Create after the frame (world should be thawed): %v", err)
		}
	})
	t.Run("parallel", func(t *testing.T) {
		sim, w := newSim(t, 10, 3)
		err := sim.StepParallel(0.01, 3, func(v workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
			if chunk == 1 && len(part) > 0 {
				check(t, sim, w, part[0])
			}
			return nil
		})
		if err != nil {
			t.Fatalf("StepParallel: %v", err)
		}
		if _, err := w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1)); err != nil {
			t.Errorf("Create after the frame (world should be thawed): %v", err)
		}
	})
}

func TestStepWhileQueryIterates(t *testing.T) {
	sim, w := newSim(t, 10, 1)
	before := w.Hash()
	for range w.Entities() {
		if err := sim.Step(1, nil); !errors.Is(err, ecs.ErrIterating) {
			t.Errorf("Step inside a query = %v, want ErrIterating", err)
		}
		break
	}
	if w.Hash() != before || sim.Frame() != 0 {
		t.Error("Step inside a query changed the world or the frame count")
	}
}

// stageThenFail stages one create and fails.
func stageThenFail(v workload.View, rec *deferral.Recorder) error {
	rec.Create(workload.Particle(workload.Vec2{X: 1e6}, workload.Vec2{}, 100))
	return errBoom
}

func TestDecisionErrorLeavesPending(t *testing.T) {
	for _, resolve := range []string{"commit", "discard"} {
		t.Run("then="+resolve, func(t *testing.T) {
			sim, w := newSim(t, 10, 5)
			n0 := w.Len()
			err := sim.Step(0.1, stageThenFail)
			if !errors.Is(err, errBoom) {
				t.Fatalf("Step = %v, want the decision error", err)
			}
			if sim.Frame() != 1 {
				t.Errorf("Frame = %d after a failed decision, want 1 (the simulation advanced)", sim.Frame())
			}
			if p := sim.Strategy().Pending(); p != 1 {
				t.Fatalf("Pending = %d, want 1", p)
			}
			if w.Len() != n0 {
				t.Errorf("staged create applied without a commit")
			}
			if _, err := sim.TakeReport(); !errors.Is(err, deferral.ErrPending) {
				t.Errorf("TakeReport with pending = %v, want ErrPending", err)
			}
			before := w.Hash()
			if err := sim.Step(0.1, nil); !errors.Is(err, deferral.ErrPending) {
				t.Errorf("next Step = %v, want ErrPending", err)
			}
			if err := sim.StepParallel(0.1, 2, nil); !errors.Is(err, deferral.ErrPending) {
				t.Errorf("next StepParallel = %v, want ErrPending", err)
			}
			if w.Hash() != before || sim.Frame() != 1 {
				t.Error("a refused Step changed the world or the frame count")
			}
			switch resolve {
			case "commit":
				if err := sim.Commit(); err != nil {
					t.Fatalf("Commit: %v", err)
				}
				if w.Len() != n0+1 {
					t.Errorf("Len after retry = %d, want %d", w.Len(), n0+1)
				}
			case "discard":
				if n, err := sim.Discard(); n != 1 || err != nil {
					t.Fatalf("Discard = %d, %v; want 1, nil", n, err)
				}
				if w.Len() != n0 {
					t.Errorf("Len after discard = %d, want %d", w.Len(), n0)
				}
			}
			if sim.Strategy().Pending() != 0 {
				t.Errorf("still pending after %s", resolve)
			}
			if err := sim.Step(0.1, nil); err != nil {
				t.Errorf("Step after %s: %v", resolve, err)
			}
		})
	}
}

func TestCommitErrorThenRetry(t *testing.T) {
	w := ecs.NewWorld()
	bare := mustCreate(t, w, workload.Position.Value(workload.Vec2{}))
	sim := workload.NewSim(newSliceStrategy(w))
	err := sim.Step(1, func(v workload.View, rec *deferral.Recorder) error {
		rec.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 3)) // applies
		rec.Set(bare, workload.Velocity.Value(workload.Vec2{X: 2}))        // fails: bare lacks Velocity
		rec.Destroy(bare)                                                  // stays pending
		return nil
	})
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("Step = %v, want a *CommandError wrapping ErrMissingComponent", err)
	}
	if ce.Pos.Index != 1 || ce.Verb != deferral.VerbSet {
		t.Errorf("CommandError names %+v %v, want index 1, set", ce.Pos, ce.Verb)
	}
	if p := sim.Strategy().Pending(); p != 2 || w.Len() != 2 {
		t.Fatalf("Pending %d Len %d, want 2, 2 (prefix applied, suffix pending)", p, w.Len())
	}
	if err := sim.Step(1, nil); !errors.Is(err, deferral.ErrPending) {
		t.Errorf("Step after a failed commit = %v, want ErrPending", err)
	}
	// Fix the cause outside the frame, then retry: only the suffix applies.
	if err := workload.Velocity.Add(w, bare, workload.Vec2{}); err != nil {
		t.Fatal(err)
	}
	if err := sim.Commit(); err != nil {
		t.Fatalf("retry Commit: %v", err)
	}
	if w.Alive(bare) || w.Len() != 1 {
		t.Errorf("after retry: bare alive %v, Len %d; want false, 1", w.Alive(bare), w.Len())
	}
	r, err := sim.TakeReport()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Created) != 1 || r.Destroyed != 1 {
		t.Errorf("report %+v: want 1 created (not replayed), 1 destroyed", r)
	}
}

func TestStepParallelChunks(t *testing.T) {
	for _, tc := range []struct{ n, producers int }{{10, 1}, {10, 3}, {10, 10}, {3, 8}, {0, 4}, {1000, 7}} {
		t.Run(fmt.Sprintf("n=%d/producers=%d", tc.n, tc.producers), func(t *testing.T) {
			w := ecs.NewWorld()
			var all []ecs.Entity
			for i := range tc.n {
				all = append(all, mustCreate(t, w, workload.Particle(workload.Vec2{X: float64(i)}, workload.Vec2{}, 100)))
			}
			sim := workload.NewSim(newSliceStrategy(w))
			parts := make([][]ecs.Entity, tc.producers)
			recs := make([]int, tc.producers)
			calls := make([]int, tc.producers)
			for frame := range 3 {
				err := sim.StepParallel(1, tc.producers, func(v workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
					parts[chunk] = slices.Clone(part)
					recs[chunk] = rec.Index()
					calls[chunk]++
					if v.Len() != tc.n {
						t.Errorf("View.Len = %d, want %d", v.Len(), tc.n)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if got := slices.Concat(parts...); !slices.Equal(got, all) {
					t.Fatalf("frame %d: chunks concatenated = %v, want survivors in creation order %v", frame, got, all)
				}
				for i, p := range parts {
					if lo, hi := len(p), (tc.n+tc.producers-1)/tc.producers; lo > hi || lo < tc.n/tc.producers {
						t.Errorf("chunk %d has %d entities, want %d…%d", i, lo, tc.n/tc.producers, hi)
					}
					if recs[i] != i || calls[i] != frame+1 {
						t.Errorf("chunk %d: recorder %d, calls %d; want %d, %d", i, recs[i], calls[i], i, frame+1)
					}
				}
			}
			s := sim.Strategy().(*sliceStrategy)
			if len(s.sinks) != tc.producers {
				t.Errorf("strategy minted %d recorders over 3 frames, want %d (minted once, reused)", len(s.sinks), tc.producers)
			}
		})
	}
}

func TestStepParallelErrorsJoined(t *testing.T) {
	sim, _ := newSim(t, 40, 2)
	errOdd := errors.New("odd chunk")
	err := sim.StepParallel(0.1, 4, func(v workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		rec.Destroy(part[0])
		if chunk%2 == 1 {
			return fmt.Errorf("chunk says %d: %w", chunk, errOdd)
		}
		return nil
	})
	if !errors.Is(err, errOdd) {
		t.Fatalf("StepParallel = %v, want the chunks' errors", err)
	}
	if p := sim.Strategy().Pending(); p != 4 {
		t.Errorf("Pending = %d, want 4 (every chunk's staging kept)", p)
	}
	if n, err := sim.Discard(); n != 4 || err != nil {
		t.Errorf("Discard = %d, %v; want 4, nil", n, err)
	}
}

func TestStepParallelPanicRethrown(t *testing.T) {
	sim, w := newSim(t, 40, 2)
	func() {
		defer func() {
			if r := recover(); r != "chunk 2 panics" {
				t.Errorf("recovered %v, want the callback's panic value", r)
			}
		}()
		_ = sim.StepParallel(0.1, 4, func(v workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
			if chunk == 2 {
				panic("chunk 2 panics")
			}
			return nil
		})
		t.Error("StepParallel returned instead of panicking")
	}()
	if _, err := w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1)); err != nil {
		t.Errorf("world still frozen after a panicking frame: %v", err)
	}
	if err := sim.Step(0.1, nil); err != nil {
		t.Errorf("Step after a panicking frame: %v", err)
	}
}

func TestStepPanicThaws(t *testing.T) {
	sim, w := newSim(t, 10, 2)
	func() {
		defer func() {
			if r := recover(); r != "decide panics" {
				t.Errorf("recovered %v, want the callback's panic value", r)
			}
		}()
		_ = sim.Step(0.1, func(v workload.View, rec *deferral.Recorder) error {
			rec.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1))
			panic("decide panics")
		})
	}()
	if _, err := w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1)); err != nil {
		t.Errorf("world still frozen after a panicking decision: %v", err)
	}
	if sim.Frame() != 1 || sim.Strategy().Pending() != 1 {
		t.Errorf("Frame %d Pending %d, want 1, 1 (advanced, staging kept)", sim.Frame(), sim.Strategy().Pending())
	}
	if err := sim.Commit(); err != nil {
		t.Errorf("Commit after a panicking decision: %v", err)
	}
	if sim.World() != w {
		t.Error("World() is not the strategy's world")
	}
}

func TestReplaceReproducible(t *testing.T) {
	const frames, n = 30, 500
	run := func(popSeed, seed uint64, producers int) (uint64, deferral.Report) {
		sim, w := newSim(t, n, popSeed)
		var total deferral.Report
		for range frames {
			var err error
			if producers == 0 {
				err = sim.Step(0.05, workload.ReplaceSerial(seed, 0.2))
			} else {
				err = sim.StepParallel(0.05, producers, workload.Replace(seed, 0.2))
			}
			if err != nil {
				t.Fatalf("frame %d: %v", sim.Frame(), err)
			}
			r, err := sim.TakeReport()
			if err != nil {
				t.Fatal(err)
			}
			total.Created = append(total.Created, r.Created...)
			total.Destroyed += r.Destroyed
			total.IgnoredCreates += r.IgnoredCreates
			total.Skipped += r.Skipped
		}
		return w.Hash(), total
	}
	h1, r1 := run(1, 9, 0)
	h2, _ := run(1, 9, 0)
	if h1 != h2 {
		t.Fatalf("same seeds, different world hashes: %x vs %x", h1, h2)
	}
	if r1.Destroyed == 0 || len(r1.Created) == 0 {
		t.Errorf("Replace did nothing: %+v", r1)
	}
	if r1.IgnoredCreates == 0 || r1.Skipped == 0 {
		t.Errorf("no culled creates (%d) or skipped placeholder adds (%d) in %d frames", r1.IgnoredCreates, r1.Skipped, frames)
	}
	if h, _ := run(1, 10, 0); h == h1 {
		t.Error("a different decision seed gave the same world")
	}
	// A strategy that commits chunk by chunk reaches the serial world for any producer count.
	for _, p := range []int{1, 2, 3, 8} {
		if h, _ := run(1, 9, p); h != h1 {
			t.Errorf("producers=%d: world hash %x, want the serial %x", p, h, h1)
		}
	}
}

func TestReplaceRates(t *testing.T) {
	for _, tc := range []struct {
		rate     float64
		all, any bool
	}{{0, false, false}, {1, true, true}, {0.5, false, true}} {
		sim, w := newSim(t, 200, 4)
		old := slices.Collect(w.Entities())
		if err := sim.Step(0.01, workload.ReplaceSerial(1, tc.rate)); err != nil {
			t.Fatal(err)
		}
		gone := 0
		for _, e := range old {
			if !w.Alive(e) {
				gone++
			}
		}
		if (gone == len(old)) != tc.all || (gone > 0) != tc.any {
			t.Errorf("rate %v: %d of %d replaced", tc.rate, gone, len(old))
		}
	}
	for _, bad := range []float64{-0.1, 1.1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Replace(rate=%v) did not panic", bad)
				}
			}()
			workload.Replace(1, bad)
		}()
	}
}

func TestViewReadsDoNotAllocate(t *testing.T) {
	sim, _ := newSim(t, 100, 4)
	err := sim.Step(0.01, func(v workload.View, _ *deferral.Recorder) error {
		var e ecs.Entity
		for e = range v.Survivors() {
			break
		}
		allocs := testing.AllocsPerRun(100, func() {
			_, _ = v.Position(e)
			_, _ = v.Velocity(e)
			_, _ = v.Lifetime(e)
			_ = v.Alive(e)
			for range v.Survivors() {
			}
		})
		if allocs != 0 {
			t.Errorf("View reads allocate: %v allocs/run", allocs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPopulate(t *testing.T) {
	w1, w2, w3 := ecs.NewWorld(), ecs.NewWorld(), ecs.NewWorld()
	for _, c := range []struct {
		w    *ecs.World
		seed uint64
	}{{w1, 7}, {w2, 7}, {w3, 8}} {
		if err := workload.Populate(c.w, 300, c.seed); err != nil {
			t.Fatal(err)
		}
	}
	if w1.Hash() != w2.Hash() || w1.Hash() == w3.Hash() {
		t.Errorf("hashes: seed 7 %x, seed 7 %x, seed 8 %x; want equal, equal, different", w1.Hash(), w2.Hash(), w3.Hash())
	}
	if w1.Len() != 300 {
		t.Errorf("Len = %d, want 300", w1.Len())
	}
	for e := range w1.Entities() {
		l, err := workload.Lifetime.Get(w1, e)
		if err != nil || !(l.Remaining >= 1 && l.Remaining < 10) || !workload.Velocity.Has(w1, e) {
			t.Fatalf("particle %v: lifetime %v (%v), velocity %v", e, l, err, workload.Velocity.Has(w1, e))
		}
	}
	if err := workload.Populate(w1, -1, 0); err == nil {
		t.Error("Populate(n=-1) succeeded")
	}
	for range w3.Entities() {
		if err := workload.Populate(w3, 1, 0); !errors.Is(err, ecs.ErrIterating) {
			t.Errorf("Populate inside a query = %v, want ErrIterating", err)
		}
		break
	}
}

func TestLifetimeValidator(t *testing.T) {
	w := ecs.NewWorld()
	for _, life := range []float64{0, -1, math.NaN()} {
		if _, err := w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, life)); !errors.Is(err, ecs.ErrInvalidValue) {
			t.Errorf("Create with lifetime %v = %v, want ErrInvalidValue", life, err)
		}
	}
	if w.Len() != 0 {
		t.Errorf("invalid creates left %d entities", w.Len())
	}
}

func TestViewZeroValue(t *testing.T) {
	var v workload.View
	if v.Alive(ecs.Entity{}) || v.Len() != 0 {
		t.Error("zero View reports entities")
	}
	if _, ok := v.Position(ecs.Entity{}); ok {
		t.Error("zero View has a position")
	}
	for range v.Survivors() {
		t.Error("zero View yields survivors")
	}
}

func TestRenderQueue(t *testing.T) {
	a := workload.DrawCmd{Mesh: 1, Material: 2, X: 3, Y: 4}
	b := workload.DrawCmd{Mesh: 5, Material: 6, X: 7, Y: 8}
	var q1, q2, q3 workload.RenderQueue
	q1.Submit(a)
	q1.Submit(b)
	for _, c := range []workload.DrawCmd{a, b} {
		if err := workload.ApplyDraw(&q2, deferral.Pos{}, &c); err != nil {
			t.Fatal(err)
		}
	}
	q3.Submit(b)
	q3.Submit(a)
	if !slices.Equal(q1.Draws, q2.Draws) || q1.Hash() != q2.Hash() {
		t.Errorf("Submit and ApplyDraw disagree: %v vs %v", q1.Draws, q2.Draws)
	}
	if q1.Hash() == q3.Hash() {
		t.Error("order does not change the hash")
	}
	var empty workload.RenderQueue
	q1.Reset()
	if len(q1.Draws) != 0 || q1.Hash() != empty.Hash() {
		t.Error("Reset did not empty the queue")
	}
}
