package deferral_test

import (
	"slices"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// add2Case stages one add through Recorder.Add of a.Value(va).With(b.Value(vb)) and one
// through Add2 of the same values.
type add2Case struct {
	name      string
	add, add2 func(r *deferral.Recorder, e ecs.Entity)
	wantWords int // the record's words: 2 of header and target, 2 of the Bundle's head, the values'
}

func add2Of[A, B any](name string, a ecs.Component[A], va A, b ecs.Component[B], vb B, words int) add2Case {
	return add2Case{name,
		func(r *deferral.Recorder, e ecs.Entity) { r.Add(e, a.Value(va).With(b.Value(vb))) },
		func(r *deferral.Recorder, e ecs.Entity) { deferral.Add2(r, e, a, va, b, vb) },
		words}
}

func add2Cases() []add2Case {
	return []add2Case{
		add2Of("two values of 16 and 24 bytes", c2V2, [2]float64{1, 2}, c2W3, [3]uint64{3, 4, 5}, 2+2+5),
		add2Of("a byte and a padded value", c2U8, 7, c2Pad, padded{A: 1, B: 2, C: 3}, 2+2+1+2),
		add2Of("a tag first", c2Tag, struct{}{}, c2U32, 9, 2+2+1),
		add2Of("a tag after MaxInline bytes", c2W5, [5]uint64{1, 2, 3, 4, 5}, c2Tag, struct{}{}, 2+2+5),
		add2Of("a word and four", c2U32, 6, c2W4, [4]uint64{7, 8, 9, 10}, 2+2+5),
		add2Of("the same component twice (the commit refuses it)", c2U32, 1, c2U32, 2, 2+2+2),
	}
}

// TestAdd2MatchesAdd: Add2 writes the record Recorder.Add writes for the Bundle
// a.Value(va).With(b.Value(vb)), word for word, for values of no size, of less than a word
// (with padding inside), up to MaxInline bytes together, and the same component twice; also
// over words that dropped records left all ones, and for a placeholder target.
func TestAdd2MatchesAdd(t *testing.T) {
	ones := [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)}
	w := ecs.NewWorld()
	e, err := w.Create(ecs.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range add2Cases() {
		for _, dirty := range []bool{false, true} {
			var s deferral.Stream
			r := deferral.NewCore(w).NewRecorder(streamSink{&s})
			if dirty {
				for range 8 {
					deferral.Set(r, ecs.NewPlaceholder(1, 1, 1), c2W3, ones)
				}
				s.Drop(s.Len(), len(s.Words()))
			}
			for _, target := range []ecs.Entity{e, r.Create(ecs.Bundle{})} {
				n0 := len(s.Words())
				tc.add(r, target)
				n1 := len(s.Words())
				tc.add2(r, target)
				words := s.Words()
				if n1-n0 != tc.wantWords || len(words)-n1 != tc.wantWords {
					t.Fatalf("%s (dirty %v): records of %d and %d words; want %d each", tc.name, dirty, n1-n0, len(words)-n1, tc.wantWords)
				}
				if !slices.Equal(words[n0:n1], words[n1:]) {
					t.Errorf("%s (dirty %v, target %v): Add2 wrote %x; Add wrote %x", tc.name, dirty, target, words[n1:], words[n0:n1])
				}
			}
			// The placeholder's create, and two pairs of Adds, each pair of one Bundle.
			got := slices.DeleteFunc(deferral.AppendCommands(&s, nil), func(c deferral.Command) bool { return c.Verb == deferral.VerbCreate })
			if len(got) != 4 || got[0] != got[1] || got[2] != got[3] || got[0].Bundle != got[2].Bundle ||
				got[0].Verb != deferral.VerbAdd || got[2].Verb != deferral.VerbAdd || got[0].Bundle.Len() != 2 {
				t.Errorf("%s (dirty %v): the Adds decode to %+v; want two pairs of Adds of one Bundle", tc.name, dirty, got)
			}
		}
	}
}

// TestAdd2OutOfLine: where the recorder has no room (a sort key set) or the stream fills,
// Add2 stages what Recorder.Add stages; it panics as Value does for a component that is not
// inline, and as With does for values over MaxInline bytes together.
func TestAdd2OutOfLine(t *testing.T) {
	e := ecs.NewPlaceholder(1, 1, 1)
	for _, tc := range add2Cases() {
		var ka, kb keyedSink
		ra := deferral.NewCore(ecs.NewWorld()).NewRecorder(&ka)
		rb := deferral.NewCore(ecs.NewWorld()).NewRecorder(&kb)
		ra.SetSortKey(3)
		rb.SetSortKey(3)
		tc.add(ra, e)
		tc.add2(rb, e)
		if len(ka.cmds) != 1 || len(kb.cmds) != 1 || ka.cmds[0] != kb.cmds[0] || kb.cmds[0].Verb != deferral.VerbAdd {
			t.Errorf("%s, keyed: Add2 staged %+v; Add staged %+v", tc.name, kb.cmds, ka.cmds)
		}
	}
	// A full stream grows as Add's does: many adds, every record the same as Add's.
	var sa, sb deferral.Stream
	ra := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&sa})
	rb := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&sb})
	for i := range 5000 {
		ra.Add(e, c2V2.Value([2]float64{float64(i)}).With(c2U32.Value(uint32(i))))
		deferral.Add2(rb, e, c2V2, [2]float64{float64(i)}, c2U32, uint32(i))
	}
	if !slices.Equal(sa.Words(), sb.Words()) || sa.Len() != 5000 || sb.Len() != 5000 {
		t.Errorf("5000 adds: Add2 staged %d records in %d words; Add %d in %d, or they differ", sb.Len(), len(sb.Words()), sa.Len(), len(sa.Words()))
	}
	mustPanic(t, "Add2 of a component that is not inline", func() {
		var s deferral.Stream
		r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
		deferral.Add2(r, e, c2U32, 1, c2Name, "x")
	})
	mustPanic(t, "Add2 of values over MaxInline bytes", func() {
		var s deferral.Stream
		r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
		deferral.Add2(r, e, c2W5, [5]uint64{}, c2U8, 1)
	})
}

// TestRemove2MatchesRemoves: Remove2 stages what two Removes stage — the same records, word
// for word, in a stream (also one that fills and grows, and over words that dropped records
// left all ones), and the same two commands where the recorder has no room (a sort key set).
func TestRemove2MatchesRemoves(t *testing.T) {
	w := ecs.NewWorld()
	e, err := w.Create(ecs.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := c2U32.ID(), c2Tag.ID()
	for _, dirty := range []bool{false, true} {
		var sa, sb deferral.Stream
		ra := deferral.NewCore(w).NewRecorder(streamSink{&sa})
		rb := deferral.NewCore(w).NewRecorder(streamSink{&sb})
		if dirty {
			for range 8 {
				deferral.Set(rb, ecs.NewPlaceholder(1, 1, 1), c2W3, [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)})
			}
			sb.Drop(sb.Len(), len(sb.Words()))
		}
		for i := range 5000 {
			target := e
			if i%3 == 1 {
				target = ecs.NewPlaceholder(1, uint32(i), 1)
			}
			ra.Remove(target, a)
			ra.Remove(target, b)
			rb.Remove2(target, a, b)
		}
		if sa.Len() != 10000 || sb.Len() != 10000 || !slices.Equal(sa.Words(), sb.Words()) {
			t.Errorf("dirty %v: 5000 Remove2 staged %d records in %d words; 10000 Removes %d in %d, or they differ", dirty, sb.Len(), len(sb.Words()), sa.Len(), len(sa.Words()))
		}
	}
	var ka, kb keyedSink
	ra := deferral.NewCore(w).NewRecorder(&ka)
	rb := deferral.NewCore(w).NewRecorder(&kb)
	ra.SetSortKey(3)
	rb.SetSortKey(3)
	ra.Remove(e, a)
	ra.Remove(e, b)
	rb.Remove2(e, a, b)
	if !slices.Equal(ka.cmds, kb.cmds) || len(kb.cmds) != 2 || kb.cmds[0].Verb != deferral.VerbRemove || kb.cmds[1].Component != b {
		t.Errorf("keyed: Remove2 staged %+v; two Removes staged %+v", kb.cmds, ka.cmds)
	}
}
