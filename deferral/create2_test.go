package deferral_test

import (
	"slices"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

var (
	c2Tag  = ecs.NewComponent[struct{}]("create2.tag", nil)
	c2U8   = ecs.NewComponent[uint8]("create2.u8", nil)
	c2Pad  = ecs.NewComponent[padded]("create2.padded", nil)
	c2U32  = ecs.NewComponent[uint32]("create2.u32", nil)
	c2V2   = ecs.NewComponent[[2]float64]("create2.v2", nil)
	c2W3   = ecs.NewComponent[[3]uint64]("create2.w3", nil)
	c2W4   = ecs.NewComponent[[4]uint64]("create2.w4", nil)
	c2W5   = ecs.NewComponent[[5]uint64]("create2.w5", nil)
	c2Name = ecs.NewComponent[string]("create2.name", nil) // holds a pointer: not inline
)

// create2Case stages one create through Recorder.Create of a.Value(va).With(b.Value(vb)) and
// one through Create2 of the same values.
type create2Case struct {
	name      string
	bundle    func(r *deferral.Recorder) ecs.Entity
	create2   func(r *deferral.Recorder) ecs.Entity
	wantWords int // the record's words: 2 of header and target, 2 of the Bundle's head, the values'
}

func create2Cases() []create2Case {
	pad := padded{A: 1, B: 2, C: 3}
	return []create2Case{
		{"two values of 16 bytes",
			func(r *deferral.Recorder) ecs.Entity {
				return r.Create(c2V2.Value([2]float64{1, 2}).With(c2W3.Value([3]uint64{3, 4, 5})))
			},
			func(r *deferral.Recorder) ecs.Entity {
				return deferral.Create2(r, c2V2, [2]float64{1, 2}, c2W3, [3]uint64{3, 4, 5})
			},
			2 + 2 + 5},
		{"a byte and a padded value",
			func(r *deferral.Recorder) ecs.Entity { return r.Create(c2U8.Value(7).With(c2Pad.Value(pad))) },
			func(r *deferral.Recorder) ecs.Entity { return deferral.Create2(r, c2U8, 7, c2Pad, pad) },
			2 + 2 + 1 + 2},
		{"a tag first",
			func(r *deferral.Recorder) ecs.Entity { return r.Create(c2Tag.Value(struct{}{}).With(c2U32.Value(9))) },
			func(r *deferral.Recorder) ecs.Entity { return deferral.Create2(r, c2Tag, struct{}{}, c2U32, 9) },
			2 + 2 + 1},
		{"a tag after MaxInline bytes",
			func(r *deferral.Recorder) ecs.Entity {
				return r.Create(c2W5.Value([5]uint64{1, 2, 3, 4, 5}).With(c2Tag.Value(struct{}{})))
			},
			func(r *deferral.Recorder) ecs.Entity {
				return deferral.Create2(r, c2W5, [5]uint64{1, 2, 3, 4, 5}, c2Tag, struct{}{})
			},
			2 + 2 + 5},
		{"a word and four",
			func(r *deferral.Recorder) ecs.Entity {
				return r.Create(c2U32.Value(6).With(c2W4.Value([4]uint64{7, 8, 9, 10})))
			},
			func(r *deferral.Recorder) ecs.Entity {
				return deferral.Create2(r, c2U32, 6, c2W4, [4]uint64{7, 8, 9, 10})
			},
			2 + 2 + 5},
		{"the same component twice (the commit refuses it)",
			func(r *deferral.Recorder) ecs.Entity { return r.Create(c2U32.Value(1).With(c2U32.Value(2))) },
			func(r *deferral.Recorder) ecs.Entity { return deferral.Create2(r, c2U32, 1, c2U32, 2) },
			2 + 2 + 2},
	}
}

// TestCreate2MatchesCreate: Create2 writes the record Recorder.Create writes for the Bundle
// a.Value(va).With(b.Value(vb)), word for word, and mints the next placeholder, for values of
// no size, of less than a word (with padding inside), up to MaxInline bytes together, and the
// same component twice; also over words that dropped records left all ones.
func TestCreate2MatchesCreate(t *testing.T) {
	ones := [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)}
	for _, tc := range create2Cases() {
		for _, dirty := range []bool{false, true} {
			var s deferral.Stream
			r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
			if dirty {
				for range 8 {
					deferral.Set(r, ecs.NewPlaceholder(1, 1, 1), c2W3, ones)
				}
				s.Drop(s.Len(), len(s.Words()))
			}
			p1 := tc.bundle(r)
			n1 := len(s.Words())
			p2 := tc.create2(r)
			w := s.Words()
			if s.Len() != 2 || n1 != tc.wantWords || len(w) != 2*tc.wantWords {
				t.Fatalf("%s (dirty %v): %d records, %d and %d words; want 2 records of %d words", tc.name, dirty, s.Len(), n1, len(w)-n1, tc.wantWords)
			}
			o1, h1, l1, _ := p1.PlaceholderParts()
			o2, h2, l2, ok := p2.PlaceholderParts()
			if !ok || o1 != o2 || h1 != h2 || l2 != l1+1 {
				t.Errorf("%s (dirty %v): Create2 minted %v after Create's %v; want the next placeholder", tc.name, dirty, p2, p1)
			}
			rec1, rec2 := slices.Clone(w[:n1]), slices.Clone(w[n1:])
			// The target's last 8 bytes (placeholder payload and number) differ by the number.
			rec1[1], rec2[1] = 0, 0
			if !slices.Equal(rec1, rec2) {
				t.Errorf("%s (dirty %v): Create2 wrote %x; Create wrote %x", tc.name, dirty, w[n1:], w[:n1])
			}
			got := deferral.AppendCommands(&s, nil)
			if len(got) != 2 || got[0].Bundle != got[1].Bundle || got[0].Verb != deferral.VerbCreate || got[1].Verb != deferral.VerbCreate {
				t.Errorf("%s (dirty %v): the records decode to %+v; want two creates of one Bundle", tc.name, dirty, got)
			}
		}
	}
}

// TestCreate2OutOfLine: where the stream has no room, or the recorder has none (a sort key
// set), Create2 stages what Recorder.Create stages; it panics as Value does for a component
// that is not inline, and as With does for values over MaxInline bytes together.
func TestCreate2OutOfLine(t *testing.T) {
	for _, tc := range create2Cases() {
		// A sort key sends every command to the sink's keyed path.
		var ka, kb keyedSink
		ra := deferral.NewCore(ecs.NewWorld()).NewRecorder(&ka)
		rb := deferral.NewCore(ecs.NewWorld()).NewRecorder(&kb)
		ra.SetSortKey(3)
		rb.SetSortKey(3)
		tc.bundle(ra)
		tc.create2(rb)
		if len(ka.cmds) != 1 || len(kb.cmds) != 1 || !sameCreate(ka.cmds[0], kb.cmds[0]) {
			t.Errorf("%s, keyed: Create2 staged %+v; Create staged %+v", tc.name, kb.cmds, ka.cmds)
		}
	}
	// A full stream grows as Create's does: many creates, every record the same as Create's.
	var sa, sb deferral.Stream
	ra := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&sa})
	rb := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&sb})
	for i := range 5000 {
		ra.Create(c2V2.Value([2]float64{float64(i)}).With(c2U32.Value(uint32(i))))
		deferral.Create2(rb, c2V2, [2]float64{float64(i)}, c2U32, uint32(i))
	}
	ca, cb := deferral.AppendCommands(&sa, nil), deferral.AppendCommands(&sb, nil)
	if len(ca) != 5000 || len(cb) != 5000 {
		t.Fatalf("staged %d and %d creates; want 5000 each", len(ca), len(cb))
	}
	for i := range ca {
		if !sameCreate(ca[i], cb[i]) {
			t.Fatalf("create %d: Create2 staged %+v; Create staged %+v", i, cb[i], ca[i])
		}
	}
	mustPanic(t, "Create2 of a component that is not inline", func() {
		var s deferral.Stream
		r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
		deferral.Create2(r, c2U32, 1, c2Name, "x")
	})
	mustPanic(t, "Create2 of values over MaxInline bytes", func() {
		var s deferral.Stream
		r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
		deferral.Create2(r, c2W5, [5]uint64{}, c2U8, 1)
	})
}

// sameCreate reports whether a and b are creates of one Bundle with placeholders of the same
// recorder and number (strategies apart: the owners differ).
func sameCreate(a, b deferral.Command) bool {
	_, ha, la, oka := a.Entity.PlaceholderParts()
	_, hb, lb, okb := b.Entity.PlaceholderParts()
	return a.Verb == deferral.VerbCreate && b.Verb == deferral.VerbCreate && a.Bundle == b.Bundle &&
		oka && okb && ha == hb && la == lb
}

// keyedSink keeps what a keyed recorder stages.
type keyedSink struct{ cmds []deferral.Command }

func (k *keyedSink) StageKeyed(_ uint64, c deferral.Command)       { k.cmds = append(k.cmds, c) }
func (k *keyedSink) StageFuncKeyed(uint64, func(*ecs.World) error) { panic("no closures") }

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
