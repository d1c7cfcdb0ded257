package deferral

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/deferbench/deferbench/ecs"
)

// applyCreateRun applies the create record at word *off of s (at names it) together with
// the one-value Add, Set and Remove records right after it that name its placeholder, as one
// create of the final component set (ecs.World.CreateValues: on archetype storage the row is
// placed in its final table, no move), advances *next and *off past what it applied, and
// returns done and nil, or done and the create's *CommandError (the create and the records
// after it stay pending). It returns done == false, having changed nothing, when the record
// is not a create, no one-value record after it names its placeholder, the placeholder is
// not one this commit resolves, or a create of this commit resolved it already (Apply
// refuses the record) (one by one, the records naming it are skipped): the caller
// applies the record one by one. The resolution, Report (Created, IgnoredCreates for a
// culled create, Applied, NoopRemoves) and the validators' calls are those of one-by-one
// application: the create's validators run once, and no record of the run can fail.
func (c *Core) applyCreateRun(at Pos, s *Stream, stop int, next, off *int) (done bool, err error) {
	p := unsafe.Add(s.base, uintptr(*off)*8)
	h := *(*uint32)(p)
	if Verb(h) != VerbCreate || h>>24 != formBundle || *next+1 >= stop {
		return false, nil
	}
	k := recordLen(h)
	ph := *(*ecs.Entity)(unsafe.Add(p, 4))
	if after := *(*recordHead)(unsafe.Add(p, k*8)); after.e != ph || after.h>>24 != formValue {
		return false, nil
	}
	owner, hi, lo, isPh := ph.PlaceholderParts()
	if !isPh {
		return false, nil
	}
	tab := c.table(owner, hi)
	if tab == nil {
		return false, nil
	}
	if _, done := tableEntry(tab, hi, lo); done {
		return false, nil // created twice: Apply refuses it
	}
	cmd := Command{Verb: VerbCreate, Entity: ph}
	for i := headWords; i < k; i++ {
		*(*uint64)(unsafe.Add(unsafe.Pointer(&cmd.Bundle), (i-headWords)*8)) = *(*uint64)(unsafe.Add(p, i*8))
	}
	e, r, err := c.world.CreateValues(&cmd.Bundle, ph, s.words[*off+k:s.n], stop-*next-1)
	switch {
	case errors.Is(err, ecs.ErrInvalidValue):
		c.record(ph, resolution{state: resCulled})
		c.report.IgnoredCreates++
	case err != nil:
		return true, c.fail(at, &cmd, err)
	default:
		c.record(ph, resolution{e: e, state: resCreated})
		c.report.Created = append(c.report.Created, e)
		c.report.NoopRemoves += r.NoopRemoves
	}
	c.report.Applied += 1 + r.Records
	*next += 1 + r.Records
	*off += k + r.Words
	return true, nil
}

// replayCreateRun is applyCreateRun for ReplayStream: it replays on w, a replica, the create
// record at word o of words with the one-value records after it that name its placeholder
// (at most n records in all), as one create (ecs.World.CreateValues), and returns done, the
// records and words it replayed, and nil or Replay's error for the create (ErrDiverged
// when the replica's create made another entity than the world's, or was culled where the
// world's was not). done is false, having changed nothing, where applyCreateRun would not
// batch; the caller replays the record with Replay.
func (c *Core) replayCreateRun(w *ecs.World, words []uint64, o, n int) (done bool, recs, used int, err error) {
	p := unsafe.Pointer(&words[o])
	h := *(*uint32)(p)
	if Verb(h) != VerbCreate || h>>24 != formBundle || n < 2 {
		return false, 0, 0, nil
	}
	k := recordLen(h)
	ph := *(*ecs.Entity)(unsafe.Add(p, 4))
	if o+k+headWords > len(words) {
		return false, 0, 0, nil
	}
	if after := *(*recordHead)(unsafe.Add(p, k*8)); after.e != ph || after.h>>24 != formValue {
		return false, 0, 0, nil
	}
	want, known := c.recorded(ph)
	if !known || want.state == resCulled { // Replay leaves a culled create out
		return false, 0, 0, nil
	}
	cmd := Command{Verb: VerbCreate, Entity: ph}
	for i := headWords; i < k; i++ {
		*(*uint64)(unsafe.Add(unsafe.Pointer(&cmd.Bundle), (i-headWords)*8)) = *(*uint64)(unsafe.Add(p, i*8))
	}
	e, r, err := w.CreateValues(&cmd.Bundle, ph, words[o+k:], n-1)
	switch {
	case errors.Is(err, ecs.ErrInvalidValue):
		if want.state == resCreated {
			err = fmt.Errorf("create culled on the replica, created %v on the world", want.e)
		} else {
			err = nil
		}
	case err != nil:
	case want.state != resCreated || e != want.e:
		err = fmt.Errorf("create made %v on the replica, not what the world's create made", e)
	}
	if err != nil {
		return true, 0, 0, fmt.Errorf("replay create on %v: %w: %w", ph, ErrDiverged, err)
	}
	return true, 1 + r.Records, k + r.Words, nil
}
