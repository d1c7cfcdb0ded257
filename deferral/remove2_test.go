package deferral_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// streamKeyedSink is a sink with a stream that keeps keyed commands too: whatever path a
// record takes, it lands where the test compares it.
type streamKeyedSink struct {
	s     *deferral.Stream
	keyed []deferral.Command
	keys  []uint64
}

func (b *streamKeyedSink) StageKeyed(k uint64, c deferral.Command) {
	b.keyed = append(b.keyed, c)
	b.keys = append(b.keys, k)
}
func (b *streamKeyedSink) StageFuncKeyed(uint64, func(*ecs.World) error) { panic("no closures") }
func (b *streamKeyedSink) Stream() *deferral.Stream                      { return b.s }

// fastSliceSink is a sink without a stream: the fast path's slice of commands, and the
// commands that go out of line.
type fastSliceSink struct {
	cmds  []deferral.Command
	keyed bool
	slow  []deferral.Command
}

func (f *fastSliceSink) StageKeyed(_ uint64, c deferral.Command)       { f.slow = append(f.slow, c) }
func (f *fastSliceSink) StageFuncKeyed(uint64, func(*ecs.World) error) { panic("no closures") }
func (f *fastSliceSink) Records() (*[]deferral.Command, *bool)         { return &f.cmds, &f.keyed }

// TestRemove2EveryPath: Remove2 after prefixes of every length (so the stream has room for 0,
// 1, 2 … records when it is called), on a plain, a held, a keyed and a closed recorder, and
// on a slice sink of every spare capacity, stages exactly what two Removes stage: the same
// stream words, length and capacity, keyed commands and keys, and dropped count.
func TestRemove2EveryPath(t *testing.T) {
	w := ecs.NewWorld()
	e, err := w.Create(ecs.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := c2U32.ID(), c2Tag.ID()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3000 {
		pre := rng.IntN(40)
		post := rng.IntN(4)
		mode := rng.IntN(5) // 0 plain, 1 held, 2 keyed, 3 closed, 4 hold toggled after
		dirty := rng.IntN(2) == 0
		seed := rng.Uint64()
		run := func(use2 bool) (*deferral.Stream, *streamKeyedSink, *deferral.Core, *deferral.Recorder) {
			var s deferral.Stream
			sink := &streamKeyedSink{s: &s}
			c := deferral.NewCore(w)
			r := c.NewRecorder(sink)
			if dirty {
				for range 8 {
					deferral.Set(r, ecs.NewPlaceholder(1, 1, 1), c2W3, [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)})
				}
				s.Drop(s.Len(), len(s.Words()))
			}
			g := rand.New(rand.NewPCG(seed, 0))
			stagePre := func() {
				switch g.IntN(4) {
				case 0:
					r.Destroy(e)
				case 1:
					deferral.Set(r, e, c2U32, uint32(g.IntN(9)))
				case 2:
					deferral.Set(r, e, c2W3, [3]uint64{1, 2, 3})
				case 3:
					r.Remove(e, a)
				}
			}
			for range pre {
				stagePre()
			}
			switch mode {
			case 1:
				s.Hold(true)
			case 2:
				r.SetSortKey(7)
			case 3:
				// Refused while records are pending (the recorder then stays open, as plain).
				_ = c.Close(0)
			}
			for range 1 + g.IntN(3) {
				if use2 {
					r.Remove2(e, a, b)
				} else {
					r.Remove(e, a)
					r.Remove(e, b)
				}
			}
			if mode == 4 {
				s.Hold(true)
			}
			for range post {
				stagePre()
			}
			return &s, sink, c, r
		}
		sa, ka, ca, _ := run(false)
		sb, kb, cb, _ := run(true)
		op := fmt.Sprintf("round %d pre %d mode %d dirty %v", round, pre, mode, dirty)
		if sa.Len() != sb.Len() || !slices.Equal(sa.Words(), sb.Words()) || sa.Cap() != sb.Cap() {
			t.Fatalf("%s: stream: two Removes %d records %v (cap %d); Remove2 %d %v (cap %d)", op, sa.Len(), sa.Words(), sa.Cap(), sb.Len(), sb.Words(), sb.Cap())
		}
		if !slices.Equal(ka.keyed, kb.keyed) || !slices.Equal(ka.keys, kb.keys) {
			t.Fatalf("%s: keyed: %v / %v", op, ka.keyed, kb.keyed)
		}
		if ca.Dropped() != cb.Dropped() {
			t.Fatalf("%s: dropped %d / %d", op, ca.Dropped(), cb.Dropped())
		}
	}
	// A slice sink (no stream) of every spare capacity, keyed or not.
	for spare := range 5 {
		for _, keyed := range []bool{false, true} {
			mk := func(use2 bool) *fastSliceSink {
				f := &fastSliceSink{cmds: make([]deferral.Command, 0, 3+spare), keyed: keyed}
				c := deferral.NewCore(w)
				r := c.NewRecorder(f)
				for range 3 {
					r.Remove(e, b)
				}
				if use2 {
					r.Remove2(e, a, b)
				} else {
					r.Remove(e, a)
					r.Remove(e, b)
				}
				return f
			}
			fa, fb := mk(false), mk(true)
			if !slices.Equal(fa.cmds, fb.cmds) || !slices.Equal(fa.slow, fb.slow) {
				t.Fatalf("slice sink spare %d keyed %v: %v %v / %v %v", spare, keyed, fa.cmds, fa.slow, fb.cmds, fb.slow)
			}
		}
	}
}
