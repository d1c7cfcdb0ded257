package handrolled_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/internal/spiketest"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

type vec struct{ X, Y float64 }

var pos = ecs.NewComponent[vec]("handrolled.pos", nil)
var vel = ecs.NewComponent[vec]("handrolled.vel", nil)

type op struct{ rec, seq int }

func logApply(l *[]op, at deferral.Pos, c *op) error {
	if at.Recorder != c.rec || at.Index != c.seq {
		return errors.New("position mismatch")
	}
	*l = append(*l, *c)
	return nil
}

// TestHandoverOrder: recorders apply in hand-over order, whatever their numbers; recorders
// not handed over follow, in first-stage order.
func TestHandoverOrder(t *testing.T) {
	var log []op
	g := handrolled.New(&log, logApply)
	r0, r1, r2 := g.NewRecorder(), g.NewRecorder(), g.NewRecorder()
	r2.Stage(op{2, 0}) // first to stage, never handed over
	r0.Stage(op{0, 0})
	r1.Stage(op{1, 0})
	r1.Stage(op{1, 1})
	r1.Handover() // first hand-over
	r0.Stage(op{0, 1})
	r0.Handover()
	if g.Pending() != 5 {
		t.Fatalf("pending = %d, want 5", g.Pending())
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []op{{1, 0}, {1, 1}, {0, 0}, {0, 1}, {2, 0}}
	if !slices.Equal(log, want) {
		t.Fatalf("apply order = %v, want %v", log, want)
	}
}

// TestConcurrentProducersFIFO: producers on their own goroutines, handing over when done;
// FIFO within each holds, positions name each command.
func TestConcurrentProducersFIFO(t *testing.T) {
	var log []op
	g := handrolled.New(&log, logApply)
	const P, N = 8, 300
	for round := range 3 {
		log = log[:0]
		var wg sync.WaitGroup
		for p := range P {
			r := g.NewRecorder()
			wg.Go(func() {
				for i := range N {
					r.Stage(op{r.Index(), i})
				}
				if p%2 == 0 {
					r.Handover()
				}
			})
		}
		wg.Wait()
		if err := g.Commit(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(log) != P*N {
			t.Fatalf("round %d: applied %d, want %d", round, len(log), P*N)
		}
		next := map[int]int{}
		for _, o := range log {
			if o.seq != next[o.rec] {
				t.Fatalf("round %d: recorder %d got seq %d, want %d", round, o.rec, o.seq, next[o.rec])
			}
			next[o.rec]++
		}
	}
}

// TestFailureKeepsSuffix: the gathered slice keeps its unapplied suffix; retry applies only it.
func TestFailureKeepsSuffix(t *testing.T) {
	type st struct {
		log  []int
		fail bool
	}
	s := &st{fail: true}
	boom := errors.New("boom")
	g := handrolled.New(s, func(s *st, at deferral.Pos, c *int) error {
		if *c == 2 && s.fail {
			return boom
		}
		s.log = append(s.log, *c)
		return nil
	})
	r := g.NewRecorder()
	for i := 1; i <= 4; i++ {
		r.Stage(i)
	}
	if err := g.Commit(); !errors.Is(err, boom) {
		t.Fatalf("commit = %v, want boom", err)
	}
	if g.Pending() != 3 {
		t.Fatalf("pending = %d, want 3", g.Pending())
	}
	r.Stage(5) // staged after the failure: applies after the suffix
	s.fail = false
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.log, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("log = %v, want [1 2 3 4 5] (no replay)", s.log)
	}
}

// TestClosureErrorPosition: a failing closure is a CommandError naming its recorder and FIFO
// index, counted from the last drained commit across hand-overs.
func TestClosureErrorPosition(t *testing.T) {
	var n int
	g := handrolled.New(&n, func(n *int, _ deferral.Pos, c *int) error { *n += *c; return nil })
	r := g.NewRecorder()
	r.Stage(1)
	r.Handover()
	r.Stage(1)
	r.StageFunc(func(*int) error { return errors.New("nope") })
	err := g.Commit()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || ce.Pos != (deferral.Pos{Recorder: 0, Index: 2}) || ce.Verb != deferral.VerbFunc {
		t.Fatalf("commit = %v, want a CommandError at recorder 0 index 2", err)
	}
	if n != 2 {
		t.Fatalf("applied sum = %d, want 2", n)
	}
	if d, err := g.Discard(); d != 1 || err != nil {
		t.Fatalf("Discard = %d, %v; want 1, nil", d, err)
	}
	r.Stage(5)
	if err := g.Commit(); err != nil || n != 7 {
		t.Fatalf("after discard: commit %v, sum %d; want nil, 7", err, n)
	}
}

// TestStageAllocs: staging a typed command into a slice that has grown does not allocate.
func TestStageAllocs(t *testing.T) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	s := handrolled.NewECS(w)
	r := s.NewRecorder()
	for range 64 {
		r.Set(e, pos.Value(vec{1, 2}))
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		for range 64 {
			r.Set(e, pos.Value(vec{1, 2}))
		}
		s.Discard()
	})
	if allocs != 0 {
		t.Fatalf("allocs per 64 staged commands = %v, want 0", allocs)
	}
}

// TestECSHandover: the ECS hand-over point orders recorders by completion.
func TestECSHandover(t *testing.T) {
	w := ecs.NewWorld()
	s := handrolled.NewECS(w)
	r0, r1 := s.NewRecorder(), s.NewRecorder()
	p0 := r0.Create(pos.Value(vec{0, 0}))
	p1 := r1.Create(pos.Value(vec{1, 1}))
	s.Handover(r1)
	s.Handover(r0)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	rep, _ := s.TakeReport()
	e0, _ := s.Resolve(p0)
	e1, _ := s.Resolve(p1)
	if len(rep.Created) != 2 || rep.Created[0] != e1 || rep.Created[1] != e0 {
		t.Fatalf("created %v, want [%v %v] (hand-over order)", rep.Created, e1, e0)
	}
}

// TestSpikeReleased: after a spike frame, ordinary frames release the buffers' capacity.
func TestSpikeReleased(t *testing.T) { spiketest.Released(t, handrolled.Factory) }

// TestGenericNilClosure: a nil closure staged through the generic tier — StageFunc,
// StageFuncKeyed, or from inside a commit by another closure — never panics: the commit fails
// at it with a *deferral.CommandError wrapping deferral.ErrInvalidCommand, the commands before
// it stay applied, it and those after it stay pending (a retry fails at it again), and Discard
// drops them.
func TestGenericNilClosure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stage   func(r *handrolled.Recorder[[]op, op]) (at int, applied []op, pending int)
		commits int // drained commits before the failing one
	}{
		{"StageFunc", func(r *handrolled.Recorder[[]op, op]) (int, []op, int) {
			r.Stage(op{0, 0})
			r.StageFunc(nil)
			r.Stage(op{0, 2})
			return 1, []op{{0, 0}}, 2
		}, 0},
		{"StageFuncKeyed", func(r *handrolled.Recorder[[]op, op]) (int, []op, int) {
			r.Stage(op{0, 0})
			r.Handover()
			r.Stage(op{0, 1})
			r.StageFuncKeyed(5, nil)
			r.Stage(op{0, 3})
			return 2, []op{{0, 0}, {0, 1}}, 2
		}, 0},
		{"staged-during-commit", func(r *handrolled.Recorder[[]op, op]) (int, []op, int) {
			r.StageFunc(func(*[]op) error { r.StageFunc(nil); r.Handover(); return nil })
			r.Stage(op{0, 1})
			return 0, []op{{0, 1}}, 1
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log []op
			g := handrolled.New(&log, logApply)
			r := g.NewRecorder()
			at, applied, pending := tc.stage(r)
			for i := range tc.commits {
				if err := g.Commit(); err != nil {
					t.Fatalf("commit %d (the nil closure is staged during it): %v", i, err)
				}
			}
			for _, op := range []string{"commit", "retry"} {
				err := g.Commit()
				var ce *deferral.CommandError
				if !errors.As(err, &ce) || ce.Pos != (deferral.Pos{Recorder: 0, Index: at}) || ce.Verb != deferral.VerbFunc || !errors.Is(err, deferral.ErrInvalidCommand) {
					t.Fatalf("%s = %v, want a *deferral.CommandError (func) at recorder 0 index %d wrapping ErrInvalidCommand", op, err, at)
				}
				if !slices.Equal(log, applied) || g.Pending() != pending {
					t.Fatalf("after the %s: applied %v, pending %d; want %v, %d", op, log, g.Pending(), applied, pending)
				}
			}
			if n, err := g.Discard(); n != pending || err != nil {
				t.Fatalf("Discard = %d, %v; want %d, nil", n, err, pending)
			}
			r.Stage(op{0, 0})
			if err := g.Commit(); err != nil || g.Pending() != 0 {
				t.Fatalf("after discard: commit = %v, pending %d; want nil, 0", err, g.Pending())
			}
		})
	}
}

// TestClosurePanicKeepsPending: a closure that panics during Commit passes the panic to the
// caller and leaves itself and the commands after it pending, the ones before it applied; the
// gather stays usable: the retry applies the rest once, and Discard after a second panic drops
// what was pending.
func TestClosurePanicKeepsPending(t *testing.T) {
	var log []op
	g := handrolled.New(&log, logApply)
	r := g.NewRecorder()
	panicking := true
	stage := func(base int) {
		r.Stage(op{0, base})
		r.StageFunc(func(*[]op) error {
			if panicking {
				panic("closure panics on purpose")
			}
			return nil
		})
		r.Stage(op{0, base + 2})
	}
	commitPanics := func(what string) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Fatalf("%s: the closure's panic did not reach the caller", what)
			}
		}()
		g.Commit()
	}
	stage(0)
	commitPanics("commit")
	if !slices.Equal(log, []op{{0, 0}}) || g.Pending() != 2 {
		t.Fatalf("after the panic: applied %v, pending %d; want [{0 0}], 2", log, g.Pending())
	}
	panicking = false
	if err := g.Commit(); err != nil || !slices.Equal(log, []op{{0, 0}, {0, 2}}) || g.Pending() != 0 {
		t.Fatalf("retry: %v, applied %v, pending %d; want nil, [{0 0} {0 2}], 0", err, log, g.Pending())
	}
	panicking = true
	stage(0)
	commitPanics("second commit")
	if n, err := g.Discard(); n != 2 || err != nil {
		t.Fatalf("Discard after the panic = %d, %v; want 2, nil", n, err)
	}
	r.Stage(op{0, 0})
	if err := g.Commit(); err != nil || !slices.Equal(log, []op{{0, 0}, {0, 2}, {0, 0}, {0, 0}}) {
		t.Fatalf("after discard: %v, applied %v", err, log)
	}
}
