package cmdbuffer_test

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

type draw struct{ Mesh, Material int }

type queue struct{ draws []draw }

func submit(q *queue, _ deferral.Pos, c *draw) error {
	if c.Mesh < 0 {
		return errors.New("negative mesh")
	}
	q.draws = append(q.draws, *c)
	return nil
}

func TestGenericFIFOAndClosures(t *testing.T) {
	var q queue
	b := cmdbuffer.New(&q, submit)
	r0, r1 := b.NewRecorder(), b.NewRecorder()
	r1.Stage(draw{10, 0})
	r0.Stage(draw{1, 0})
	r0.StageFunc(func(q *queue) error { q.draws = append(q.draws, draw{-1, -1}); return nil })
	r0.Stage(draw{2, 0})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []draw{{1, 0}, {-1, -1}, {2, 0}, {10, 0}}
	if !slices.Equal(q.draws, want) {
		t.Fatalf("applied %v, want %v", q.draws, want)
	}
}

func TestGenericFailureRetry(t *testing.T) {
	var q queue
	b := cmdbuffer.New(&q, submit)
	r := b.NewRecorder()
	r.Stage(draw{1, 0})
	r.Stage(draw{-5, 0})
	r.Stage(draw{3, 0})
	err := b.Commit()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || ce.Pos != (deferral.Pos{Recorder: 0, Index: 1}) || ce.Verb != deferral.VerbTyped {
		t.Fatalf("commit = %#v, want a CommandError at recorder 0 index 1, verb typed", err)
	}
	if err == nil || b.Pending() != 2 || len(q.draws) != 1 {
		t.Fatalf("commit = %v, pending %d, applied %v; want error, 2 pending, 1 applied", err, b.Pending(), q.draws)
	}
	b.Discard()
	r.Stage(draw{4, 0})
	if err := b.Commit(); err != nil || !slices.Equal(q.draws, []draw{{1, 0}, {4, 0}}) {
		t.Fatalf("after discard: %v %v", err, q.draws)
	}
}

func TestHooksSortDedupReduce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hooks cmdbuffer.Hooks[draw]
		want  []draw
	}{
		{"sort", cmdbuffer.Hooks[draw]{Sort: func(a, b *draw) int { return cmp.Compare(a.Material, b.Material) }},
			[]draw{{2, 1}, {1, 3}, {1, 3}, {-1, -1}, {5, 0}, {3, 2}}},
		{"dedup", cmdbuffer.Hooks[draw]{Key: func(c *draw) uint64 { return uint64(c.Mesh) }, Dedup: true},
			[]draw{{2, 1}, {1, 3}, {-1, -1}, {3, 2}, {5, 0}}},
		{"reduce", cmdbuffer.Hooks[draw]{Key: func(c *draw) uint64 { return uint64(c.Mesh) }, Reduce: func(acc, next *draw) { acc.Material += next.Material }},
			[]draw{{1, 6}, {2, 1}, {-1, -1}, {3, 2}, {5, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q queue
			b := cmdbuffer.New(&q, submit)
			b.SetHooks(tc.hooks)
			r := b.NewRecorder()
			r.Stage(draw{1, 3})
			r.Stage(draw{2, 1})
			r.Stage(draw{1, 3})
			r.StageFunc(func(q *queue) error { q.draws = append(q.draws, draw{-1, -1}); return nil })
			r.Stage(draw{3, 2})
			r.Stage(draw{5, 0})
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(q.draws, tc.want) {
				t.Fatalf("applied %v, want %v", q.draws, tc.want)
			}
		})
	}
}

// Example shows the generic tier: a render queue as the target, typed draw commands, a
// sort-by-material hook, two producers.
func Example() {
	var q queue
	b := cmdbuffer.New(&q, submit)
	b.SetHooks(cmdbuffer.Hooks[draw]{Sort: func(a, b *draw) int { return cmp.Compare(a.Material, b.Material) }})
	anim, fx := b.NewRecorder(), b.NewRecorder() // one per producer goroutine
	anim.Stage(draw{Mesh: 7, Material: 2})
	fx.Stage(draw{Mesh: 9, Material: 1})
	if err := b.Commit(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(q.draws)
	// Output: [{9 1} {7 2}]
}

// TestRetainKeepsAppliedUntilRelease: with SetRetain, the records Commit passed to the apply
// function stay valid and unchanged until Release, even when a closure stages during the
// commit; kept records are not pending; Release (or the next Commit) drops them.
func TestRetainKeepsAppliedUntilRelease(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			var q queue
			var seen []*draw
			b := cmdbuffer.New(&q, func(q *queue, at deferral.Pos, c *draw) error {
				seen = append(seen, c)
				return submit(q, at, c)
			})
			b.SetRetain(true)
			r0, r1 := b.NewRecorder(), b.NewRecorder()
			if keyed {
				r1.SetSortKey(1)
			}
			for range 8 { // grow r0's buffer: the record staged during the commit reuses it
				r0.Stage(draw{})
			}
			b.Discard()
			r0.Stage(draw{1, 0})
			r1.Stage(draw{2, 0})
			r0.StageFunc(func(*queue) error { r0.Stage(draw{99, 0}); return nil }) // staged during the commit
			r0.Stage(draw{3, 0})
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if b.Pending() != 1 {
				t.Fatalf("pending after a retained commit: %d, want 1 (the record the closure staged)", b.Pending())
			}
			var got []draw
			for _, c := range seen {
				got = append(got, *c)
			}
			want := []draw{{1, 0}, {3, 0}, {2, 0}} // recorder 0 (or key 0) first, FIFO within it
			if !slices.Equal(got, want) || !slices.Equal(q.draws, want) {
				t.Fatalf("kept records %v, applied %v; want %v", got, q.draws, want)
			}
			b.Release()
			b.Release() // no-op
			seen, q.draws = nil, nil
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(q.draws, []draw{{99, 0}}) || b.Pending() != 0 {
				t.Fatalf("after Release: applied %v, pending %d; want [{99 0}], 0", q.draws, b.Pending())
			}
			r1.Stage(draw{4, 0})
			if err := b.Commit(); err != nil { // releases the previous commit's records first
				t.Fatal(err)
			}
			if !slices.Equal(q.draws, []draw{{99, 0}, {4, 0}}) {
				t.Fatalf("applied %v after a second retained commit", q.draws)
			}
			if n := b.Discard(); n != 0 || b.Pending() != 0 {
				t.Fatalf("Discard of kept records: %d, pending %d; kept records are not pending", n, b.Pending())
			}
		})
	}
}

// wantNilClosureAt checks err is the commit error of a nil closure at pos: a
// *deferral.CommandError of verb VerbFunc naming pos and wrapping deferral.ErrInvalidCommand.
func wantNilClosureAt(t *testing.T, op string, err error, pos deferral.Pos) {
	t.Helper()
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || ce.Pos != pos || ce.Verb != deferral.VerbFunc || !errors.Is(err, deferral.ErrInvalidCommand) {
		t.Fatalf("%s: commit = %v, want a *deferral.CommandError (func) at %+v wrapping ErrInvalidCommand", op, err, pos)
	}
}

// TestGenericNilClosure: a nil closure staged through the generic tier — StageFunc or
// StageFuncKeyed, unkeyed, keyed, with hooks, or from inside a commit by another closure —
// never panics: the commit fails at it with a *deferral.CommandError wrapping
// deferral.ErrInvalidCommand, the commands before it stay applied, it and those after it stay
// pending (a retry fails at it again), and Discard drops them.
func TestGenericNilClosure(t *testing.T) {
	for _, tc := range []struct {
		name string
		// stage stages on b and returns the position the commit fails at, the draws applied
		// before it and how many commands stay pending.
		stage   func(b *cmdbuffer.Buffer[queue, draw]) (deferral.Pos, []draw, int)
		commits int // drained commits before the failing one
	}{
		{"unkeyed", func(b *cmdbuffer.Buffer[queue, draw]) (deferral.Pos, []draw, int) {
			r := b.NewRecorder()
			r.Stage(draw{1, 0})
			r.StageFunc(nil)
			r.Stage(draw{2, 0})
			return deferral.Pos{Recorder: 0, Index: 1}, []draw{{1, 0}}, 2
		}, 0},
		{"keyed", func(b *cmdbuffer.Buffer[queue, draw]) (deferral.Pos, []draw, int) {
			r0, r1 := b.NewRecorder(), b.NewRecorder()
			r1.Stage(draw{10, 0})        // key 0: first
			r1.StageFuncKeyed(2, nil)    // key 2: fails
			r0.StageKeyed(3, draw{3, 0}) // key 3: pending
			r0.SetSortKey(1)
			r0.Stage(draw{1, 0}) // key 1: second
			return deferral.Pos{Recorder: 1, Index: 1}, []draw{{10, 0}, {1, 0}}, 2
		}, 0},
		{"sort-key-set", func(b *cmdbuffer.Buffer[queue, draw]) (deferral.Pos, []draw, int) {
			r := b.NewRecorder()
			r.SetSortKey(4)
			r.Stage(draw{1, 0})
			r.StageFunc(nil)
			r.Stage(draw{2, 0})
			return deferral.Pos{Recorder: 0, Index: 1}, []draw{{1, 0}}, 2
		}, 0},
		{"hooks", func(b *cmdbuffer.Buffer[queue, draw]) (deferral.Pos, []draw, int) {
			b.SetHooks(cmdbuffer.Hooks[draw]{Sort: func(a, c *draw) int { return cmp.Compare(a.Material, c.Material) }})
			r := b.NewRecorder()
			r.Stage(draw{1, 2})
			r.Stage(draw{2, 1})
			r.StageFunc(nil) // a barrier: the sort does not move commands across it
			r.Stage(draw{3, 0})
			return deferral.Pos{Recorder: 0, Index: 2}, []draw{{2, 1}, {1, 2}}, 2
		}, 0},
		{"staged-during-commit", func(b *cmdbuffer.Buffer[queue, draw]) (deferral.Pos, []draw, int) {
			r := b.NewRecorder()
			r.StageFunc(func(*queue) error { r.StageFunc(nil); return nil })
			r.Stage(draw{1, 0})
			return deferral.Pos{Recorder: 0, Index: 0}, []draw{{1, 0}}, 1
		}, 1},
		{"staged-during-keyed-commit", func(b *cmdbuffer.Buffer[queue, draw]) (deferral.Pos, []draw, int) {
			r := b.NewRecorder()
			r.SetSortKey(9)
			r.StageFunc(func(*queue) error { r.StageFuncKeyed(1, nil); return nil })
			r.Stage(draw{1, 0})
			return deferral.Pos{Recorder: 0, Index: 0}, []draw{{1, 0}}, 1
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q queue
			b := cmdbuffer.New(&q, submit)
			pos, applied, pending := tc.stage(b)
			for i := range tc.commits {
				if err := b.Commit(); err != nil {
					t.Fatalf("commit %d (the nil closure is staged during it): %v", i, err)
				}
			}
			wantNilClosureAt(t, "commit", b.Commit(), pos)
			if !slices.Equal(q.draws, applied) || b.Pending() != pending {
				t.Fatalf("after the failed commit: applied %v, pending %d; want %v, %d", q.draws, b.Pending(), applied, pending)
			}
			wantNilClosureAt(t, "retry", b.Commit(), pos)
			if !slices.Equal(q.draws, applied) || b.Pending() != pending {
				t.Fatalf("after the retry: applied %v, pending %d; want %v, %d (nothing replayed or skipped past)", q.draws, b.Pending(), applied, pending)
			}
			if n := b.Discard(); n != pending {
				t.Fatalf("discard = %d, want %d", n, pending)
			}
			r := b.NewRecorder()
			r.Stage(draw{7, 0})
			if err := b.Commit(); err != nil || q.draws[len(q.draws)-1] != (draw{7, 0}) || b.Pending() != 0 {
				t.Fatalf("after discard: commit = %v, applied %v, pending %d", err, q.draws, b.Pending())
			}
		})
	}
}

// TestGenericClosurePanicKeepsPending: a closure that panics during Commit — unkeyed or keyed
// — passes the panic to the caller and leaves itself and the commands after it pending, the
// ones before it applied; the buffer stays usable: the retry applies the rest once, and a
// second panic followed by Discard drops what was pending.
func TestGenericClosurePanicKeepsPending(t *testing.T) {
	for _, key := range []uint64{0, 3} {
		t.Run(fmt.Sprintf("key=%d", key), func(t *testing.T) {
			var q queue
			b := cmdbuffer.New(&q, submit)
			r := b.NewRecorder()
			r.SetSortKey(key)
			panicking := true
			stage := func(n int) {
				r.Stage(draw{n, 0})
				r.StageFunc(func(*queue) error {
					if panicking {
						panic("closure panics on purpose")
					}
					return nil
				})
				r.Stage(draw{n + 1, 0})
			}
			commitPanics := func(op string) {
				t.Helper()
				defer func() {
					if recover() == nil {
						t.Fatalf("%s: the closure's panic did not reach the caller", op)
					}
				}()
				b.Commit()
			}
			stage(1)
			commitPanics("commit")
			if !slices.Equal(q.draws, []draw{{1, 0}}) || b.Pending() != 2 {
				t.Fatalf("after the panic: applied %v, pending %d; want [{1 0}], 2", q.draws, b.Pending())
			}
			panicking = false
			if err := b.Commit(); err != nil || !slices.Equal(q.draws, []draw{{1, 0}, {2, 0}}) || b.Pending() != 0 {
				t.Fatalf("retry: %v, applied %v, pending %d; want nil, [{1 0} {2 0}], 0", err, q.draws, b.Pending())
			}
			panicking = true
			stage(3)
			commitPanics("second commit")
			if n := b.Discard(); n != 2 {
				t.Fatalf("discard after the panic = %d, want 2", n)
			}
			r.Stage(draw{9, 0})
			if err := b.Commit(); err != nil || !slices.Equal(q.draws, []draw{{1, 0}, {2, 0}, {3, 0}, {9, 0}}) {
				t.Fatalf("after discard: %v, applied %v", err, q.draws)
			}
		})
	}
}

// TestRunApplier: with a run applier, Commit hands each run of typed records between closures
// to it in one call, and a failure inside a run keeps that record and the rest pending, named
// by its position counting closures, exactly as command-by-command apply does.
func TestRunApplier(t *testing.T) {
	for _, runs := range []bool{false, true} {
		q := &queue{}
		b := cmdbuffer.New(q, submit)
		var calls [][]int
		if runs {
			b.SetRunApplier(func(q *queue, at deferral.Pos, cs []draw, applied *int) error {
				var meshes []int
				for i := range cs {
					meshes = append(meshes, cs[i].Mesh)
				}
				calls = append(calls, meshes)
				for i := range cs {
					if err := submit(q, at, &cs[i]); err != nil {
						return &deferral.CommandError{Pos: deferral.Pos{Recorder: at.Recorder, Index: at.Index + i}, Verb: deferral.VerbTyped, Err: err}
					}
					*applied++
				}
				return nil
			})
		}
		r := b.NewRecorder()
		r.Stage(draw{Mesh: 1})
		r.Stage(draw{Mesh: 2})
		r.StageFunc(func(q *queue) error { q.draws = append(q.draws, draw{Mesh: 100}); return nil })
		r.Stage(draw{Mesh: 3})
		r.Stage(draw{Mesh: -4})
		r.Stage(draw{Mesh: 5})
		err := b.Commit()
		var ce *deferral.CommandError
		if !errors.As(err, &ce) || ce.Pos != (deferral.Pos{Recorder: 0, Index: 4}) {
			t.Fatalf("runs %v: Commit = %v; want a failure at index 4 (closures count)", runs, err)
		}
		if got := meshes(q); !slices.Equal(got, []int{1, 2, 100, 3}) || b.Pending() != 2 {
			t.Errorf("runs %v: applied %v with %d pending; want [1 2 100 3] and 2", runs, got, b.Pending())
		}
		if runs && !slices.EqualFunc(calls, [][]int{{1, 2}, {3, -4, 5}}, slices.Equal) {
			t.Errorf("runs handed over %v; want [[1 2] [3 -4 5]]", calls)
		}
	}
}

func meshes(q *queue) []int {
	var m []int
	for _, d := range q.draws {
		m = append(m, d.Mesh)
	}
	return m
}

// TestGenericApplyPanicKeepsPending: an apply function that panics in the middle of a run of
// typed commands — applied command by command or by a run applier — passes the panic to the
// caller and leaves that command and the ones after it pending; the ones before it are applied
// once, not again by the retry.
func TestGenericApplyPanicKeepsPending(t *testing.T) {
	for _, runs := range []bool{false, true} {
		t.Run(fmt.Sprintf("runs=%v", runs), func(t *testing.T) {
			q := &queue{}
			panicking := true
			apply := func(q *queue, at deferral.Pos, c *draw) error {
				if panicking && c.Mesh == 3 {
					panic("apply panics on purpose")
				}
				return submit(q, at, c)
			}
			b := cmdbuffer.New(q, apply)
			if runs {
				b.SetRunApplier(func(q *queue, at deferral.Pos, cs []draw, applied *int) error {
					for i := range cs {
						if err := apply(q, at, &cs[i]); err != nil {
							return err
						}
						*applied++
					}
					return nil
				})
			}
			r := b.NewRecorder()
			for m := 1; m <= 4; m++ {
				r.Stage(draw{Mesh: m})
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Error("Commit did not pass the apply function's panic on")
					}
				}()
				_ = b.Commit()
			}()
			if got := meshes(q); !slices.Equal(got, []int{1, 2}) || b.Pending() != 2 {
				t.Fatalf("after the panic: applied %v with %d pending; want [1 2] and 2", got, b.Pending())
			}
			panicking = false
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := meshes(q); !slices.Equal(got, []int{1, 2, 3, 4}) || b.Pending() != 0 {
				t.Errorf("after the retry: applied %v with %d pending; want [1 2 3 4] and 0", got, b.Pending())
			}
		})
	}
}

// TestRunApplierMiscountPanics: a run applier that returns nil without counting the commands it
// applied makes Commit panic with a message naming the mistake, rather than hand it the same
// run forever.
func TestRunApplierMiscountPanics(t *testing.T) {
	q := &queue{}
	b := cmdbuffer.New(q, submit)
	b.SetRunApplier(func(q *queue, at deferral.Pos, cs []draw, _ *int) error {
		for i := range cs {
			if err := submit(q, at, &cs[i]); err != nil {
				return err
			}
		}
		return nil // forgot to count
	})
	r := b.NewRecorder()
	r.Stage(draw{Mesh: 1})
	r.Stage(draw{Mesh: 2})
	defer func() {
		if v, _ := recover().(string); !strings.Contains(v, "run applier counted 0 of a run of 2") {
			t.Errorf("Commit panicked with %q; want a message naming the miscount", v)
		}
	}()
	_ = b.Commit()
	t.Error("Commit returned; want a panic")
}

// TestStageAll: StageAll of a batch commits exactly as Stage of each command would, with and
// without a sort key, and does not keep the caller's slice.
func TestStageAll(t *testing.T) {
	for _, key := range []uint64{0, 5} {
		run := func(all bool) []int {
			q := &queue{}
			b := cmdbuffer.New(q, submit)
			r0, r1 := b.NewRecorder(), b.NewRecorder()
			r1.SetSortKey(3)
			r1.Stage(draw{Mesh: 100})
			r0.SetSortKey(key)
			batch := []draw{{Mesh: 1}, {Mesh: 2}, {Mesh: 3}}
			if all {
				r0.StageAll(batch)
				batch[0].Mesh = 99 // the recorder copied it
			} else {
				for _, d := range batch {
					r0.Stage(d)
				}
			}
			r0.Stage(draw{Mesh: 4})
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			return meshes(q)
		}
		if got, want := run(true), run(false); !slices.Equal(got, want) {
			t.Errorf("key %d: StageAll committed %v, Stage of each %v", key, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		b := benchBuf
		b.r.StageAll(b.batch[:])
		b.b.Discard()
	}); n != 0 {
		t.Errorf("StageAll into a warm recorder: %v allocations, want 0", n)
	}
}

var benchBuf = func() (x struct {
	b     *cmdbuffer.Buffer[queue, draw]
	r     *cmdbuffer.Recorder[queue, draw]
	batch [8]draw
}) {
	x.b = cmdbuffer.New(&queue{}, submit)
	x.r = x.b.NewRecorder()
	x.r.StageAll(x.batch[:])
	x.b.Discard()
	return x
}()
