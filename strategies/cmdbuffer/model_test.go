package cmdbuffer_test

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

type zzCmd struct {
	id   int
	fail bool // fails the first time it is applied
}

type zzLog struct {
	applied []int
	failed  map[int]bool
}

func zzApply(l *zzLog, _ deferral.Pos, c *zzCmd) error {
	if c.fail && !l.failed[c.id] {
		l.failed[c.id] = true
		return errors.New("first try fails")
	}
	l.applied = append(l.applied, c.id)
	return nil
}

type zzPending struct {
	key      uint64
	rec, seq int
	id       int
	fail     bool
	child    *zzPending // a closure's: the command it stages when it runs, for the next commit
}

// Differential test of the generic Buffer against a model: every commit applies the pending
// commands in (sort key, recorder, FIFO) order up to the first failure, which stays pending
// with its suffix; commands staged after a failure join the pending set in their place.
// Random keys (mostly 0, so both the sweep and the keyed path run, and switches between them
// after failures), closures (some staging a command while the commit runs, which the next
// commit applies), and failures that succeed on retry.
func TestBufferMatchesModel(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 11))
		log := &zzLog{failed: map[int]bool{}}
		b := cmdbuffer.New(log, zzApply)
		recs := make([]*cmdbuffer.Recorder[zzLog, zzCmd], 1+rng.IntN(4))
		for i := range recs {
			recs[i] = b.NewRecorder()
		}
		seqs := make([]int, len(recs))
		var model []zzPending
		var want []int
		next := 0
		for step := range 40 {
			switch op := rng.IntN(10); {
			case op < 7: // stage a few
				for range 1 + rng.IntN(5) {
					ri := rng.IntN(len(recs))
					key := uint64(0)
					if rng.IntN(4) == 0 {
						key = uint64(rng.IntN(3))
					}
					next++
					id, fail := next, rng.IntN(8) == 0
					var child *zzPending
					if rng.IntN(4) == 0 {
						if rng.IntN(2) == 0 {
							next++
							child = &zzPending{key: uint64(rng.IntN(3)), rec: rng.IntN(len(recs)), id: next}
						}
						recs[ri].StageFuncKeyed(key, func(l *zzLog) error {
							if fail && !l.failed[id] {
								l.failed[id] = true
								return errors.New("closure fails once")
							}
							l.applied = append(l.applied, id)
							if child != nil {
								recs[child.rec].StageKeyed(child.key, zzCmd{id: child.id})
							}
							return nil
						})
					} else {
						recs[ri].StageKeyed(key, zzCmd{id: id, fail: fail})
					}
					model = append(model, zzPending{key, ri, seqs[ri], id, fail, child})
					seqs[ri]++
				}
			case op < 9: // commit
				slices.SortStableFunc(model, func(a, c zzPending) int {
					if r := cmp.Compare(a.key, c.key); r != 0 {
						return r
					}
					if r := cmp.Compare(a.rec, c.rec); r != 0 {
						return r
					}
					return cmp.Compare(a.seq, c.seq)
				})
				failedAt := -1
				var late []zzPending // staged by closures while the commit runs
				for i, p := range model {
					if p.fail {
						model[i].fail = false // succeeds next time
						failedAt = i
						break
					}
					want = append(want, p.id)
					if c := p.child; c != nil {
						c.seq = seqs[c.rec]
						seqs[c.rec]++
						late = append(late, *c)
					}
				}
				err := b.Commit()
				if failedAt >= 0 {
					model = append(model[failedAt:], late...)
					if err == nil {
						t.Fatalf("seed %d step %d: commit succeeded, want failure at id %d", seed, step, model[0].id)
					}
				} else {
					model = append(model[:0], late...)
					if err != nil {
						t.Fatalf("seed %d step %d: commit: %v", seed, step, err)
					}
				}
			default: // discard
				if n := b.Discard(); n != len(model) {
					t.Fatalf("seed %d step %d: discard = %d, want %d", seed, step, n, len(model))
				}
				model = model[:0]
			}
			if !slices.Equal(log.applied, want) {
				t.Fatalf("seed %d step %d: applied\n%v\nwant\n%v", seed, step, log.applied, want)
			}
			if p := b.Pending(); p != len(model) {
				t.Fatalf("seed %d step %d: pending %d, want %d", seed, step, p, len(model))
			}
		}
	}
}

type zzV struct{ N int64 }

var zzC = ecs.NewComponent[zzV]("zzcb.C", nil)

// A closure of buffer A commits buffer B, whose command fails, and returns B's error. A's
// commit error must name A's failing command (its closure), not B's: Wrap passes any error
// that contains a *deferral.CommandError through unchanged, even one naming another buffer.
func TestNestedCommitErrorNamesOwnCommand(t *testing.T) {
	logB := &zzLog{failed: map[int]bool{}}
	b := cmdbuffer.New(logB, zzApply)
	rb0, rb1 := b.NewRecorder(), b.NewRecorder()
	_ = rb0
	rb1.Stage(zzCmd{id: 1, fail: true})
	logA := &zzLog{failed: map[int]bool{}}
	a := cmdbuffer.New(logA, zzApply)
	ra := a.NewRecorder()
	ra.Stage(zzCmd{id: 10})
	ra.StageFunc(func(*zzLog) error { return b.Commit() })
	err := a.Commit()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("commit: %v, want a *deferral.CommandError", err)
	}
	if want := (deferral.Pos{Recorder: 0, Index: 1}); ce.Pos != want || ce.Verb != deferral.VerbFunc {
		t.Errorf("A's commit error names %v %+v, want the closure at %+v", ce.Verb, ce.Pos, want)
	}
}
