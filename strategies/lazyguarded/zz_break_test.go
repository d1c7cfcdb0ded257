package lazyguarded_test

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

type zzVal struct{ N int64 }

var zzC = ecs.NewComponent[zzVal]("zzlg.C", nil)

// A closure command that panics mid-commit propagates; afterwards the strategy must still
// commit (the panicking command stays pending, as a failing one would).
func TestZZPanicInClosureThenRetry(t *testing.T) {
	for _, mode := range []lazyguarded.ReaderMode{lazyguarded.ReadersWait, lazyguarded.ReadersPass} {
		t.Run(mode.String(), func(t *testing.T) {
			w := ecs.NewWorld()
			s := lazyguarded.NewECS(w, mode)
			r := s.NewRecorder()
			r.Create(zzC.Value(zzVal{1}))
			boom := true
			r.Do(func(*ecs.World) error {
				if boom {
					panic("boom")
				}
				return nil
			})
			r.Create(zzC.Value(zzVal{2}))
			func() {
				defer func() {
					if recover() == nil {
						t.Error("panic did not propagate")
					}
				}()
				_ = s.Commit()
			}()
			if n := s.Pending(); n != 2 {
				t.Errorf("pending after panic = %d, want 2", n)
			}
			boom = false
			if err := s.Commit(); err != nil {
				t.Fatalf("commit after a panicking closure: %v", err)
			}
			if w.Len() != 2 {
				t.Errorf("world has %d entities, want 2", w.Len())
			}
		})
	}
}

// A closure command that stages a create and then a destroy of that create's placeholder:
// the commands park for the next commit, which must apply the destroy to the entity the
// create became (SPEC §4.2: commands on a placeholder staged earlier in the same buffer).
func TestZZStageCreateDestroyFromClosure(t *testing.T) {
	w := ecs.NewWorld()
	s := lazyguarded.NewECS(w, lazyguarded.ReadersWait)
	r := s.NewRecorder()
	r.Do(func(*ecs.World) error {
		p := r.Create(zzC.Value(zzVal{1}))
		r.Destroy(p)
		return nil
	})
	for i := 0; i < 3 && (i == 0 || s.Pending() > 0); i++ {
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if w.Len() != 0 {
		t.Errorf("world has %d entities, want 0: the destroy of the closure's placeholder was skipped", w.Len())
	}
}

// zzState is the target of the pipe stress test: per writer goroutine, the index of its
// last applied write.
type zzState struct{ last [8]int }

// The Guarded pipe under concurrent writers, readers, flushes and discards: no deadlock
// (watchdog), every task completes, every write completes with nil or ErrDiscarded exactly
// once, and in ReadersWait a read observes exactly its goroutine's last applied earlier write.
func TestZZGuardedStress(t *testing.T) {
	for _, mode := range []lazyguarded.ReaderMode{lazyguarded.ReadersWait, lazyguarded.ReadersPass} {
		t.Run(mode.String(), func(t *testing.T) {
			var st zzState
			var g *lazyguarded.Guarded[zzState]
			if mode == lazyguarded.ReadersWait {
				g = lazyguarded.NewReadersWait(&st)
			} else {
				g = lazyguarded.NewReadersPass(&st)
			}
			const W, N = 8, 400
			type rd struct {
				after int // index of the goroutine's last write submitted before the read
				saw   int
				task  *lazyguarded.Task
			}
			writes := make([][]*lazyguarded.Task, W)
			reads := make([][]*rd, W)
			var wg sync.WaitGroup
			stop := make(chan struct{})
			var flusher sync.WaitGroup
			flusher.Add(2)
			for f := range 2 { // two goroutines flushing and discarding
				go func() {
					defer flusher.Done()
					rng := rand.New(rand.NewPCG(uint64(f), 7))
					for {
						select {
						case <-stop:
							return
						default:
						}
						if rng.IntN(10) == 0 {
							if _, err := g.Discard(); err != nil && !errors.Is(err, lazyguarded.ErrFlushing) {
								t.Errorf("discard: %v", err)
							}
						} else if err := g.Flush(); err != nil && !errors.Is(err, lazyguarded.ErrFlushing) {
							t.Errorf("flush: %v", err)
						}
					}
				}()
			}
			for i := range W {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(i), 1))
					k := 0
					for range N {
						if rng.IntN(3) == 0 {
							r := &rd{after: k}
							r.task = g.Read(func(s *zzState) error { r.saw = s.last[i]; return nil })
							reads[i] = append(reads[i], r)
							continue
						}
						k++
						idx := k
						writes[i] = append(writes[i], g.Write(func(s *zzState) error {
							if s.last[i] >= idx {
								t.Errorf("writer %d: write %d applied after write %d", i, idx, s.last[i])
							}
							s.last[i] = idx
							return nil
						}))
					}
				}()
			}
			wg.Wait()
			close(stop)
			flusher.Wait()
			if err := g.Flush(); err != nil {
				t.Fatal(err)
			}
			deadline := time.After(20 * time.Second)
			applied := make([][]bool, W)
			for i := range W {
				applied[i] = make([]bool, len(writes[i])+1)
				for k, task := range writes[i] {
					select {
					case <-task.Done():
					case <-deadline:
						t.Fatalf("writer %d write %d never completed (deadlock?)", i, k+1)
					}
					switch err := task.Wait(); {
					case err == nil:
						applied[i][k+1] = true
					case errors.Is(err, lazyguarded.ErrDiscarded):
					default:
						t.Errorf("write task error: %v", err)
					}
				}
				for _, r := range reads[i] {
					select {
					case <-r.task.Done():
					case <-deadline:
						t.Fatalf("reader of %d never completed (deadlock?)", i)
					}
					if r.saw > r.after {
						t.Errorf("writer %d: a read submitted after write %d saw write %d", i, r.after, r.saw)
					}
					if mode == lazyguarded.ReadersWait {
						want := 0
						for k := r.after; k > 0; k-- {
							if applied[i][k] {
								want = k
								break
							}
						}
						if r.saw != want {
							t.Errorf("writer %d: read after write %d saw %d, want last applied %d", i, r.after, r.saw, want)
						}
					}
				}
			}
			if p := g.Pending(); p != 0 {
				t.Errorf("pending = %d after final flush", p)
			}
		})
	}
}

// A closure stages a create and a destroy of its placeholder, and a later command of the same
// commit fails. The retry (after the failing command is fixed) applies the closure's create
// and destroy too: the destroy must reach the entity, which leaves only the fixed one.
func TestZZClosurePlaceholderRetried(t *testing.T) {
	w := ecs.NewWorld()
	s := lazyguarded.Factory(w)
	r := s.NewRecorder()
	target, _ := w.Create(ecs.Bundle{})
	r.Do(func(*ecs.World) error {
		q := r.Create(zzC.Value(zzVal{1}))
		r.Destroy(q)
		return nil
	})
	r.Set(target, zzC.Value(zzVal{1})) // fails: target lacks the component
	if err := s.Commit(); !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("commit: %v, want ErrMissingComponent", err)
	}
	if err := w.Add(target, zzC.Value(zzVal{1})); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3 && (i == 0 || s.Pending() > 0); i++ {
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if w.Len() != 1 {
		t.Errorf("world has %d entities, want 1: the destroy of the closure's placeholder was skipped", w.Len())
	}
}

// A command a closure stages during a commit is the first of its recorder's FIFO in the next
// commit: when it fails, the error names index 0 (positions count from the last commit that
// drained), as for every other strategy.
func TestZZPositionOfCommandStagedDuringCommit(t *testing.T) {
	w := ecs.NewWorld()
	s := lazyguarded.NewECS(w, lazyguarded.ReadersWait)
	r := s.NewRecorder()
	target, _ := w.Create(ecs.Bundle{})
	r.Create(zzC.Value(zzVal{1}))
	r.Do(func(*ecs.World) error {
		r.Set(target, zzC.Value(zzVal{2})) // fails at the next commit: target lacks C
		return nil
	})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	err := s.Commit()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("commit: %v, want a *deferral.CommandError", err)
	}
	if ce.Pos != (deferral.Pos{Recorder: r.Index(), Index: 0}) {
		t.Errorf("error names %+v, want recorder %d index 0", ce.Pos, r.Index())
	}
}
