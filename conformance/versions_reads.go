package conformance

// This file holds the TestVersions rows on what a reader of a version sees through the
// world's iteration state and handle checks.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// queryVisits returns what ecs.NewQuery1(Position) and ecs.NewQuery2(Position, Velocity)
// visit on w, one line per visit, sorted: an entity visited twice, or one whose values are
// another's, shows. The world's hash does not go through the queries' iteration state.
func queryVisits(w *ecs.World) []string {
	var out []string
	q1 := ecs.NewQuery1(w, workload.Position)
	for q1.Next() {
		out = append(out, fmt.Sprintf("1 %v %v", q1.Entity(), *q1.Get()))
	}
	q1.Close()
	q2 := ecs.NewQuery2(w, workload.Position, workload.Velocity)
	for q2.Next() {
		p, v := q2.Get()
		out = append(out, fmt.Sprintf("2 %v %v %v", q2.Entity(), *p, *v))
	}
	q2.Close()
	slices.Sort(out)
	return out
}

// checkVersionQueriesAfterCopy: readers' typed queries visit exactly the owner's entities
// after a version replayed command by command and then one resynced by copy (a closure in
// the batch) that destroys an early entity and creates one in its freed slot, so that the
// live order no longer lists slots in order: an iteration state the copy left behind visits
// an entity twice.
func checkVersionQueriesAfterCopy(x *fixture) {
	r := x.rec()
	es := make([]ecs.Entity, 0, 4)
	for i := range 4 {
		es = append(es, r.Create(pt(float64(i), 0)))
	}
	r.Add(es[3], vl(3, 3))
	x.commit("commit of creates", x.s)
	x.wantVersionIsWorld("after a commit of creates")
	r.Destroy(x.resolve("resolve the second create", x.s, es[1]))
	r.Create(pt(10, 0).With(vl(10, 10)))
	r.Do(func(*ecs.World) error { return nil })
	x.commit("commit of a destroy, a create and a closure", x.s)
	x.wantVersionIsWorld("after a commit resynced by copy")
	r.Create(pt(11, 0))
	x.commit("commit of one create", x.s)
	x.wantVersionIsWorld("after a commit replayed on the copied replica")
}

// checkVersionNewerHandle: the owner issues a handle, by direct writes between commits, with
// a generation its slot never reached in the version readers see; a reader's Check of it is
// nil (a strategy whose reads see the owner's world) or ecs.ErrDead (never issued there),
// never ecs.ErrStale, which says a newer entity held the slot.
func checkVersionNewerHandle(x *fixture) {
	vr := need[deferral.VersionReader](x, "TestVersions")
	r := x.rec()
	p := r.Create(pt(1, 1))
	x.commit("commit of a create", x.s)
	e := x.resolve("resolve the create", x.s, p)
	r.Destroy(e)
	x.commit("commit of its destroy", x.s)
	f, err := x.w.Create(pt(2, 2)) // its slot, one generation on
	x.wantNil("direct create", err)
	x.wantNil("direct destroy", x.w.Destroy(f))
	g, err := x.w.Create(pt(3, 3)) // two generations on: never issued in the published version
	x.wantNil("second direct create", err)
	if g.Slot() != e.Slot() {
		x.Logf("the world did not reuse slot %d (got %d): the row checks less", e.Slot(), g.Slot())
	}
	x.wantNil("read", vr.Read(func(w *ecs.World) error {
		if err := w.Check(g); err != nil && !errors.Is(err, ecs.ErrDead) {
			x.Errorf("reader's Check(%v), a handle newer than its version: %v, want nil or ecs.ErrDead", g, err)
		}
		if err := w.Check(e); !errors.Is(err, ecs.ErrDead) && !errors.Is(err, ecs.ErrStale) {
			x.Errorf("reader's Check(%v), destroyed in its version: %v, want ecs.ErrDead or ErrStale", e, err)
		}
		return nil
	}))
	x.commit("empty commit after the direct writes", x.s)
	x.wantVersionIsWorld("after direct writes that reused a slot twice")
}

// checkVersionReadNil: a read of a nil function does not panic: Read (and ReadVersion, where
// the strategy has it) returns an error wrapping deferral.ErrInvalidCommand; a read's own
// error comes back as it is.
func checkVersionReadNil(x *fixture) {
	vr := need[deferral.VersionReader](x, "TestVersions")
	x.wantIs("Read(nil)", vr.Read(nil), deferral.ErrInvalidCommand)
	if vn, ok := x.s.(VersionNumberReader); ok {
		x.wantIs("ReadVersion(nil)", vn.ReadVersion(nil), deferral.ErrInvalidCommand)
	}
	errRead := errors.New("read failed")
	x.wantIs("a read that fails", vr.Read(func(*ecs.World) error { return errRead }), errRead)
}
