package conformance

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// counted is a component whose validator counts its calls per value and accepts the
// non-negative ones. Each check draws its values from tokens, so rows running in parallel
// never share a value.
var (
	counted = ecs.NewComponent[int64]("conformance.counted", func(v int64) bool {
		countedMu.Lock()
		countedCalls[v]++
		countedMu.Unlock()
		return v >= 0
	})
	countedMu    sync.Mutex
	countedCalls = map[int64]int{}
	tokens       atomic.Int64
)

// callsOf returns how many times counted's validator has run on v.
func callsOf(v int64) int {
	countedMu.Lock()
	defer countedMu.Unlock()
	return countedCalls[v]
}

// checkValidatorCalls: a commit runs a component's validator exactly as often as applying
// its commands one at a time does — once per value, whether the validator accepts it or not,
// and whether the value comes with a create, an Add or Set to the create's placeholder, or
// an Add or Set to an entity that exists. A strategy that keeps a replica for readers
// brings it up to date without running validators again (a validator with state, say one
// that refuses an id it has seen, would refuse the replica's copy).
func checkValidatorCalls(x *fixture) {
	e := x.create(x.w, pt(1, 1).With(counted.Value(tokens.Add(1))))
	type step struct {
		name  string
		stage func(r *deferral.Recorder, v int64)
		fails bool // the commit fails at the step's command when v is refused
	}
	steps := []step{
		{"create with the value", func(r *deferral.Recorder, v int64) { r.Create(pt(2, 2).With(counted.Value(v))) }, false},
		{"Add to a create's placeholder", func(r *deferral.Recorder, v int64) { r.Add(r.Create(pt(3, 3)), counted.Value(v)) }, true},
		{"typed Add to a create's placeholder", func(r *deferral.Recorder, v int64) { deferral.Add(r, r.Create(pt(4, 4)), counted, v) }, true},
		{"Set after an Add to a create's placeholder", func(r *deferral.Recorder, v int64) {
			p := r.Create(pt(5, 5))
			r.Add(p, counted.Value(tokens.Add(1)))
			r.Set(p, counted.Value(v))
		}, true},
		{"Add to an entity", func(r *deferral.Recorder, v int64) { r.Add(e, counted.Value(v)) }, true},
		{"Set on an entity", func(r *deferral.Recorder, v int64) { deferral.Set(r, e, counted, v) }, true},
		{"Add of two to an entity", func(r *deferral.Recorder, v int64) { deferral.Add2(r, e, counted, v, countedOther, 7) }, true},
		// The world has no column for fresh yet (one per value kind, each the first of its
		// component): the Add makes it, and the value is still the validator's to judge.
		{"typed Add of a component the world has no column for to a create's placeholder", func(r *deferral.Recorder, v int64) {
			c := fresh[v >= 0]
			deferral.Add(r, r.Create(pt(6, 6)), c, v)
		}, true},
	}
	for _, st := range steps {
		for _, accept := range []bool{true, false} {
			v := tokens.Add(1)
			if !accept {
				v = -v
			}
			op := fmt.Sprintf("%s, a value its validator accepts: %v", st.name, accept)
			r := x.rec()
			st.stage(r, v)
			err := x.s.Commit()
			switch {
			case !accept && st.fails:
				if err == nil {
					x.Errorf("%s: commit: got nil error, want the refused value's", op)
				}
				x.s.Discard()
			case err != nil:
				x.Errorf("%s: commit: got error %v, want nil", op, err)
			}
			if got := callsOf(v); got != 1 {
				x.Errorf("%s: the validator ran %d times on the value; one by one it runs once", op, got)
			}
		}
	}
}

// countedOther is the second component of Add2's pairs, with no validator.
var countedOther = ecs.NewComponent[int32]("conformance.counted.other", nil)

// fresh are components with counted's validator that only ValidatorCallsOnce's last step
// uses, so a fixture's world has no column for them before it: one for accepted values, one
// for refused ones.
var fresh = map[bool]ecs.Component[int64]{true: newFresh("accepted"), false: newFresh("refused")}

func newFresh(kind string) ecs.Component[int64] {
	return ecs.NewComponent[int64]("conformance.counted.fresh."+kind, func(v int64) bool {
		countedMu.Lock()
		countedCalls[v]++
		countedMu.Unlock()
		return v >= 0
	})
}
