package deferral_test

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// TestStreamSets counts the Sets among a stream's records of every form: one-value and
// bundle Sets, the other verbs, a raw record (a Set without values, kept whole) and a
// closure's slot; a count past the records, or words cut inside a record, stops at the last
// whole record.
func TestStreamSets(t *testing.T) {
	a := ecs.NewComponent[int64]("streamsets.A", nil)
	b := ecs.NewComponent[[3]uint64]("streamsets.B", nil)
	e, err := ecs.NewWorld().Create(a.Value(1))
	if err != nil {
		t.Fatal(err)
	}
	var s deferral.Stream
	for _, c := range []deferral.Command{
		{Verb: deferral.VerbSet, Entity: e, Bundle: a.Value(2)},                            // one value
		{Verb: deferral.VerbAdd, Entity: e, Bundle: b.Value([3]uint64{})},                  // not a Set
		{Verb: deferral.VerbSet, Entity: e, Bundle: a.Value(3).With(b.Value([3]uint64{}))}, // bundle
		{Verb: deferral.VerbRemove, Entity: e, Component: b.ID()},
		{Verb: deferral.VerbCreate, Bundle: a.Value(4)},
		{Verb: deferral.VerbDestroy, Entity: e},
		{Verb: deferral.VerbSet, Entity: e}, // no values: a raw record
	} {
		s.AppendCommand(&c)
	}
	s.AppendSlot()
	words := s.Words()
	for _, c := range []struct {
		n, sets, records int
	}{{0, 0, 0}, {1, 1, 1}, {2, 1, 2}, {3, 2, 3}, {7, 3, 7}, {8, 3, 8}, {100, 3, 8}} {
		if sets, records := deferral.StreamSets(words, c.n); sets != c.sets || records != c.records {
			t.Errorf("StreamSets(n=%d) = %d sets of %d records, want %d of %d", c.n, sets, records, c.sets, c.records)
		}
	}
	if sets, records := deferral.StreamSets(words[:len(words)-1], 100); sets != 3 || records != 7 {
		t.Errorf("StreamSets of words cut inside the slot record = %d sets of %d records, want 3 of 7", sets, records)
	}
	for _, cut := range []int{3, 4, 5, 6} { // the second record's header, or part of its value
		if sets, records := deferral.StreamSets(words[:cut], 100); sets != 1 || records != 1 {
			t.Errorf("StreamSets of words cut after word %d = %d sets of %d records, want 1 of 1", cut, sets, records)
		}
	}
}
