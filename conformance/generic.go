package conformance

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
)

// Ints is the target of TestGeneric, a target of the user's own type: the values its typed
// commands appended, in the order they were applied, and the position each was applied at.
type Ints struct {
	V  []int
	At []deferral.Pos
}

// ErrNegative is the error ApplyInt fails with for a negative value: TestGeneric's failing
// typed command.
var ErrNegative = errors.New("conformance: negative value")

// ApplyInt is the apply function of TestGeneric's buffers: it appends *c and at to t. A
// negative *c changes nothing and fails with a *deferral.CommandError (verb VerbTyped) naming
// at and wrapping ErrNegative, so that the suite reads the position the strategy passed.
func ApplyInt(t *Ints, at deferral.Pos, c *int) error {
	if *c < 0 {
		return &deferral.CommandError{Pos: at, Verb: deferral.VerbTyped, Err: ErrNegative}
	}
	t.V = append(t.V, *c)
	t.At = append(t.At, at)
	return nil
}

// GenericRecorder is one producer's recorder of a strategy's generic tier over Ints, used
// from one goroutine at a time.
type GenericRecorder interface {
	// Stage stages typed command c with the recorder's sort key in force (0 unless set).
	Stage(c int)
	// StageKeyed stages c with sort key k (deferral.Stager).
	StageKeyed(k uint64, c int)
	// StageFunc stages a closure over the target.
	StageFunc(fn func(t *Ints) error)
	// Index is the recorder's number, as positions name it.
	Index() int
	// Done says the producer has staged all it stages before the next commit
	// (handrolled's Handover; nothing where staging needs no hand-over).
	Done()
}

// Generic is a strategy's generic tier over Ints, built with ApplyInt, as TestGeneric drives
// it: what its recorders stage into and its sync point, called by the owner at a point where
// no recorder stages.
type Generic interface {
	NewRecorder() GenericRecorder
	// Commit applies what is pending (lazyguarded's Flush); on a failing command it leaves
	// that command and the ones after it pending (the deferral failure policy) and returns
	// the command's error.
	Commit() error
	// Discard drops what is pending and returns how many commands it dropped.
	Discard() int
	// Pending returns how many staged commands no commit has applied.
	Pending() int
}

// TaskStager is implemented by a GenericRecorder whose staged commands each have a task
// (lazyguarded's): StageTask stages c as Stage does and returns c's task, which completes
// with nil once a commit applied c, and with an error once Discard dropped it.
type TaskStager interface{ StageTask(c int) ReadTask }

// SortKeySetter is implemented by a GenericRecorder whose sort key in force can be set for
// the commands Stage and StageFunc stage after it (cmdbuffer's Recorder.SetSortKey).
type SortKeySetter interface{ SetSortKey(k uint64) }

// MakeGeneric returns a Generic over t.
type MakeGeneric func(t *Ints) Generic

// GenericOrder is the order in which a Generic's commit applies the commands of different
// recorders; every order keeps each recorder's own commands in the order they were staged.
type GenericOrder int

const (
	// ByRecorder applies by recorder number, each recorder's commands together (after the
	// sort key, where keys are honoured): cmdbuffer, hybrid.
	ByRecorder GenericOrder = iota
	// ByHandover applies each recorder's commands together, recorders in the order they
	// said Done: handrolled.
	ByHandover
	// BySubmission applies commands in the order they were staged, across recorders (one
	// FIFO pipe): lazyguarded.
	BySubmission
)

// GenericOptions says what TestGeneric expects of a strategy's generic tier.
type GenericOptions struct {
	Order GenericOrder
	// SortKeys: the commit applies by (sort key, recorder, FIFO); otherwise keys are
	// accepted and ignored.
	SortKeys bool
}

// TestGeneric runs the suite of a strategy's generic tier (a target of the user's own type,
// typed commands applied by a user's function, closures over the target) against the
// Generic mk makes over a fresh Ints, each row under the watchdog:
//
//	func TestConformanceGeneric(t *testing.T) {
//		conformance.TestGeneric(t, makeGeneric, conformance.GenericOptions{Order: conformance.ByRecorder, SortKeys: true})
//	}
//
// Rows: each recorder's commands apply in FIFO order with positions (recorder, FIFO index
// since the last drained commit or discard); recorders in the declared order; the failure
// policy for a typed command and a closure (prefix applied, the failing command and its
// suffix pending, its position in the error, the retry failing at the same command, Discard
// dropping exactly what is pending and positions counting from 0 again); concurrent
// recorders; reuse over frames; sort keys where honoured; a Commit or Discard called by a
// closure during a commit refused, changing nothing; a nil closure staged without a panic,
// failing the commit at its place.
func TestGeneric(t *testing.T, mk MakeGeneric, opt GenericOptions) {
	t.Helper()
	if mk == nil {
		t.Fatal("conformance.TestGeneric: MakeGeneric is nil")
	}
	rows := []genericRow{
		{"GenericFIFO", checkGenericFIFO},
		{"GenericRecorderOrder", func(x *fixture, g Generic, t *Ints) { checkGenericOrder(x, g, t, opt.Order) }},
		{"GenericTypedFailure", func(x *fixture, g Generic, t *Ints) { checkGenericFailure(x, g, t, false) }},
		{"GenericClosureFailure", func(x *fixture, g Generic, t *Ints) { checkGenericFailure(x, g, t, true) }},
		{"GenericConcurrentRecorders", checkGenericConcurrent},
		{"GenericFrames", checkGenericFrames},
		{"GenericSortKeys", func(x *fixture, g Generic, t *Ints) { checkGenericKeys(x, g, t, opt) }},
		{"GenericReentryRefused", checkGenericReentry},
		{"GenericNilClosure", checkGenericNilClosure},
	}
	if _, ok := mk(&Ints{}).NewRecorder().(TaskStager); ok {
		rows = append(rows, genericRow{"GenericTasks", checkGenericTasks})
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Helper()
			watch(t, r.name, Timeout, func(ct *checkT) *fixture { return &fixture{TB: ct} }, func(x *fixture) {
				target := &Ints{}
				r.fn(x, mk(target), target)
			})
		})
	}
}

// genericRow is one row of TestGeneric: its name and its check over a fresh Generic and its
// target.
type genericRow struct {
	name string
	fn   func(x *fixture, g Generic, t *Ints)
}

// wantInts checks the target's values and their positions.
func wantInts(x *fixture, op string, t *Ints, v []int, at []deferral.Pos) {
	x.Helper()
	if !slices.Equal(t.V, v) {
		x.Errorf("%s: target holds %v, want %v", op, t.V, v)
	}
	if at != nil && !slices.Equal(t.At, at) {
		x.Errorf("%s: commands applied at positions %v, want %v", op, t.At, at)
	}
}

// pos is shorthand for a position.
func pos(r, i int) deferral.Pos { return deferral.Pos{Recorder: r, Index: i} }

// checkGenericFIFO: recorders are numbered from 0 in the order minted; one recorder's typed
// commands and closures apply in the order staged, each typed command at (recorder, its FIFO
// index); Pending counts both until the commit.
func checkGenericFIFO(x *fixture, g Generic, t *Ints) {
	first := g.NewRecorder() // staging nothing
	first.Done()
	r := g.NewRecorder()
	want(x, "the first recorder's number", first.Index(), 0)
	want(x, "the second recorder's number", r.Index(), 1)
	r.Stage(1)
	r.Stage(2)
	r.StageFunc(func(t *Ints) error { t.V = append(t.V, 100); return nil })
	r.Stage(3)
	r.Done()
	want(x, "pending before the commit", g.Pending(), 4)
	x.wantNil("commit", g.Commit())
	want(x, "pending after the commit", g.Pending(), 0)
	i := r.Index()
	wantInts(x, "after the commit", t, []int{1, 2, 100, 3}, []deferral.Pos{pos(i, 0), pos(i, 1), pos(i, 3)})
	x.wantNil("commit with nothing staged", g.Commit())
	wantInts(x, "after a commit with nothing staged", t, []int{1, 2, 100, 3}, nil)
}

// checkGenericOrder: three recorders staging interleaved, saying Done in the order 2, 0, 1,
// apply in the declared order.
func checkGenericOrder(x *fixture, g Generic, t *Ints, order GenericOrder) {
	rs := []GenericRecorder{g.NewRecorder(), g.NewRecorder(), g.NewRecorder()}
	rs[1].Stage(10)
	rs[0].Stage(1)
	rs[2].Stage(20)
	rs[1].Stage(11)
	rs[0].Stage(2)
	for _, i := range []int{2, 0, 1} {
		rs[i].Done()
	}
	x.wantNil("commit", g.Commit())
	var v []int
	switch order {
	case ByRecorder:
		v = []int{1, 2, 10, 11, 20}
	case ByHandover:
		v = []int{20, 1, 2, 10, 11}
	case BySubmission:
		v = []int{10, 1, 20, 11, 2}
	default:
		x.Fatalf("conformance.TestGeneric: unknown GenericOrder %d", order)
	}
	wantInts(x, fmt.Sprintf("commit of three recorders (order %d)", order), t, v, nil)
	for k, val := range t.V {
		rec := map[int]int{1: 0, 2: 0, 10: 1, 11: 1, 20: 2}[val]
		idx := map[int]int{1: 0, 2: 1, 10: 0, 11: 1, 20: 0}[val]
		if k < len(t.At) && t.At[k] != pos(rs[rec].Index(), idx) {
			x.Errorf("value %d applied at %+v, want %+v", val, t.At[k], pos(rs[rec].Index(), idx))
		}
	}
}

// checkGenericFailure: the third command fails (a typed command, or a closure): the commit
// applies the two before it and returns its error, naming its position; the failing command
// and the one after it stay pending; a retry fails at the same command; Discard drops the
// two, and the next commit numbers positions from 0 again.
func checkGenericFailure(x *fixture, g Generic, t *Ints, closure bool) {
	errClosure := errors.New("closure failed")
	r := g.NewRecorder()
	r.Stage(1)
	r.Stage(2)
	cause := ErrNegative
	if closure {
		cause = errClosure
		r.StageFunc(func(*Ints) error { return errClosure })
	} else {
		r.Stage(-3)
	}
	r.Stage(4)
	r.Done()
	i := r.Index()
	for _, op := range []string{"commit", "retry"} {
		err := g.Commit()
		x.wantIs(op, err, cause)
		var ce *deferral.CommandError
		if !errors.As(err, &ce) {
			x.Errorf("%s: error %v is no *deferral.CommandError", op, err)
		} else if ce.Pos != pos(i, 2) {
			x.Errorf("%s: error names position %+v, want the failing command's %+v", op, ce.Pos, pos(i, 2))
		}
		want(x, "pending after a failed "+op, g.Pending(), 2)
		wantInts(x, "after a failed "+op, t, []int{1, 2}, []deferral.Pos{pos(i, 0), pos(i, 1)})
	}
	want(x, "commands Discard dropped", g.Discard(), 2)
	want(x, "pending after Discard", g.Pending(), 0)
	r.Stage(5)
	r.Done()
	x.wantNil("commit after Discard", g.Commit())
	wantInts(x, "after Discard and a commit", t, []int{1, 2, 5}, []deferral.Pos{pos(i, 0), pos(i, 1), pos(i, 0)})
}

// checkGenericConcurrent: four recorders staging 500 commands each from their own
// goroutines: the commit applies all 2000, each recorder's in FIFO order at its positions.
func checkGenericConcurrent(x *fixture, g Generic, t *Ints) {
	const producers, n = 4, 500
	rs := make([]GenericRecorder, producers)
	for p := range rs {
		rs[p] = g.NewRecorder()
	}
	var wg sync.WaitGroup
	for p, r := range rs {
		wg.Go(func() {
			for k := range n {
				r.Stage(p*n + k)
			}
			r.Done()
		})
	}
	wg.Wait()
	want(x, "pending", g.Pending(), producers*n)
	x.wantNil("commit", g.Commit())
	want(x, "commands applied", len(t.V), producers*n)
	next := make([]int, producers)
	for k, v := range t.V {
		p := v / n
		if p < 0 || p >= producers || v%n != next[p] {
			x.Fatalf("value %d applied after %d of recorder %d's: want each recorder's values in FIFO order", v, next[min(max(p, 0), producers-1)], p)
		}
		if k < len(t.At) && t.At[k] != pos(rs[p].Index(), next[p]) {
			x.Errorf("value %d applied at %+v, want %+v", v, t.At[k], pos(rs[p].Index(), next[p]))
		}
		next[p]++
	}
}

// checkGenericFrames: three frames, each staging on the same two recorders and committing,
// apply only that frame's commands, with positions from 0 each frame.
func checkGenericFrames(x *fixture, g Generic, t *Ints) {
	a, b := g.NewRecorder(), g.NewRecorder()
	for frame := range 3 {
		t.V, t.At = t.V[:0], t.At[:0]
		for k := range frame + 1 {
			a.Stage(frame*10 + k)
		}
		b.StageFunc(func(t *Ints) error { t.V = append(t.V, -1-frame); return nil })
		a.Done()
		b.Done()
		x.wantNil(fmt.Sprintf("commit of frame %d", frame), g.Commit())
		var got []int
		for _, v := range t.V {
			if v >= 0 {
				got = append(got, v)
			}
		}
		wantV := make([]int, frame+1)
		wantAt := make([]deferral.Pos, frame+1)
		for k := range wantV {
			wantV[k], wantAt[k] = frame*10+k, pos(a.Index(), k)
		}
		if !slices.Equal(got, wantV) || !slices.Equal(t.At, wantAt) || !slices.Contains(t.V, -1-frame) || len(t.V) != frame+2 {
			x.Errorf("frame %d applied %v at %v, want %v at %v and the frame's closure (%d)", frame, t.V, t.At, wantV, wantAt, -1-frame)
		}
		want(x, fmt.Sprintf("pending after frame %d", frame), g.Pending(), 0)
	}
}

// checkGenericKeys: commands staged with sort keys apply by (key, recorder, FIFO) where keys
// are honoured, in the declared order otherwise; a key set on a SortKeySetter holds for what
// Stage and StageFunc stage after it.
func checkGenericKeys(x *fixture, g Generic, t *Ints, opt GenericOptions) {
	r0, r1 := g.NewRecorder(), g.NewRecorder()
	r0.StageKeyed(5, 1)
	r1.StageKeyed(2, 2)
	r0.StageKeyed(2, 3)
	r1.StageKeyed(5, 4)
	r0.Stage(6) // key 0
	setter, canSet := r1.(SortKeySetter)
	if canSet {
		setter.SetSortKey(9)
		r1.Stage(7)
		r1.StageFunc(func(t *Ints) error { t.V = append(t.V, 70); return nil })
		setter.SetSortKey(0)
		r1.Stage(8)
	}
	r0.Done()
	r1.Done()
	x.wantNil("commit", g.Commit())
	var v []int
	switch {
	case opt.SortKeys && canSet:
		v = []int{6, 8, 3, 2, 1, 4, 7, 70}
	case opt.SortKeys:
		v = []int{6, 3, 2, 1, 4}
	case opt.Order == BySubmission && canSet:
		v = []int{1, 2, 3, 4, 6, 7, 70, 8}
	case opt.Order == BySubmission:
		v = []int{1, 2, 3, 4, 6}
	case canSet:
		v = []int{1, 3, 6, 2, 4, 7, 70, 8}
	default:
		v = []int{1, 3, 6, 2, 4}
	}
	wantInts(x, fmt.Sprintf("commit of keyed commands (sort keys honoured: %v)", opt.SortKeys), t, v, nil)
}

// checkGenericReentry: a closure that calls Commit and Discard during the commit is refused
// by both (an error; nothing dropped) and the commit applies everything around it.
func checkGenericReentry(x *fixture, g Generic, t *Ints) {
	r := g.NewRecorder()
	var inner error
	dropped := -1
	r.Stage(1)
	r.StageFunc(func(*Ints) error {
		inner, dropped = g.Commit(), g.Discard()
		return nil
	})
	r.Stage(2)
	r.Done()
	x.wantNil("commit", g.Commit())
	if inner == nil {
		x.Errorf("Commit called by a closure during the commit: got nil, want an error refusing it")
	}
	want(x, "commands a Discard called by a closure during the commit dropped", dropped, 0)
	wantInts(x, "after the commit", t, []int{1, 2}, []deferral.Pos{pos(r.Index(), 0), pos(r.Index(), 2)})
	want(x, "pending after the commit", g.Pending(), 0)
}

// checkGenericNilClosure: a nil closure is staged without a panic; the commit fails at it
// with a *deferral.CommandError (verb VerbFunc, its position) wrapping
// deferral.ErrInvalidCommand, applying the command before it and keeping it and the one after
// it pending, as any failing command.
func checkGenericNilClosure(x *fixture, g Generic, t *Ints) {
	r := g.NewRecorder()
	r.Stage(1)
	r.StageFunc(nil)
	r.Stage(2)
	r.Done()
	err := g.Commit()
	x.wantIs("commit of a nil closure", err, deferral.ErrInvalidCommand)
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || ce.Pos != pos(r.Index(), 1) || ce.Verb != deferral.VerbFunc {
		x.Errorf("commit of a nil closure: error %v, want a *deferral.CommandError of verb %v at %+v", err, deferral.VerbFunc, pos(r.Index(), 1))
	}
	wantInts(x, "after the failed commit", t, []int{1}, []deferral.Pos{pos(r.Index(), 0)})
	want(x, "pending after the failed commit", g.Pending(), 2)
	want(x, "commands Discard dropped", g.Discard(), 2)
}

// checkGenericTasks: for a TaskStager, the task of a command a commit applied completes with
// nil; after a commit failing at the second command, Discard completes the tasks of the
// failing command and the one after it with an error. TestGeneric runs the row for a
// TaskStager only.
func checkGenericTasks(x *fixture, g Generic, t *Ints) {
	r := g.NewRecorder()
	ts := r.(TaskStager) // TestGeneric runs the row only for a TaskStager
	tasks := []ReadTask{ts.StageTask(1), ts.StageTask(-2), ts.StageTask(3)}
	r.Done()
	x.wantIs("commit failing at the second command", g.Commit(), ErrNegative)
	select {
	case <-tasks[0].Done():
		x.wantNil("the applied command's task", tasks[0].Wait())
	case <-time.After(10 * time.Second):
		x.Fatalf("the task of a command the commit applied did not complete")
	}
	want(x, "commands Discard dropped", g.Discard(), 2)
	for i, task := range tasks[1:] {
		select {
		case <-task.Done():
			if task.Wait() == nil {
				x.Errorf("the task of dropped command %d completed with nil, want an error saying it was discarded", i+1)
			}
		case <-time.After(10 * time.Second):
			x.Errorf("the task of dropped command %d did not complete after Discard", i+1)
		}
	}
	wantInts(x, "after Discard", t, []int{1}, nil)
}
