package conformance

import (
	"fmt"
	"slices"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// strategyActor runs a program on a strategy.
type strategyActor struct {
	p        *program
	s        deferral.Strategy
	w        *ecs.World
	setup    []ecs.Entity
	recs     []*deferral.Recorder
	phs      map[int]ecs.Entity // symbol → placeholder
	captured map[int]ecs.Entity // symbol → entity it resolved to
	runs     map[int]int        // closure → runs
	others   []deferral.Strategy
	fph, fe  ecs.Entity
}

func newStrategyActor(p *program, f Factory, s ecs.Storage) *strategyActor {
	w, setup := setupWorld(p, s)
	x := &strategyActor{p: p, s: f(w), w: w, setup: setup, phs: map[int]ecs.Entity{}, captured: map[int]ecs.Entity{}, runs: map[int]int{}}
	for range p.recs {
		x.recs = append(x.recs, x.s.NewRecorder())
	}
	ow := ecs.NewWorld(ecs.WithStorage(s))
	other := f(ow)
	x.others = append(x.others, other)
	x.fph = other.NewRecorder().Create(diffB.Value(1))
	_ = other.Commit()
	var err error
	if x.fe, err = ow.Create(diffB.Value(2)); err != nil {
		panic(fmt.Sprintf("conformance: differential setup: %v", err))
	}
	return x
}

func (x *strategyActor) close() {
	for _, s := range append(x.others, x.s) {
		s.Discard()
		_ = s.Close()
	}
}

func (x *strategyActor) handle(r ref) (ecs.Entity, bool) {
	switch r.kind {
	case refSetup:
		return x.setup[r.n], true
	case refPH:
		if e, err := x.s.Resolve(x.phs[r.n]); err == nil {
			return e, true
		}
		return x.phs[r.n], false
	case refResolved:
		return x.captured[r.n], true
	case refForeignPH:
		return x.fph, false
	case refForeignEnt:
		return x.fe, true
	}
	return ecs.Entity{}, true
}

func (x *strategyActor) stage(c *cmdSpec) {
	r := x.recs[c.rec]
	r.SetSortKey(c.key)
	var target ecs.Entity
	if c.verb != deferral.VerbCreate && c.verb != deferral.VerbFunc {
		switch c.target.kind {
		case refPH:
			target = x.phs[c.target.n]
		case refForeignPH:
			target = x.fph
		default:
			target, _ = x.handle(c.target)
		}
	}
	switch c.verb {
	case deferral.VerbCreate:
		x.phs[c.sym] = r.Create(bundleOf(c.vals))
	case deferral.VerbDestroy:
		r.Destroy(target)
	case deferral.VerbAdd:
		r.Add(target, bundleOf(c.vals))
	case deferral.VerbSet:
		r.Set(target, bundleOf(c.vals))
	case deferral.VerbRemove:
		id := diffA.ID()
		if c.comp {
			id = diffB.ID()
		}
		r.Remove(target, id)
	case deferral.VerbFunc:
		c := c
		r.Do(func(w *ecs.World) error {
			x.runs[c.id]++
			switch c.fn {
			case fnFail:
				if x.runs[c.id] <= c.fails {
					return errClosure
				}
			case fnNest:
				for i := range c.nested {
					x.stage(&c.nested[i])
				}
				return nil
			}
			touch(w, x.setup)
			return nil
		})
	}
}

func (x *strategyActor) capture() {
	for sym, p := range x.phs {
		if _, ok := x.captured[sym]; ok {
			continue
		}
		if e, err := x.s.Resolve(p); err == nil {
			x.captured[sym] = e
		}
	}
}

func (x *strategyActor) commit() error {
	err := x.s.Commit()
	x.capture()
	return err
}

func (x *strategyActor) discard() int                   { return x.s.Discard() }
func (x *strategyActor) take() (deferral.Report, error) { return x.s.TakeReport() }
func (x *strategyActor) pending() int                   { return x.s.Pending() }
func (x *strategyActor) world() *ecs.World              { return x.w }
func (x *strategyActor) symbols() []int                 { return sortedKeys(x.phs) }

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (x *strategyActor) resolve(sym int) (ecs.Entity, error) {
	switch {
	case sym == -1-int(refForeignPH):
		return x.s.Resolve(x.fph)
	case sym == -1-int(refSetup):
		return x.s.Resolve(x.setup[0])
	case sym < 0:
		return x.s.Resolve(ecs.Entity{})
	}
	return x.s.Resolve(x.phs[sym])
}
