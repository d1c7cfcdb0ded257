package conformance

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// model is the reference model of the deferral contract: an implementation written for
// clarity, sharing no code with deferral.Core, over its own World.
type model struct {
	p        *program
	w        *ecs.World
	setup    []ecs.Entity
	fe       ecs.Entity
	minted   map[int]bool
	res      map[int]mres       // symbol → what its create did, in the current answers
	captured map[int]ecs.Entity // symbol → entity, captured after commits
	stale    bool               // the epoch advanced: the next commit forgets res
	queue    []*mcmd            // pending, in staging order
	seqs     []int              // per recorder: commands staged since the last drained commit or discard
	nested   []int              // per recorder: commands staged by closures during the running commit
	running  bool
	staged   []*mcmd // staged during the running commit
	runs     map[int]int
	report   deferral.Report
	failing  *cmdSpec // the command the last commit failed at
}

type mres struct {
	e      ecs.Entity
	culled bool
}

type mcmd struct {
	c      *cmdSpec
	seq    int
	nested bool // staged during a commit: its seq is provisional until the commit ends
}

func newModel(p *program) *model {
	w, setup := setupWorld(p, ecs.Slots)
	m := &model{p: p, w: w, setup: setup, minted: map[int]bool{}, res: map[int]mres{}, captured: map[int]ecs.Entity{},
		seqs: make([]int, p.recs), nested: make([]int, p.recs), runs: map[int]int{}}
	m.fe = ecs.Entity{} // a foreign entity is never alive in this world: any non-live handle does
	return m
}

func (m *model) world() *ecs.World { return m.w }
func (m *model) pending() int      { return len(m.queue) }
func (m *model) symbols() []int    { return sortedKeys(m.minted) }

func (m *model) stage(c *cmdSpec) {
	if c.verb == deferral.VerbCreate {
		m.minted[c.sym] = true
	}
	if m.running {
		mc := &mcmd{c: c, seq: m.nested[c.rec], nested: true}
		m.nested[c.rec]++
		m.staged = append(m.staged, mc)
		return
	}
	m.queue = append(m.queue, &mcmd{c: c, seq: m.seqs[c.rec]})
	m.seqs[c.rec]++
}

// order is the model's apply order: sort key (when the profile stages keys), recorder, FIFO.
func (m *model) order(a, b *mcmd) int {
	if m.p.prof.keys {
		if c := cmp.Compare(a.c.key, b.c.key); c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(a.c.rec, b.c.rec), cmp.Compare(a.seq, b.seq))
}

func (m *model) commit() error {
	if m.stale {
		clear(m.res)
		m.stale = false
	}
	run := slices.Clone(m.queue)
	slices.SortStableFunc(run, m.order)
	m.running = true
	m.failing = nil
	var err error
	done := 0
	for _, mc := range run {
		if err = m.apply(mc); err != nil {
			m.failing = mc.c
			break
		}
		m.report.Applied++
		done++
	}
	m.running = false
	drained := err == nil
	for _, mc := range m.staged {
		if !drained {
			mc.seq += m.seqs[mc.c.rec]
		}
	}
	for r := range m.seqs {
		if drained {
			m.seqs[r] = m.nested[r]
		} else {
			m.seqs[r] += m.nested[r]
		}
		m.nested[r] = 0
	}
	m.queue = append(run[done:], m.staged...)
	m.staged = nil
	if drained {
		m.stale = true
	}
	for sym, r := range m.res {
		if _, ok := m.captured[sym]; !ok && !r.culled {
			m.captured[sym] = r.e
		}
	}
	return err
}

// entity maps a command's target to a live entity; ok false when the command is skipped.
// dead reports a real handle that is not alive (Destroy ignores it rather than skipping).
func (m *model) entity(r ref) (e ecs.Entity, ok, dead bool) {
	switch r.kind {
	case refPH:
		res, found := m.res[r.n]
		if !found || res.culled {
			return ecs.Entity{}, false, false
		}
		e = res.e
	case refForeignPH:
		return ecs.Entity{}, false, false
	case refSetup:
		e = m.setup[r.n]
	case refResolved:
		e = m.captured[r.n]
	case refZero:
		e = ecs.Entity{}
	case refForeignEnt:
		return ecs.Entity{}, false, true
	}
	if !m.w.Alive(e) {
		return e, false, true
	}
	return e, true, false
}

func (m *model) fail(mc *mcmd, verb deferral.Verb, comp string, err error) error {
	return &deferral.CommandError{Pos: deferral.Pos{Recorder: mc.c.rec, Index: mc.seq}, Verb: verb, Component: comp, Err: err}
}

func componentNames(vals []value) string {
	names := make([]string, len(vals))
	for i, v := range vals {
		names[i] = diffA.Name()
		if v.b {
			names[i] = diffB.Name()
		}
	}
	return strings.Join(names, "+")
}

func (m *model) apply(mc *mcmd) error {
	c := mc.c
	switch c.verb {
	case deferral.VerbCreate:
		e, err := m.w.Create(bundleOf(c.vals))
		switch {
		case errors.Is(err, ecs.ErrInvalidValue):
			m.res[c.sym] = mres{culled: true}
			m.report.IgnoredCreates++
		case err != nil:
			return m.fail(mc, c.verb, componentNames(c.vals), err)
		default:
			m.res[c.sym] = mres{e: e}
			m.report.Created = append(m.report.Created, e)
		}
	case deferral.VerbDestroy:
		e, ok, dead := m.entity(c.target)
		switch {
		case ok:
			if err := m.w.Destroy(e); err != nil {
				return m.fail(mc, c.verb, "", err)
			}
			m.report.Destroyed++
		case dead:
			m.report.IgnoredDestroys++
		default:
			m.report.Skipped++
		}
	case deferral.VerbAdd, deferral.VerbSet, deferral.VerbRemove:
		e, ok, _ := m.entity(c.target)
		if !ok {
			m.report.Skipped++
			return nil
		}
		var err error
		comp := componentNames(c.vals)
		switch c.verb {
		case deferral.VerbAdd:
			err = m.w.Upsert(e, bundleOf(c.vals))
		case deferral.VerbSet:
			err = m.w.Set(e, bundleOf(c.vals))
		default:
			id := diffA.ID()
			if c.comp {
				id = diffB.ID()
			}
			comp = ecs.ComponentName(id)
			if !m.w.Has(e, id) {
				m.report.NoopRemoves++
				return nil
			}
			err = m.w.Remove(e, id)
		}
		if err != nil {
			return m.fail(mc, c.verb, comp, err)
		}
	case deferral.VerbFunc:
		m.runs[c.id]++
		switch c.fn {
		case fnFail:
			if m.runs[c.id] <= c.fails {
				return m.fail(mc, c.verb, "", errClosure)
			}
		case fnNest:
			for i := range c.nested {
				m.stage(&c.nested[i])
			}
			return nil
		}
		touch(m.w, m.setup)
	}
	return nil
}

func (m *model) discard() int {
	n := len(m.queue)
	m.queue = nil
	clear(m.seqs)
	m.stale = true
	m.failing = nil
	return n
}

func (m *model) take() (deferral.Report, error) {
	if len(m.queue) > 0 {
		return deferral.Report{}, deferral.ErrPending
	}
	r := m.report
	m.report = deferral.Report{}
	return r, nil
}

func (m *model) resolve(sym int) (ecs.Entity, error) {
	switch {
	case sym == -1-int(refForeignPH):
		return ecs.Entity{}, deferral.ErrForeignPlaceholder
	case sym < 0:
		return ecs.Entity{}, deferral.ErrNotPlaceholder
	}
	r, ok := m.res[sym]
	switch {
	case !ok:
		return ecs.Entity{}, deferral.ErrUnresolved
	case r.culled:
		return ecs.Entity{}, deferral.ErrCulled
	}
	return r.e, nil
}

func (m *model) handle(r ref) (ecs.Entity, bool) {
	if r.kind == refPH {
		res, ok := m.res[r.n]
		return res.e, ok && !res.culled
	}
	e, _, _ := m.entity(r)
	return e, r.kind != refForeignPH
}
