package conformance

import (
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/deferbench/deferbench/deferral"
)

// generate makes the program of seed for prof, running the model alongside to steer it.
func generate(seed uint64, prof profile) *program {
	rng := rand.New(rand.NewPCG(seed, 0xd1ff))
	p := &program{seed: seed, prof: prof, recs: 1 + rng.IntN(4)}
	for range 2 + rng.IntN(3) {
		p.setup = append(p.setup, randVals(rng, false))
	}
	m := newModel(p)
	g := &gen{rng: rng, p: p, m: m, active: rng.IntN(p.recs), runs: seed%2 == 0}
	length := 12 + rng.IntN(50)
	for len(p.ops) < length {
		g.step()
	}
	if m.pending() > 0 {
		g.emit(op{kind: opDiscard})
	}
	g.emit(op{kind: opTake})
	return p
}

// gen is the generator's state.
type gen struct {
	rng     *rand.Rand
	p       *program
	m       *model
	syms    int // placeholder symbols handed out
	fns     int // closures handed out
	active  int // the recorder that stages, when the profile is not mixed
	lastErr *deferral.CommandError
	// last is the entity the last top-level command named or created. In the programs of
	// even seeds (runs) a third of the next commands name it again, so that runs of commands
	// on one entity (which a strategy may batch) and spawns (a create, then commands on its
	// placeholder) are common; odd seeds keep the programs they always made.
	last *ref
	runs bool
}

func randVals(rng *rand.Rand, allowInvalid bool) []value {
	var vals []value
	switch rng.IntN(4) {
	case 0:
		vals = []value{{b: false}}
	case 1:
		vals = []value{{b: true}}
	default:
		vals = []value{{b: false}, {b: true}}
		if rng.IntN(2) == 0 {
			vals[0], vals[1] = vals[1], vals[0]
		}
	}
	for i := range vals {
		vals[i].v = int32(rng.IntN(10))
		if allowInvalid && !vals[i].b && rng.IntN(8) == 0 {
			vals[i].v = -1
		}
	}
	return vals
}

// emit runs o on the model and records it with its observation.
func (g *gen) emit(o op) {
	obs, err := apply(g.m, &o)
	g.lastErr = nil
	if o.kind == opCommit {
		var ce *deferral.CommandError
		if errors.As(err, &ce) {
			g.lastErr = ce
		}
	}
	g.p.ops = append(g.p.ops, o)
	g.p.want = append(g.p.want, obs)
}

func (g *gen) step() {
	rng, m := g.rng, g.m
	if !g.p.prof.mixed && m.pending() == 0 && rng.IntN(3) == 0 {
		g.active = rng.IntN(g.p.recs)
	}
	if g.lastErr != nil {
		switch n := rng.IntN(10); {
		case n < 3:
			g.emit(op{kind: opCommit})
			return
		case n < 6:
			if c := g.m.failing; c != nil && c.verb == deferral.VerbSet {
				g.emit(op{kind: opFix, target: c.target, vals: fixVals(c.vals)})
			}
			g.emit(op{kind: opCommit})
			return
		case n < 8:
			g.emit(op{kind: opDiscard})
			return
		}
	}
	switch n := rng.IntN(100); {
	case n < 72:
		c := g.cmd(true)
		g.emit(op{kind: opStage, cmd: c})
	case n < 92:
		g.emit(op{kind: opCommit})
	case n < 95:
		g.emit(op{kind: opDiscard})
	default:
		g.emit(op{kind: opTake})
	}
}

// fixVals returns valid values of the components in vals: a fix for a Set of them.
func fixVals(vals []value) []value {
	out := slices.Clone(vals)
	for i := range out {
		out[i].v = 7
	}
	return out
}

// target picks a handle for a command.
func (g *gen) target() ref {
	rng := g.rng
	if l := g.last; g.runs && l != nil && (l.kind != refPH || g.m.minted[l.n]) && rng.IntN(3) == 0 {
		return *l
	}
	switch n := rng.IntN(100); {
	case n < 35:
		return ref{kind: refSetup, n: rng.IntN(len(g.p.setup))}
	case n < 70 && len(g.m.minted) > 0:
		syms := g.m.symbols()
		return ref{kind: refPH, n: syms[rng.IntN(len(syms))]}
	case n < 88 && len(g.m.captured) > 0:
		keys := sortedKeys(g.m.captured)
		return ref{kind: refResolved, n: keys[rng.IntN(len(keys))]}
	case n < 92:
		return ref{kind: refZero}
	case n < 96:
		return ref{kind: refForeignPH}
	case n < 100:
		return ref{kind: refForeignEnt}
	}
	return ref{kind: refSetup, n: rng.IntN(len(g.p.setup))}
}

// cmd makes one command; closures may nest (top level only).
func (g *gen) cmd(top bool) cmdSpec {
	rng := g.rng
	c := cmdSpec{rec: g.active}
	if g.p.prof.mixed {
		c.rec = rng.IntN(g.p.recs)
	}
	if g.p.prof.keys && rng.IntN(3) == 0 {
		c.key = uint64(rng.IntN(3))
	}
	switch n := rng.IntN(100); {
	case n < 24:
		c.verb, c.sym, c.vals = deferral.VerbCreate, g.syms, randVals(rng, true)
		g.syms++
		if top {
			g.last = &ref{kind: refPH, n: c.sym}
		}
	case n < 34:
		c.verb, c.target = deferral.VerbDestroy, g.target()
	case n < 52:
		c.verb, c.target, c.vals = deferral.VerbAdd, g.target(), randVals(rng, true)
	case n < 66:
		c.verb, c.target, c.vals = deferral.VerbSet, g.target(), randVals(rng, true)
	case n < 76:
		c.verb, c.target, c.comp = deferral.VerbRemove, g.target(), rng.IntN(2) == 0
	default:
		c.verb, c.id = deferral.VerbFunc, g.fns
		g.fns++
		if top {
			g.last = nil // a closure ends a run
		}
		switch k := rng.IntN(10); {
		case k < 3:
			c.fn = fnTouch
		case k < 6:
			c.fn, c.fails = fnFail, 1+rng.IntN(2)
		default:
			if !top {
				c.fn, c.fails = fnFail, 1
				break
			}
			c.fn = fnNest
			for range 1 + rng.IntN(3) {
				c.nested = append(c.nested, g.cmd(false))
			}
		}
	}
	if top && c.verb >= deferral.VerbDestroy && c.verb <= deferral.VerbSet {
		t := c.target
		g.last = &t
	}
	return c
}
