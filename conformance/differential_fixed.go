package conformance

import (
	"fmt"

	"github.com/deferbench/deferbench/deferral"
)

// The DifferentialFixed row runs fixed programs, the same on every run, against the model of
// the differential test: what a random program reaches only for some seeds is reached here on
// every run, so that no fault's detection depends on the seed.
//
//   - every ordered pair of the command kinds (fixedKinds) on one entity, then on two
//     recorders (strategies with a reproducible order), then with keys that reverse the
//     recorders (strategies with sort keys);
//   - a failing command (a Set of a missing component, an invalid Add, a closure that fails
//     twice) at every position of a run of six commands, on one recorder and alternating
//     between two;
//   - commands, keyed where the strategy sorts by key, on a target destroyed earlier in the
//     same commit and in an earlier one;
//   - batch shapes: a spawn and its run of commands on the placeholder, runs of Add, Remove and
//     Set on one entity cut by a failing command, a destroy, a closure or another entity, a
//     create destroyed in its own commit, and bulk (48 creates, sets and removes over 8
//     entities) against the model, which applies one command at a time.
//
// Each program stages, commits, retries unfixed, fixes the failing Set's cause at the sync
// point, commits again, discards what is left and takes the report; every step is compared as
// in Differential.

// fixedKind is one kind of command a fixed program stages: mk builds it for recorder rec,
// against the program's current target.
type fixedKind struct {
	name string
	mk   func(b *fixedBuilder, rec int) cmdSpec
}

// fixedBuilder hands out symbols and closure numbers and keeps the target: a setup entity,
// or the placeholder of the last create.
type fixedBuilder struct {
	syms, fns int
	target    ref
}

func (b *fixedBuilder) create(rec int, vals ...value) cmdSpec {
	c := cmdSpec{rec: rec, verb: deferral.VerbCreate, sym: b.syms, vals: vals}
	b.target = ref{kind: refPH, n: b.syms}
	b.syms++
	return c
}

func (b *fixedBuilder) closure(rec int, fn closureKind, fails int, nested ...cmdSpec) cmdSpec {
	c := cmdSpec{rec: rec, verb: deferral.VerbFunc, id: b.fns, fn: fn, fails: fails, nested: nested}
	b.fns++
	return c
}

func vA(v int32) value { return value{v: v} }
func vB(v int32) value { return value{b: true, v: v} }

// fixedKinds are the command kinds of the pair programs. Setup entity 1 has only diffA, so a
// Set of diffB on it fails and a Remove of diffB is a no-op.
var fixedKinds = []fixedKind{
	{"create", func(b *fixedBuilder, rec int) cmdSpec { return b.create(rec, vA(3), vB(3)) }},
	{"create-culled", func(b *fixedBuilder, rec int) cmdSpec { return b.create(rec, vA(-1)) }},
	{"destroy", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbDestroy, target: b.target}
	}},
	{"destroy-zero", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbDestroy, target: ref{kind: refZero}}
	}},
	{"add", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbAdd, target: b.target, vals: []value{vB(4)}}
	}},
	{"add-invalid", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbAdd, target: b.target, vals: []value{vA(-1)}}
	}},
	{"set", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbSet, target: b.target, vals: []value{vA(5)}}
	}},
	{"set-missing", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbSet, target: b.target, vals: []value{vB(6)}}
	}},
	{"remove", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbRemove, target: b.target}
	}},
	{"remove-missing", func(b *fixedBuilder, rec int) cmdSpec {
		return cmdSpec{rec: rec, verb: deferral.VerbRemove, target: b.target, comp: true}
	}},
	{"closure", func(b *fixedBuilder, rec int) cmdSpec { return b.closure(rec, fnTouch, 0) }},
	{"closure-failing", func(b *fixedBuilder, rec int) cmdSpec { return b.closure(rec, fnFail, 1) }},
	{"closure-nesting", func(b *fixedBuilder, rec int) cmdSpec {
		set := cmdSpec{rec: rec, verb: deferral.VerbSet, target: ref{kind: refSetup}, vals: []value{vB(9)}}
		nb := fixedBuilder{syms: b.syms + 1000} // nested creates take symbols of their own
		c := b.closure(rec, fnNest, 0, set, nb.create(rec, vA(1)))
		return c
	}},
}

// fixedSetup: entity 0 has diffA and diffB, entity 1 only diffA, entity 2 diffB.
var fixedSetup = [][]value{{vA(1), vB(1)}, {vA(2)}, {vB(2)}}

// fixedProgram runs cmds (staged in order) through the model as a program for prof: stage,
// commit, then while commands stay pending a retry, a fix of a failing Set, a commit, and a
// discard; then a take.
func fixedProgram(prof profile, recs int, setup [][]value, cmds ...[]cmdSpec) *program {
	p := &program{prof: prof, recs: recs, setup: setup}
	g := &gen{p: p, m: newModel(p)}
	for _, round := range cmds {
		for _, c := range round {
			g.emit(op{kind: opStage, cmd: c})
		}
		g.emit(op{kind: opCommit})
		if g.m.pending() > 0 {
			g.emit(op{kind: opCommit}) // a retry, the cause unfixed
		}
		if c := g.m.failing; c != nil && c.verb == deferral.VerbSet {
			g.emit(op{kind: opFix, target: c.target, vals: fixVals(c.vals)})
			g.emit(op{kind: opCommit})
		}
		if g.m.pending() > 0 {
			g.emit(op{kind: opDiscard})
		}
	}
	g.emit(op{kind: opTake})
	return p
}

// namedProgram is a fixed program and what it stages, for a failure's message.
type namedProgram struct {
	name string
	p    *program
}

// fixedPrograms returns the fixed programs for prof.
func fixedPrograms(prof profile) []namedProgram {
	var out []namedProgram
	add := func(name string, recs int, setup [][]value, cmds ...[]cmdSpec) {
		out = append(out, namedProgram{name, fixedProgram(prof, recs, setup, cmds...)})
	}
	// Every ordered pair of kinds, on setup entity 1 (or the placeholder of a create before).
	type layout struct {
		name       string
		recA, recB int
		keyA, keyB uint64
		ok         bool
	}
	layouts := []layout{
		{"one recorder", 0, 0, 0, 0, true},
		{"two recorders", 0, 1, 0, 0, prof.mixed},
		{"keys reverse the recorders", 1, 0, 2, 1, prof.mixed && prof.keys},
	}
	for _, l := range layouts {
		if !l.ok {
			continue
		}
		for _, ka := range fixedKinds {
			for _, kb := range fixedKinds {
				b := &fixedBuilder{target: ref{kind: refSetup, n: 1}}
				ca := ka.mk(b, l.recA)
				ca.key = l.keyA
				cb := kb.mk(b, l.recB)
				cb.key = l.keyB
				// A second round on the same target: what the first left behind (a resolved
				// placeholder, a destroyed entity) is named again.
				b2 := &fixedBuilder{target: b.target, syms: b.syms + 2000, fns: b.fns}
				if b.target.kind == refPH {
					b2.target = ref{kind: refResolved, n: b.target.n}
				}
				r2 := []cmdSpec{fixedKinds[6].mk(b2, l.recA), fixedKinds[4].mk(b2, l.recB)}
				add(fmt.Sprintf("pair %s, %s (%s)", ka.name, kb.name, l.name), 2, fixedSetup, []cmdSpec{ca, cb}, r2)
			}
		}
	}
	// A failing command at every position of a run of six.
	fails := []struct {
		name string
		mk   func(b *fixedBuilder, rec int) cmdSpec
	}{
		{"set of a missing component", func(b *fixedBuilder, rec int) cmdSpec {
			return cmdSpec{rec: rec, verb: deferral.VerbSet, target: ref{kind: refSetup, n: 1}, vals: []value{vB(6)}}
		}},
		{"invalid add", func(b *fixedBuilder, rec int) cmdSpec {
			return cmdSpec{rec: rec, verb: deferral.VerbAdd, target: ref{kind: refSetup, n: 2}, vals: []value{vA(-1)}}
		}},
		{"closure failing twice", func(b *fixedBuilder, rec int) cmdSpec { return b.closure(rec, fnFail, 2) }},
	}
	for _, recs := range []int{1, 2} {
		if recs == 2 && !prof.mixed {
			continue
		}
		for _, f := range fails {
			for at := range 7 {
				b := &fixedBuilder{target: ref{kind: refSetup}}
				run := []func(rec int) cmdSpec{
					func(rec int) cmdSpec {
						return cmdSpec{rec: rec, verb: deferral.VerbSet, target: ref{kind: refSetup}, vals: []value{vA(7)}}
					},
					func(rec int) cmdSpec {
						return cmdSpec{rec: rec, verb: deferral.VerbAdd, target: ref{kind: refSetup, n: 1}, vals: []value{vB(8)}}
					},
					func(rec int) cmdSpec { return b.create(rec, vA(4)) },
					func(rec int) cmdSpec {
						return cmdSpec{rec: rec, verb: deferral.VerbAdd, target: ref{kind: refPH}, vals: []value{vB(5)}}
					},
					func(rec int) cmdSpec {
						return cmdSpec{rec: rec, verb: deferral.VerbRemove, target: ref{kind: refSetup}, comp: true}
					},
					func(rec int) cmdSpec { return b.closure(rec, fnTouch, 0) },
				}
				var cmds []cmdSpec
				for i := range 7 {
					rec := i % recs
					if i == at {
						cmds = append(cmds, f.mk(b, rec))
					}
					if i < len(run) {
						cmds = append(cmds, run[i](rec))
					}
				}
				add(fmt.Sprintf("%s at position %d of 7 (%d recorders)", f.name, at, recs), recs, fixedSetup, cmds)
			}
		}
	}
	// Keyed commands on a destroyed target, in the same commit and in a later one.
	key := func(k uint64) uint64 {
		if prof.keys {
			return k
		}
		return 0
	}
	rec1 := 0
	if prof.mixed {
		rec1 = 1
	}
	e1 := ref{kind: refSetup, n: 1}
	onDead := func(rec int, k uint64) []cmdSpec {
		return []cmdSpec{
			{rec: rec, key: key(k), verb: deferral.VerbAdd, target: e1, vals: []value{vB(3)}},
			{rec: rec, key: key(k), verb: deferral.VerbSet, target: e1, vals: []value{vA(3)}},
			{rec: rec, key: key(k), verb: deferral.VerbRemove, target: e1},
			{rec: rec, key: key(k), verb: deferral.VerbDestroy, target: e1},
		}
	}
	destroy := cmdSpec{rec: 0, key: key(1), verb: deferral.VerbDestroy, target: e1}
	add("keyed commands after a destroy in the same commit", 2, fixedSetup, append([]cmdSpec{destroy}, onDead(rec1, 2)...))
	add("keyed commands before a destroy in the same commit (keys put them after)", 2, fixedSetup, append(onDead(rec1, 2)[:3:3], destroy))
	add("keyed commands on a target destroyed in an earlier commit", 2, fixedSetup, []cmdSpec{destroy}, onDead(rec1, 1))
	bp := &fixedBuilder{}
	spawn := bp.create(0, vA(1))
	add("keyed commands on a placeholder destroyed in its commit", 2, fixedSetup, []cmdSpec{spawn,
		{rec: rec1, key: key(3), verb: deferral.VerbAdd, target: bp.target, vals: []value{vB(2)}},
		{rec: 0, key: key(2), verb: deferral.VerbDestroy, target: bp.target},
		{rec: rec1, key: key(3), verb: deferral.VerbSet, target: bp.target, vals: []value{vA(4)}},
	}, []cmdSpec{{rec: rec1, key: key(1), verb: deferral.VerbAdd, target: ref{kind: refResolved}, vals: []value{vB(5)}}})

	// Batch shapes.
	e0 := ref{kind: refSetup}
	addB := func(t ref, v int32) cmdSpec {
		return cmdSpec{verb: deferral.VerbAdd, target: t, vals: []value{vB(v)}}
	}
	addA := func(t ref, v int32) cmdSpec {
		return cmdSpec{verb: deferral.VerbAdd, target: t, vals: []value{vA(v)}}
	}
	setA := func(t ref, v int32) cmdSpec {
		return cmdSpec{verb: deferral.VerbSet, target: t, vals: []value{vA(v)}}
	}
	setB := func(t ref, v int32) cmdSpec {
		return cmdSpec{verb: deferral.VerbSet, target: t, vals: []value{vB(v)}}
	}
	rm := func(t ref, b bool) cmdSpec { return cmdSpec{verb: deferral.VerbRemove, target: t, comp: b} }
	dst := func(t ref) cmdSpec { return cmdSpec{verb: deferral.VerbDestroy, target: t} }
	bb := &fixedBuilder{}
	c0 := bb.create(0, vA(1))
	p0 := bb.target
	add("batch: a spawn and its run", 1, fixedSetup, []cmdSpec{c0, rm(p0, true), addB(p0, 2), setA(p0, 3), rm(p0, true), rm(p0, true), addB(p0, 4), setB(p0, 5), addA(p0, 6)})
	add("batch: add, add, remove, remove, set, add on one entity", 1, fixedSetup, []cmdSpec{addB(e1, 1), addB(e1, 2), rm(e1, true), rm(e1, true), setA(e1, 3), addB(e1, 4), setB(e1, 5)})
	add("batch: add then remove, remove then add", 1, fixedSetup, []cmdSpec{addB(e1, 1), rm(e1, true), rm(e0, false), addA(e0, 2)})
	add("batch: a run cut by a failing set", 1, fixedSetup, []cmdSpec{setA(e1, 1), addA(e1, 2), setB(e1, 3), addB(e1, 4), setB(e1, 5)})
	add("batch: a run cut by an invalid add", 1, fixedSetup, []cmdSpec{addB(e1, 1), setA(e1, 2), addA(e1, -1), setA(e1, 3)})
	add("batch: a run cut by a destroy", 1, fixedSetup, []cmdSpec{setA(e0, 1), addB(e0, 2), dst(e0), addB(e0, 3), setA(e0, 4)})
	bc := &fixedBuilder{fns: 100}
	add("batch: a run cut by a closure", 1, fixedSetup, []cmdSpec{addB(e1, 1), bc.closure(0, fnTouch, 0), setB(e1, 2), rm(e1, false), bc.closure(0, fnFail, 1), addA(e1, 3)})
	add("batch: runs interleaved across entities", 1, fixedSetup, []cmdSpec{setA(e0, 1), addB(e1, 2), setA(e0, 3), setB(e1, 4), rm(e0, true), rm(e1, true)})
	bd := &fixedBuilder{}
	cd := bd.create(0, vA(1), vB(1))
	add("batch: a create destroyed in its commit", 1, fixedSetup, []cmdSpec{cd, setA(bd.target, 2), dst(bd.target), addB(bd.target, 3)})
	// Entities of one table making different changes one after another (a destination found
	// for one change must not serve the next).
	sameTable := [][]value{{vA(1)}, {vA(2)}, {vA(3)}, {vA(4)}}
	s0, s1, s2, s3 := ref{kind: refSetup}, ref{kind: refSetup, n: 1}, ref{kind: refSetup, n: 2}, ref{kind: refSetup, n: 3}
	add("batch: entities of one table making different changes", 1, sameTable, []cmdSpec{
		addB(s0, 1), setB(s0, 2), addB(s1, 3), rm(s1, false), addB(s2, 4), setA(s2, 5), rm(s3, false), addA(s3, 6), addB(s3, 7)})
	add("batch: entities of one table making one change, then another", 1, sameTable, []cmdSpec{
		addB(s0, 1), setB(s0, 2), addB(s1, 3), setB(s1, 4), addB(s2, 5), rm(s2, false), addB(s3, 6), setA(s3, 7)})
	// Bulk: 48 creates, some with runs; sets and removes over 8 setup entities.
	var bulkSetup [][]value
	for i := range 8 {
		bulkSetup = append(bulkSetup, []value{vA(int32(i)), vB(int32(i))})
	}
	var bulk []cmdSpec
	bk := &fixedBuilder{}
	for i := range 48 {
		bulk = append(bulk, bk.create(0, vA(int32(i%10))))
		if i%3 == 0 {
			bulk = append(bulk, addB(bk.target, int32(i%7)))
		}
	}
	for i := range 8 {
		t := ref{kind: refSetup, n: i}
		bulk = append(bulk, setA(t, int32(i+1)), setB(t, int32(i+2)))
		if i%2 == 0 {
			bulk = append(bulk, rm(t, true))
		}
	}
	add("batch: bulk", 1, bulkSetup, bulk)
	p1 := ref{kind: refPH, n: 1} // created with diffA only: a Set of diffB fails
	bulkFail := append(append([]cmdSpec(nil), bulk[:40]...), setB(p1, 1), rm(p1, false), setB(p1, 2))
	add("batch: bulk cut by a failing set", 1, bulkSetup, bulkFail)
	return out
}

// checkDifferentialFixed: the strategy agrees with the model on every fixed program.
func checkDifferentialFixed(x *fixture) {
	progs := fixedPrograms(profileOf(x.caps))
	for _, np := range progs {
		if msg := np.p.run(x.f, x.store); msg != "" {
			x.Errorf("differential, fixed program %q: %s disagrees with the model:\n%s", np.name, x.s.Name(), msg)
			return
		}
	}
	x.Logf("%d fixed programs agree with the model", len(progs))
}
