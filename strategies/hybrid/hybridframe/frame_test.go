package hybridframe_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/hybrid/hybridframe"
	"github.com/deferbench/deferbench/workload"
)

// positioner is what the test's decision rule reads: workload.View and testView both have it.
type positioner interface {
	Position(e ecs.Entity) (workload.Vec2, bool)
	Frame() int
}

// testView is the view the frame's decisions see in these tests.
type testView struct {
	w     *ecs.World
	frame int
}

func (v testView) Frame() int { return v.frame }

func (v testView) Position(e ecs.Entity) (workload.Vec2, bool) {
	if p := workload.Position.Ptr(v.w, e); p != nil {
		return *p, true
	}
	return workload.Vec2{}, false
}

func newTestView(w *ecs.World, _ []ecs.Entity, frame int) testView {
	return testView{w: w, frame: frame}
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// replaceRule destroys each survivor with probability rate and replaces it: a function of the
// seed, the frame and the survivor's position only. Some creates carry an invalid lifetime (so
// the commit culls them and skips the Add on their placeholder).
func replaceRule[V positioner](seed uint64, rate float64) func(v V, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
	return func(v V, _ int, part []ecs.Entity, rec *deferral.Recorder) error {
		for _, e := range part {
			p, ok := v.Position(e)
			if !ok {
				continue
			}
			h := mix(seed ^ mix(uint64(v.Frame())) ^ mix(math.Float64bits(p.X)) ^ math.Float64bits(p.Y))
			if unit(h) >= rate {
				continue
			}
			rec.Destroy(e)
			np := workload.Vec2{X: p.X + unit(mix(h+1)) - 0.5, Y: p.Y + unit(mix(h+2)) - 0.5}
			nv := workload.Vec2{X: unit(mix(h+3))*4 - 2, Y: unit(mix(h+4))*4 - 2}
			life := 0.5 + unit(mix(h+5))*3
			if h&31 == 0 {
				life = -1
			}
			ph := rec.Create(workload.Position.Value(np).With(workload.Lifetime.Value(workload.Life{Remaining: life})))
			rec.Add(ph, workload.Velocity.Value(nv))
		}
		return nil
	}
}

const (
	frameSeed     = 11
	frameEntities = 3000
	frameRate     = 0.05
	frameDt       = 0.25
	frameCount    = 8
)

func populated(t testing.TB) *ecs.World {
	t.Helper()
	w := ecs.NewWorld()
	if err := workload.Populate(w, frameEntities, frameSeed); err != nil {
		t.Fatal(err)
	}
	return w
}

// runFrames runs the particle graph and returns the world's and the render queue's hashes.
func runFrames(t testing.TB, producers int, jitter uint64) (world, render uint64) {
	t.Helper()
	w := populated(t)
	rule := replaceRule[testView](frameSeed, frameRate)
	decide := rule
	if jitter != 0 {
		decide = func(v testView, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
			for range mix(jitter+uint64(chunk)+uint64(v.Frame())) % 4 {
				runtime.Gosched()
			}
			return rule(v, chunk, part, rec)
		}
	}
	f, err := hybridframe.New(hybrid.NewECS(w), producers, newTestView, decide)
	if err != nil {
		t.Fatal(err)
	}
	for i := range frameCount {
		if err := f.Step(frameDt); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	return w.Hash(), f.Render().Hash()
}

// referenceHash runs the same frames through workload.Sim with the cmdbuffer strategy.
func referenceHash(t testing.TB) uint64 {
	t.Helper()
	w := populated(t)
	sim := workload.NewSim(cmdbuffer.NewECS(w))
	decide := replaceRule[workload.View](frameSeed, frameRate)
	for i := range frameCount {
		if err := sim.StepParallel(frameDt, 4, decide); err != nil {
			t.Fatalf("reference frame %d: %v", i, err)
		}
	}
	return w.Hash()
}

// TestParticleFrameDeterministic: the world after N frames of the particle graph is the same
// for GOMAXPROCS 1, 2 and 4, 20 repetitions each with injected scheduling jitter, any producer
// count, and equal to workload.Sim over cmdbuffer.
func TestParticleFrameDeterministic(t *testing.T) {
	want := referenceHash(t)
	wantRender := uint64(0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for rep := range 20 {
			producers := []int{4, 1, 3, 8}[rep%4]
			got, render := runFrames(t, producers, uint64(rep))
			if wantRender == 0 {
				wantRender = render
			}
			if got != want || render != wantRender {
				t.Fatalf("GOMAXPROCS=%d rep %d producers %d: world %#x render %#x, want %#x %#x",
					procs, rep, producers, got, render, want, wantRender)
			}
		}
	}
}

// TestParticleFrameGraph: the derived edges make the decide nodes independent of each other
// and order them between survivors and the flush.
func TestParticleFrameGraph(t *testing.T) {
	f, err := hybridframe.New(hybrid.NewECS(ecs.NewWorld()), 3, newTestView, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.Graph().Edges() {
		got = append(got, e.From.Name()+"→"+e.To.Name())
	}
	mustHave := []string{
		"movement→lifetime", "lifetime→cleanup", "cleanup→survivors",
		"survivors→decide[0]", "survivors→decide[1]", "survivors→decide[2]",
		"decide[0]→thaw", "decide[2]→thaw", "decide[0]→flush(hybrid)", "decide[1]→flush(hybrid)",
		"thaw→flush(hybrid)", "flush(hybrid)→render",
	}
	for _, e := range mustHave {
		if !slices.Contains(got, e) {
			t.Errorf("missing edge %s in %v", e, got)
		}
	}
	for _, e := range got {
		if strings.HasPrefix(e, "decide[") && strings.Contains(e, "→decide[") {
			t.Errorf("decide nodes are ordered: %s", e)
		}
	}
	if _, err := hybridframe.New(hybrid.NewECS(ecs.NewWorld()), 0, newTestView, nil); !errors.Is(err, workload.ErrInvalidProducers) {
		t.Fatalf("producers 0: %v, want ErrInvalidProducers", err)
	}
}

// TestParticleFrameDecisionsOverlap: two decide nodes of one frame run at the same time.
func TestParticleFrameDecisionsOverlap(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	decide := func(v testView, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		arrived.Done()
		return wait(all, "the other decide node reaching the barrier")
	}
	f, err := hybridframe.New(hybrid.NewECS(populated(t)), 2, newTestView, decide)
	if err != nil {
		t.Fatal(err)
	}
	f.Graph().SetWorkers(2)
	if err := f.Step(frameDt); err != nil {
		t.Fatal(err)
	}
}

func TestParticleFrameRejectsDt(t *testing.T) {
	w := populated(t)
	f, err := hybridframe.New(hybrid.NewECS(w), 2, newTestView, replaceRule[testView](1, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	before := w.Hash()
	for _, dt := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1} {
		if err := f.Step(dt); !errors.Is(err, workload.ErrInvalidDt) {
			t.Errorf("Step(%v) = %v, want ErrInvalidDt", dt, err)
		}
	}
	if w.Hash() != before || f.Frame() != 0 {
		t.Fatal("a rejected dt changed the world")
	}
}

// TestParticleFrameReentry: decisions can read, not mutate, commit or start a frame.
func TestParticleFrameReentry(t *testing.T) {
	w := populated(t)
	s := hybrid.NewECS(w)
	var f *hybridframe.Frame[testView]
	var mu sync.Mutex
	var problems []string
	check := func(what string, err, want error) {
		if !errors.Is(err, want) {
			mu.Lock()
			problems = append(problems, fmt.Sprintf("%s = %v, want %v", what, err, want))
			mu.Unlock()
		}
	}
	decide := func(v testView, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		check("Step", f.Step(frameDt), deferral.ErrReentry)
		check("Commit", s.Commit(), deferral.ErrReentry)
		_, err := f.Discard()
		check("Discard", err, deferral.ErrReentry)
		_, err = s.TakeReport()
		check("TakeReport", err, deferral.ErrReentry)
		if len(part) > 0 {
			check("World.Destroy", w.Destroy(part[0]), ecs.ErrIterating)
		}
		_, err = w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1))
		check("World.Create", err, ecs.ErrIterating)
		return nil
	}
	var err error
	f, err = hybridframe.New(s, 2, newTestView, decide)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Step(frameDt); err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if _, err := w.Create(workload.Particle(workload.Vec2{}, workload.Vec2{}, 1)); err != nil {
		t.Fatalf("Create after the frame: %v", err)
	}
}

// TestParticleFrameDecisionError: a failing decide node fails the frame; the simulation
// advanced, the other nodes' commands stay pending, the world is thawed, the next frame is
// refused until the caller commits or discards.
func TestParticleFrameDecisionError(t *testing.T) {
	w := populated(t)
	boom := errors.New("boom")
	rule := replaceRule[testView](frameSeed, 0.5)
	failing := true
	decide := func(v testView, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		if err := rule(v, chunk, part, rec); err != nil {
			return err
		}
		if chunk == 1 && failing {
			return boom
		}
		return nil
	}
	f, err := hybridframe.New(hybrid.NewECS(w), 3, newTestView, decide)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Step(frameDt)
	var ne *hybrid.NodeError
	if !errors.Is(err, boom) || !errors.As(err, &ne) || ne.Node != "decide[1]" {
		t.Fatalf("Step = %v, want boom from decide[1]", err)
	}
	if f.Frame() != 1 {
		t.Fatalf("frame = %d after a failed decision, want 1", f.Frame())
	}
	pending := f.Strategy().Pending()
	if pending == 0 {
		t.Fatal("nothing pending after a failed decision")
	}
	if w.Iterating() {
		t.Fatal("world still frozen after the failed frame")
	}
	if err := f.Step(frameDt); !errors.Is(err, deferral.ErrPending) {
		t.Fatalf("next Step = %v, want ErrPending", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	failing = false
	if err := f.Step(frameDt); err != nil {
		t.Fatalf("Step after commit: %v", err)
	}
	if f.Frame() != 2 {
		t.Fatalf("frame = %d, want 2", f.Frame())
	}
}

// TestECSInUserGraph: the ECS strategy as a graph buffer: appenders' recorders commit in node
// order, the derived flush resolves placeholders, a reader after the flush sees the result.
func TestECSInUserGraph(t *testing.T) {
	w := ecs.NewWorld()
	s := hybrid.NewECS(w)
	dyn := s.NewRecorder() // minted before Compile: commits before the graph's recorders
	g := hybrid.NewGraph()
	g.SetWorkers(3)
	var created []workload.Vec2
	for i := range 3 {
		g.AddNode(fmt.Sprintf("spawn%d", i), func(_ context.Context, n *hybrid.Node) error {
			r := s.Recorder(n)
			for k := range 2 {
				r.Create(workload.Position.Value(workload.Vec2{X: float64(i), Y: float64(k)}))
			}
			return nil
		}, hybrid.Append(s))
	}
	g.AddFlushNode(s)
	g.AddNode("read", func(context.Context, *hybrid.Node) error {
		for e := range w.Query(ecs.MaskOf(workload.Position.ID())) {
			p, _ := workload.Position.Get(w, e)
			created = append(created, p)
		}
		return nil
	}, hybrid.Read(w))
	if err := g.Compile(); err != nil {
		t.Fatal(err)
	}
	dyn.Create(workload.Position.Value(workload.Vec2{X: -1}))
	if err := g.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []workload.Vec2{{X: -1}, {X: 0, Y: 0}, {X: 0, Y: 1}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 2, Y: 0}, {X: 2, Y: 1}}
	if !slices.Equal(created, want) {
		t.Fatalf("created %v, want %v", created, want)
	}
	r, err := s.TakeReport()
	if err != nil || len(r.Created) != 7 {
		t.Fatalf("report %+v, %v", r, err)
	}
}

// TestECSCommitErrors: Commit returns the contract's errors unwrapped, and refuses reentry
// from a closure command.
func TestECSCommitErrors(t *testing.T) {
	w := ecs.NewWorld()
	s := hybrid.NewECS(w)
	r := s.NewRecorder()
	e, _ := w.Create(workload.Position.Value(workload.Vec2{}))
	r.Set(e, workload.Velocity.Value(workload.Vec2{}))
	err := s.Commit()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("Commit = %v, want a CommandError", err)
	}
	if _, ok := err.(*deferral.CommandError); !ok {
		t.Fatalf("Commit error is %T, want *deferral.CommandError itself", err)
	}
	s.Discard()
	var inner error
	r.Do(func(*ecs.World) error { inner = s.Commit(); return nil })
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, deferral.ErrReentry) {
		t.Fatalf("Commit inside a commit = %v, want ErrReentry", inner)
	}
	r.Do(func(*ecs.World) error { panic("closure panic") })
	func() {
		defer func() {
			if v := recover(); v != "closure panic" {
				t.Fatalf("recovered %v, want the closure's panic", v)
			}
		}()
		_ = s.Commit()
		t.Fatal("Commit did not propagate the closure's panic")
	}()
}

// TestParticleFrameDecisionPanic: a panicking decision fails its node with a PanicError and
// the world is thawed.
func TestParticleFrameDecisionPanic(t *testing.T) {
	w := populated(t)
	decide := func(v testView, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		if chunk == 0 {
			panic("decision panic")
		}
		return nil
	}
	f, err := hybridframe.New(hybrid.NewECS(w), 2, newTestView, decide)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Step(frameDt)
	var pe *hybrid.PanicError
	if !errors.As(err, &pe) || pe.Value != "decision panic" {
		t.Fatalf("Step = %v, want the decision's panic as a PanicError", err)
	}
	if w.Iterating() {
		t.Fatal("world still frozen after a panicking decision")
	}
	if err := f.Step(frameDt); !errors.As(err, &pe) {
		t.Fatalf("second Step = %v, want the panic again (nothing was pending)", err)
	}
}

// watchdog bounds every wait in these tests, so a broken scheduler fails instead of hanging.
const watchdog = 10 * time.Second

// wait receives from ch or fails after the watchdog.
func wait(ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-time.After(watchdog):
		return fmt.Errorf("watchdog: %s did not happen within %v", what, watchdog)
	}
}

// A decision stages a closure that stages a follow-up create when the flush runs it (applied
// by the next commit). The frame's flush succeeded, so the next frame must start and flush
// the follow-up (a new frame is refused only after a failed commit).
func TestGraphFrameAfterClosureStagedFollowUp(t *testing.T) {
	w := ecs.NewWorld()
	s := hybrid.NewECS(w)
	f, err := hybridframe.New(s, 1,
		func(w *ecs.World, survivors []ecs.Entity, frame int) int { return frame },
		func(frame int, _ int, _ []ecs.Entity, rec *deferral.Recorder) error {
			if frame == 0 {
				rec.Do(func(*ecs.World) error {
					rec.Create(workload.Position.Value(workload.Vec2{X: 1}))
					return nil
				})
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Step(0.1); err != nil {
		t.Fatalf("frame 0: %v", err)
	}
	if err := f.Step(0.1); err != nil {
		t.Fatalf("frame 1 after a successful flush: %v", err)
	}
	if w.Len() != 1 {
		t.Errorf("world has %d entities after frame 1, want 1 (the follow-up)", w.Len())
	}
}

// BenchmarkGraphFrame measures one particle frame as a graph (movement … decide[P] … flush,
// render) with the test's replace rule, P = GOMAXPROCS producer nodes; ns/op per frame. The
// world is rebuilt (untimed) every 50 frames so the population stays near its size.
func BenchmarkGraphFrame(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run("strategy=hybrid/entities="+strconv.Itoa(n), func(b *testing.B) {
			procs := runtime.GOMAXPROCS(0)
			decide := replaceRule[testView](1, 0.05)
			build := func() *hybridframe.Frame[testView] {
				w := ecs.NewWorld()
				if err := workload.Populate(w, n, 1); err != nil {
					b.Fatal(err)
				}
				f, err := hybridframe.New(hybrid.NewECS(w), procs, newTestView, decide)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Step(1.0 / 60); err != nil { // warm-up: grows the buffers
					b.Fatal(err)
				}
				return f
			}
			f := build()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%50 == 0 {
					b.StopTimer()
					f = build()
					b.StartTimer()
				}
				if err := f.Step(1.0 / 60); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
