package conformance

import (
	"errors"
	"slices"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// checkTypedPanicKeepsPending: a typed command that panics (its component's validator) in the
// middle of a run of typed commands ends the commit as failed and the panic goes on to the
// caller; the commands before it stay applied exactly once, it and what follows stay pending,
// and the strategy stays usable (retry applies the rest, or Discard drops it).
func checkTypedPanicKeepsPending(x *fixture) {
	e, err := x.w.Create(pt(0, 0))
	if err != nil {
		x.Fatalf("setup: %v", err)
	}
	r := x.rec()
	r.Create(pt(1, 1))
	r.Create(pt(2, 2))
	r.Add(e, fuse.Value(-1))
	r.Create(pt(3, 3))
	commitPanics := func(op string) {
		x.Helper()
		defer func() {
			if v := recover(); v != errFuse {
				x.Errorf("%s: recovered %v, want the validator's panic", op, v)
			}
		}()
		err := x.s.Commit()
		x.Errorf("%s: returned %v, want the validator's panic", op, err)
	}
	commitPanics("commit whose third typed command panics")
	want(x, "pending after the panic (the add and the create after it)", x.s.Pending(), 2)
	want(x, "live entities after the panic (the two creates before it, once)", x.w.Len(), 3)
	commitPanics("retry, panicking again")
	want(x, "pending after the second panic", x.s.Pending(), 2)
	want(x, "live entities after the second panic", x.w.Len(), 3)
	want(x, "discard after the panic", x.s.Discard(), 2)
	r.Create(pt(4, 4))
	x.commit("commit after the discard", x.s)
	want(x, "live entities at the end", x.w.Len(), 4)
}

// errPanic is what a panicking closure panics with.
var errPanic = errors.New("conformance: closure panics on purpose")

// checkClosurePanicKeepsPending: a closure that panics ends the commit as failed and the panic
// goes on to the caller; the closure and what follows stay pending, the strategy stays usable
// (retry applies the rest, or Discard drops it).
func checkClosurePanicKeepsPending(x *fixture) {
	r := x.rec()
	r.Create(pt(1, 1))
	panicking := true
	r.Do(func(*ecs.World) error {
		if panicking {
			panic(errPanic)
		}
		return nil
	})
	r.Create(pt(2, 2))
	commitPanics := func(op string) {
		x.Helper()
		defer func() {
			if v := recover(); v != errPanic {
				x.Errorf("%s: recovered %v, want the closure's panic", op, v)
			}
		}()
		err := x.s.Commit()
		x.Errorf("%s: returned %v, want the closure's panic", op, err)
	}
	commitPanics("commit whose closure panics")
	want(x, "pending after the panic", x.s.Pending(), 2)
	want(x, "live entities after the panic (the prefix)", x.w.Len(), 1)
	panicking = false
	x.commit("retry", x.s)
	want(x, "live entities after the retry", x.w.Len(), 2)
	x.wantReport("panic and retry", x.s, deferral.Report{Created: slices.Collect(x.w.Entities()), Applied: 3})

	panicking = true
	r.Do(func(*ecs.World) error {
		if panicking {
			panic(errPanic)
		}
		return nil
	})
	r.Create(pt(3, 3))
	commitPanics("second commit whose closure panics")
	want(x, "discard after the panic", x.s.Discard(), 2)
	r.Create(pt(4, 4))
	x.commit("commit after the discard", x.s)
	want(x, "live entities at the end", x.w.Len(), 3)
}
