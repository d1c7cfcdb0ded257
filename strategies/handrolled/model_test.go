package handrolled_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

type zzCmd struct {
	id   int
	at   deferral.Pos // where the model says it was staged
	fail bool         // fails the first time
}

type zzLog struct {
	applied []int
	failed  map[int]bool
	bad     []string
}

func zzApply(l *zzLog, at deferral.Pos, c *zzCmd) error {
	if at != c.at {
		l.bad = append(l.bad, fmt.Sprintf("id %d applied at %+v, staged at %+v", c.id, at, c.at))
	}
	if c.fail && !l.failed[c.id] {
		l.failed[c.id] = true
		return errors.New("first try fails")
	}
	l.applied = append(l.applied, c.id)
	return nil
}

// Differential test of Gather against a model of hand-over order: explicit hand-overs in call
// order, then (at commit) the recorders not handed over in first-stage order; a failure keeps
// its suffix, which the next commit applies before newly gathered commands; positions count
// from the last drained commit.
func TestGatherMatchesModel(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 5))
		log := &zzLog{failed: map[int]bool{}}
		g := handrolled.New(log, zzApply)
		nrec := 1 + rng.IntN(4)
		recs := make([]*handrolled.Recorder[zzLog, zzCmd], nrec)
		for i := range recs {
			recs[i] = g.NewRecorder()
		}
		type item struct {
			id   int
			fail bool
		}
		var (
			gathered []item
			handed   [][]item
			open     []int
			listed   = make([]bool, nrec)
			local    = make([][]item, nrec)
			fifo     = make([]int, nrec)
			want     []int
			next     int
		)
		handover := func(r int) {
			if len(local[r]) > 0 {
				handed = append(handed, local[r])
				local[r] = nil
			}
		}
		pending := func() int {
			n := len(gathered)
			for _, h := range handed {
				n += len(h)
			}
			for _, l := range local {
				n += len(l)
			}
			return n
		}
		for step := range 50 {
			switch op := rng.IntN(12); {
			case op < 6:
				r := rng.IntN(nrec)
				next++
				it := item{next, rng.IntN(7) == 0}
				recs[r].Stage(zzCmd{id: it.id, at: deferral.Pos{Recorder: r, Index: fifo[r]}, fail: it.fail})
				fifo[r]++
				if !listed[r] {
					listed[r] = true
					open = append(open, r)
				}
				local[r] = append(local[r], it)
			case op < 8:
				r := rng.IntN(nrec)
				recs[r].Handover()
				handover(r)
			case op < 11:
				for _, r := range open {
					handover(r)
					listed[r] = false
				}
				open = open[:0]
				for _, h := range handed {
					gathered = append(gathered, h...)
				}
				handed = handed[:0]
				failedAt := -1
				for i, it := range gathered {
					if it.fail {
						gathered[i].fail = false
						failedAt = i
						break
					}
					want = append(want, it.id)
				}
				err := g.Commit()
				if failedAt >= 0 {
					gathered = gathered[failedAt:]
					if err == nil {
						t.Fatalf("seed %d step %d: commit succeeded, want a failure", seed, step)
					}
				} else {
					gathered = gathered[:0]
					clear(fifo)
					if err != nil {
						t.Fatalf("seed %d step %d: commit: %v", seed, step, err)
					}
				}
			default:
				n, err := g.Discard()
				if err != nil || n != pending() {
					t.Fatalf("seed %d step %d: discard = %d, %v; want %d", seed, step, n, err, pending())
				}
				gathered, handed, open = gathered[:0], handed[:0], open[:0]
				clear(listed)
				clear(local)
				clear(fifo)
			}
			if !slices.Equal(log.applied, want) {
				t.Fatalf("seed %d step %d: applied\n%v\nwant\n%v", seed, step, log.applied, want)
			}
			if p := g.Pending(); p != pending() {
				t.Fatalf("seed %d step %d: pending %d, want %d", seed, step, p, pending())
			}
			if len(log.bad) > 0 {
				t.Fatalf("seed %d step %d: %v", seed, step, log.bad)
			}
		}
	}
}

type zzV struct{ N int64 }

var zzC = ecs.NewComponent[zzV]("zzhr.C", nil)

// A closure stages a command and hands its recorder over during the commit: the command is
// the first of the recorder's FIFO in the next commit, so its error names index 0.
func TestPositionAfterHandoverDuringCommit(t *testing.T) {
	w := ecs.NewWorld()
	s := handrolled.NewECS(w)
	r := s.NewRecorder()
	target, _ := w.Create(ecs.Bundle{})
	r.Create(zzC.Value(zzV{1}))
	r.Create(zzC.Value(zzV{1}))
	r.Do(func(*ecs.World) error {
		r.Set(target, zzC.Value(zzV{2})) // fails at the next commit: target lacks C
		s.Handover(r)
		return nil
	})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	var ce *deferral.CommandError
	if err := s.Commit(); !errors.As(err, &ce) {
		t.Fatalf("commit: %v, want a *deferral.CommandError", err)
	}
	if ce.Pos != (deferral.Pos{Recorder: r.Index(), Index: 0}) {
		t.Errorf("error names %+v, want recorder %d index 0", ce.Pos, r.Index())
	}
}
