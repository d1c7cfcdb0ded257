package cmdbuffer_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/internal/spiketest"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

type vec struct{ X, Y float64 }

var pos = ecs.NewComponent[vec]("pos", nil)
var vel = ecs.NewComponent[vec]("vel", nil)

// TestKeyedOrder: commit order is (sort key, recorder, FIFO) whatever the staging order.
func TestKeyedOrder(t *testing.T) {
	w := ecs.NewWorld()
	s := cmdbuffer.NewECS(w)
	recs := []*deferral.Recorder{s.NewRecorder(), s.NewRecorder()}
	var wg sync.WaitGroup
	for i, r := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 3; k >= 0; k-- {
				r.SetSortKey(uint64(k))
				r.Create(pos.Value(vec{float64(k), float64(i)}))
				r.Do(func(w *ecs.World) error { return nil })
			}
		}()
	}
	wg.Wait()
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	rep, _ := s.TakeReport()
	var got []vec
	for _, e := range rep.Created {
		v, _ := pos.Get(w, e)
		got = append(got, v)
	}
	want := []vec{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {3, 1}}
	if len(got) != len(want) {
		t.Fatalf("created %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("created %v, want %v", got, want)
		}
	}
	if rep.Applied != 16 {
		t.Fatalf("applied %d, want 16", rep.Applied)
	}
}

// TestKeyedRetry: after a keyed commit fails, the retry applies only the suffix, and
// commands staged in between join it in key order.
func TestKeyedRetry(t *testing.T) {
	w := ecs.NewWorld()
	s := cmdbuffer.NewECS(w)
	r0, r1 := s.NewRecorder(), s.NewRecorder()
	e, _ := w.Create(pos.Value(vec{}))
	r1.SetSortKey(1)
	r1.Create(pos.Value(vec{1, 1}))
	r0.SetSortKey(2)
	r0.Set(e, vel.Value(vec{})) // fails: e has no vel
	r0.Create(pos.Value(vec{2, 0}))
	if err := s.Commit(); !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("commit = %v, want ErrMissingComponent", err)
	}
	r0.Add(e, vel.Value(vec{})) // no key change: key 2, after the failing set in FIFO
	r1.SetSortKey(0)
	r1.Create(pos.Value(vec{0, 1}))
	if err := s.Commit(); !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("retry = %v, want the same failure first", err)
	}
	if got := s.Pending(); got != 3 {
		t.Fatalf("pending = %d, want 3", got)
	}
}

func TestStageAllocs(t *testing.T) {
	w := ecs.NewWorld()
	s := cmdbuffer.NewECS(w)
	r := s.NewRecorder()
	e, _ := w.Create(pos.Value(vec{}))
	for range 1000 {
		r.Set(e, pos.Value(vec{1, 1}))
	}
	s.Discard()
	if a := testing.AllocsPerRun(500, func() { r.Set(e, pos.Value(vec{1, 1})) }); a != 0 {
		t.Fatalf("allocs per staged command = %v, want 0", a)
	}
}

// TestFastPathKeyedSwitch: the deferral.Recorder appends unkeyed records straight into the
// buffer's slice, and switches to the keyed path when a key is set (or a closure staged
// with a key made the recorder keyed); the commit order is the keyed order either way.
func TestFastPathKeyedSwitch(t *testing.T) {
	w := ecs.NewWorld()
	e, _ := w.Create(pos.Value(vec{}))
	s := cmdbuffer.NewECS(w)
	a, b := s.NewRecorder(), s.NewRecorder()
	var got []float64
	note := func(w *ecs.World) error { v, _ := pos.Get(w, e); got = append(got, v.X); return nil }
	a.Set(e, pos.Value(vec{X: 1})) // fast path, key 0
	a.Do(note)
	b.SetSortKey(1)
	b.Set(e, pos.Value(vec{X: 3})) // keyed
	b.Do(note)
	a.SetSortKey(2)
	a.Set(e, pos.Value(vec{X: 4})) // keyed from here on
	a.Do(note)
	a.SetSortKey(0)
	a.Set(e, pos.Value(vec{X: 2})) // key 0 again, recorder now keyed: slow path keeps its key
	a.Do(note)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	// key 0: a's 1 and 2 (FIFO); key 1: b's 3; key 2: a's 4.
	if want := []float64{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("values seen in commit order %v, want %v", got, want)
	}
	// After a drained commit the recorder is unkeyed again and the fast path is back.
	a.Set(e, pos.Value(vec{X: 5}))
	if s.Pending() != 1 {
		t.Fatalf("pending %d after one fast-path Set, want 1", s.Pending())
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, _ := pos.Get(w, e); v.X != 5 {
		t.Errorf("value after fast-path Set %v, want 5", v.X)
	}
}

// TestSpikeReleased: after a spike frame, ordinary frames release the buffers' capacity.
func TestSpikeReleased(t *testing.T) { spiketest.Released(t, cmdbuffer.Factory) }

// TestStreamAllocs: the record stream's typed paths — the generic Set and Add, Remove, and a
// commit of them — allocate nothing once the stream has grown to its working size.
func TestStreamAllocs(t *testing.T) {
	w := ecs.NewWorld()
	s := cmdbuffer.NewECS(w)
	r := s.NewRecorder()
	e, _ := w.Create(pos.Value(vec{}))
	round := func() {
		for i := range 64 {
			deferral.Set(r, e, pos, vec{float64(i), 1})
			deferral.Add(r, e, pos, vec{1, float64(i)})
			r.Remove(e, pos.ID())
			deferral.Add(r, e, pos, vec{2, 2})
			r.Set(e, pos.Value(vec{3, float64(i)})) // the Bundle API writes the same records
			r.Remove(e, pos.ID())
			r.Add(e, pos.Value(vec{2, 2}))
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TakeReport(); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		round()
	}
	if a := testing.AllocsPerRun(50, round); a != 0 {
		t.Fatalf("allocs per round of 448 staged and committed commands = %v, want 0", a)
	}
	if got, _ := pos.Get(w, e); got != (vec{2, 2}) {
		t.Fatalf("value after the rounds = %v, want {2 2}", got)
	}
}
