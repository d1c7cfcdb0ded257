package lazyguarded_test

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

type zzVal struct{ N int64 }

var zzC = ecs.NewComponent[zzVal]("zzlg.C", nil)

// zzState is the target of the pipe stress test: per writer goroutine, the index of its
// last applied write.
type zzState struct{ last [8]int }

// The Guarded pipe under concurrent writers, readers, flushes and discards: no deadlock
// (watchdog), every task completes, every write completes with nil or ErrDiscarded exactly
// once, and in ReadersWait a read observes exactly its goroutine's last applied earlier write.
func TestGuardedStress(t *testing.T) {
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
