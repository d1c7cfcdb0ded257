package deferral

import (
	"fmt"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// This file holds the commit's runs of creates and destroys: consecutive create records
// applied with one ecs.World.CreateRecords call, consecutive destroy records with one
// DestroyRecords call, with the receipts and resolutions of one-by-one application.

// The verbs ecs.World.CreateRecords and DestroyRecords apply are deferral's.
var (
	_ = [1]struct{}{}[int(VerbCreate)-ecs.RecordCreate]
	_ = [1]struct{}{}[int(VerbDestroy)-ecs.RecordDestroy]
)

// createRun returns how many of the records at the start of words, at most n, form a run of
// creates a commit may hand to ecs.World.CreateRecords: bundle-form create records of the
// placeholders owner, hi with create numbers lo, lo+1, … (one recorder's creates of one
// epoch, in order, so that none comes twice), none followed by a one-value record naming its
// placeholder (that record and the create apply as one: applyCreateRun), and each one whose
// entry in tab, the placeholders' resolution table, is as want says: not resolved yet when
// applying (Apply refuses a create of a placeholder this commit resolved), created when
// replaying (a culled create is Replay's to check).
func createRun(tab *[][]resolution, words []uint64, n int, owner, hi, lo uint32, replay bool) (m int) {
	// The table's row for the recorder, read once: past its length nothing is resolved.
	var row []resolution
	if rec := int(hi >> 16); rec < len(*tab) {
		row = (*tab)[rec]
	}
	want := resUnknown
	if replay {
		want = resCreated
	}
	// Applying a run that starts past row's end, no create of it is resolved: row needs no
	// look.
	look := replay || int(lo) < len(row)
	// p is the record at word o. It moves on only while a whole head lies past it: a pointer
	// past the array's end is not formed.
	p, nw := unsafe.Pointer(unsafe.SliceData(words)), len(words)
	ph := ecs.NewPlaceholder(owner, hi, lo)
	for o := 0; m < n && o+headWords <= nw; m++ {
		r := (*recordHead)(p)
		k := recordLen(r.h)
		if r.h&0xff0000ff != uint32(VerbCreate)|formBundle<<24 || o+k > nw || r.e != ph {
			break
		}
		i := int(lo) + m
		if look {
			got := resUnknown
			if i < len(row) {
				got = row[i].state
			}
			if got != want {
				break
			}
		}
		if o += k; o+headWords <= nw {
			p = unsafe.Add(p, k*8)
			// A one-value record on this create's placeholder next: the create goes one by
			// one, before it.
			if q := (*recordHead)(p); m+1 < n && q.h>>24 == formValue && q.e == ph {
				break
			}
		}
		ph = ecs.NewPlaceholder(owner, hi, uint32(i+1))
	}
	return m
}

// runHead returns the parts of the placeholder the create record at the start of words
// mints, and its resolution table; ok is false when it is not a placeholder of a table this
// commit answers for (a hand-built record: one by one).
func (c *Core) runHead(words []uint64) (tab *[][]resolution, owner, hi, lo uint32, ok bool) {
	owner, hi, lo, ok = (*(*ecs.Entity)(unsafe.Add(unsafe.Pointer(&words[0]), 4))).PlaceholderParts()
	if !ok {
		return nil, 0, 0, 0, false
	}
	tab = c.table(owner, hi)
	return tab, owner, hi, lo, tab != nil
}

// applyCreates applies the run of creates (createRun) starting at record *next, word *off, of
// s, records before stop, through ecs.World.CreateRecords, and advances *next and *off past
// what it applied; false when it applied nothing (the caller applies the record one by one).
// Report.Created, Applied and the resolutions are those of one-by-one application; no
// create of the run can fail (CreateRecords stops before one that needs the checked path).
func (c *Core) applyCreates(s *Stream, stop int, next, off *int) bool {
	words := s.words[*off:s.n]
	tab, owner, hi, lo, ok := c.runHead(words)
	if !ok {
		return false
	}
	m := createRun(tab, words, stop-*next, owner, hi, lo, false)
	if m == 0 {
		return false
	}
	base := len(c.report.Created)
	recs, used, created := c.world.CreateRecords(words, m, c.report.Created)
	if recs == 0 {
		return false
	}
	c.report.Created = created
	recordRun(tab, hi, lo, created[base:])
	c.report.Applied += recs
	*next += recs
	*off += used
	return true
}

// recordRun records that the placeholders of create numbers lo, lo+1, … of payload hi
// became ents, in tab.
func recordRun(tab *[][]resolution, hi, lo uint32, ents []ecs.Entity) {
	rec := int(hi >> 16)
	for len(*tab) <= rec {
		*tab = append(*tab, nil)
	}
	t := (*tab)[rec]
	if need := int(lo) + len(ents); need > len(t) {
		if need <= cap(t) {
			t = t[:need]
			clear(t[len((*tab)[rec]):])
		} else {
			t = append(t, make([]resolution, need-len(t))...)
		}
		(*tab)[rec] = t
	}
	dst := t[int(lo) : int(lo)+len(ents)]
	for i, e := range ents {
		dst[i] = resolution{e: e, state: resCreated}
	}
}

// applyDestroys applies the destroy records of real handles starting at record *next, word
// *off, of s, records before stop, through ecs.World.DestroyRecords, as applyCreates.
// Destroyed, IgnoredDestroys (a target not alive) and Applied are those of one-by-one
// application.
func (c *Core) applyDestroys(s *Stream, stop int, next, off *int) bool {
	r := c.world.DestroyRecords(s.words[*off:s.n], stop-*next)
	if r.Records == 0 {
		return false
	}
	c.report.Applied += r.Records
	c.report.Destroyed += r.Destroyed
	c.report.IgnoredDestroys += r.Dead
	*next += r.Records
	*off += r.Words
	return true
}

// replayCreates is applyCreates for ReplayStream: it replays on w, a replica, the run of
// creates at the start of words (at most n records) whose placeholders the world's commit
// created, and returns done, the records and words it replayed, and nil, or ErrDiverged for
// the first create that made another entity than the world's. done is false, having changed
// nothing, where applyCreates would not batch, or when the replica's CreateRecords applied
// nothing; the caller replays the record with Replay.
func (c *Core) replayCreates(w *ecs.World, words []uint64, n int) (done bool, recs, used int, err error) {
	tab, owner, hi, lo, ok := c.runHead(words)
	if !ok {
		return false, 0, 0, nil
	}
	m := createRun(tab, words, n, owner, hi, lo, true)
	if m == 0 {
		return false, 0, 0, nil
	}
	recs, used, c.replayed = w.CreateRecords(words, m, c.replayed[:0])
	if recs == 0 {
		return false, 0, 0, nil
	}
	t := (*tab)[hi>>16]
	for i, e := range c.replayed {
		if want := t[int(lo)+i].e; e != want {
			ph := ecs.NewPlaceholder(owner, hi, lo+uint32(i))
			return true, i, 0, fmt.Errorf("replay create on %v: %w: create made %v on the replica, not what the world's create made (%v)", ph, ErrDiverged, e, want)
		}
	}
	return true, recs, used, nil
}
