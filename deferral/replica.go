package deferral

import (
	"errors"
	"fmt"

	"github.com/deferbench/deferbench/ecs"
)

// ErrDiverged: a command replayed on a replica of the core's world had another outcome than
// it had on the world, so the two replicas no longer hold the same state.
var ErrDiverged = errors.New("replica diverged from the world")

// Replay applies cmd, which Apply applied without error, to w: a replica of the core's world
// (ecs.World.Replica) that held the world's state from before that Apply. It follows the same
// lenient rules and resolves placeholders through the resolutions Apply recorded, and records
// nothing: no receipts, no resolutions. A create must yield the handle Apply's create yielded
// (replicas allocate slots by the same rule), a hand-built create's too (Apply keeps the
// outcomes of the creates no placeholder table tracks, in order, for Replay to take in the
// same order); one Apply culled is left out, its values not
// offered to w's validators (which, being user code, may keep state: a replica that replays
// should trust values, ecs.World.TrustValues(true), and then runs no validator). Other commands are
// not compared with Apply's outcome (one skipped here but applied there goes unnoticed: compare
// the replicas' hashes to find it). Errors:
// ErrDiverged, wrapped with the command, when the outcome differs; ErrInvalidCommand for a
// closure record (the strategy runs closures itself). Call it from the commit's goroutine,
// after Apply and before the next Begin forgets the resolutions.
func (c *Core) Replay(w *ecs.World, cmd *Command) error {
	var err error
	switch cmd.Verb {
	case VerbCreate:
		want, known := c.recorded(cmd.Entity)
		if !known && c.looseAt < len(c.loose) {
			// A create no table tracks: its outcome is the next of those Apply kept.
			want, known = c.loose[c.looseAt], true
			c.looseAt++
		}
		if known && want.state == resCulled {
			break // left out: the replica's validators are not asked again
		}
		var e ecs.Entity
		e, err = w.Create(cmd.Bundle)
		switch {
		case errors.Is(err, ecs.ErrInvalidValue):
			if known && want.state == resCreated {
				err = fmt.Errorf("create culled on the replica, created %v on the world", want.e)
			} else {
				err = nil
			}
		case err != nil:
		case known && (want.state != resCreated || e != want.e):
			err = fmt.Errorf("create made %v on the replica, not what the world's create made", e)
		}
	case VerbDestroy:
		if e, ok := c.resolve(cmd.Entity); ok && w.Alive(e) {
			err = w.Destroy(e)
		}
	case VerbAdd, VerbSet, VerbRemove:
		e, ok := c.resolve(cmd.Entity)
		if !ok || !w.Alive(e) {
			break
		}
		switch cmd.Verb {
		case VerbAdd:
			err = w.Upsert(e, cmd.Bundle)
		case VerbSet:
			err = w.Set(e, cmd.Bundle)
		default:
			if w.Has(e, cmd.Component) {
				err = w.Remove(e, cmd.Component)
			}
		}
	default:
		return fmt.Errorf("replay %s: %w", cmd.Verb, ErrInvalidCommand)
	}
	if err != nil {
		what := cmd.Verb.String()
		if n := cmd.componentName(); n != "" {
			what += " " + n
		}
		return fmt.Errorf("replay %s on %v: %w: %w", what, cmd.Entity, ErrDiverged, err)
	}
	return nil
}

// recorded returns the resolution Apply recorded for placeholder p; ok is false when p is not
// a placeholder of a current table (a hand-built create record), whose outcome went unrecorded.
func (c *Core) recorded(p ecs.Entity) (r resolution, ok bool) {
	owner, hi, lo, isPh := p.PlaceholderParts()
	if !isPh {
		return r, false
	}
	return tableEntry(c.table(owner, hi), hi, lo)
}

// tableEntry returns the resolution table tab (nil: none) holds for the placeholder whose
// parts are hi and lo, and whether one was recorded there (created or culled).
func tableEntry(tab *[][]resolution, hi, lo uint32) (r resolution, ok bool) {
	rec := int(hi >> 16)
	if tab == nil || rec >= len(*tab) || int(lo) >= len((*tab)[rec]) {
		return r, false
	}
	r = (*tab)[rec][lo]
	return r, r.state != resUnknown
}
