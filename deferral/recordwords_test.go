package deferral_test

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// TestRecordWordsEveryByteOrder: Stream.RecordWords returns each record's length in words on
// either byte order: the header is the word's first four bytes in memory, which on a
// big-endian machine are not uint32(word) (that is the entity's world id). CI runs this
// package under qemu-s390x.
func TestRecordWordsEveryByteOrder(t *testing.T) {
	w := ecs.NewWorld()
	e, err := w.Create(ecs.Bundle{})
	if err != nil {
		t.Fatal(err)
	}
	var s deferral.Stream
	r := deferral.NewCore(w).NewRecorder(&streamKeyedSink{s: &s})
	r.Set(e, c2V2.Value([2]float64{1, 2}))                  // 4 words
	r.Add(e, c2W3.Value([3]uint64{1, 2, 3}))                // 5
	r.Remove(e, c2U32.ID())                                 // 2
	r.Add(e, c2U32.Value(1).With(c2V2.Value([2]float64{}))) // bundle form: 2 + 2 + 3
	want := []int{4, 5, 2, 7}
	off := 0
	for i, k := range want {
		if got := s.RecordWords(off); got != k {
			t.Fatalf("record %d at word %d: RecordWords = %d, want %d (words %x)", i, off, got, k, s.Words())
		}
		off += k
	}
	if off != len(s.Words()) {
		t.Fatalf("records end at word %d, stream has %d", off, len(s.Words()))
	}
}
