package conformance

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// The differential test's components: diffA rejects negative values (so creates can be culled
// and adds and sets can fail), diffB accepts every value.
var (
	diffA = ecs.NewComponent[int32]("conformance.A", func(v int32) bool { return v >= 0 })
	diffB = ecs.NewComponent[int32]("conformance.B", nil)
)

// errClosure is what a failing closure of a random program returns.
var errClosure = errors.New("conformance: closure of a random program failed on purpose")

// DifferentialPrograms is how many random programs the Differential row of Test runs per
// strategy.
var DifferentialPrograms = 150

// Differential runs programs seeded random programs against a reference model of the deferral
// contract and against every strategy the factories make, and fails at the first step where a
// strategy disagrees with the model. A program stages creates, destroys, adds, sets, removes
// and closures from several recorders (with sort keys, where every strategy in the run
// declares them), closures that fail a given number of times and closures that stage more
// commands while the commit runs; it commits, retries failed commits (after fixing the cause
// at the sync point, or not), discards, and takes reports. After every step it compares the
// world hash, Pending, the commit's error (position, verb, component and cause), Discard's
// count, the report and what Resolve answers for every placeholder staged so far.
//
// A strategy that does not declare a reproducible order (deferral.Capabilities) is compared
// on programs in which only one recorder holds pending commands at a time, so that its order
// is the model's; keys are staged only for strategies that declare SortKeys.
//
// The seeds are the suite seed (SeedEnv, else the clock) plus 0 … programs-1; the base is
// logged, and a failure names the program's seed: replay it with DifferentialSeed.
func Differential(t *testing.T, programs int, factories ...Factory) {
	t.Helper()
	base := suiteSeed()
	t.Logf("differential: %d programs from seed %d (set %s=%d to replay)", programs, base, SeedEnv, base)
	for i := range programs {
		if !DifferentialSeed(t, base+uint64(i), factories...) {
			return
		}
	}
}

// DifferentialSeed runs the one random program of seed (see Differential) against the model
// and every strategy the factories make, and reports whether all of them agreed with the
// model. It is the body of a fuzz target:
//
//	func FuzzDifferential(f *testing.F) {
//		f.Add(uint64(1))
//		f.Fuzz(func(t *testing.T, seed uint64) { conformance.DifferentialSeed(t, seed, mine.Factory) })
//	}
func DifferentialSeed(t testing.TB, seed uint64, factories ...Factory) bool {
	t.Helper()
	progs := map[profile]*program{}
	ok := true
	for _, f := range factories {
		if f == nil {
			t.Fatalf("differential: a factory is nil")
		}
		probe := f(ecs.NewWorld())
		caps, name := probe.Capabilities(), probe.Name()
		probe.Discard()
		if err := probe.Close(); err != nil {
			t.Errorf("differential: close of an unused %s: %v", name, err)
		}
		prof := profileOf(caps)
		p := progs[prof]
		if p == nil {
			p = generate(seed, prof)
			progs[prof] = p
		}
		if msg := p.run(f); msg != "" {
			t.Errorf("differential: %s disagrees with the model on the program of seed %d (replay: conformance.DifferentialSeed(t, %d, …)):\n%s", name, seed, seed, msg)
			ok = false
		}
	}
	return ok
}

// checkDifferential: the strategy agrees with the reference model on random programs.
func checkDifferential(x *fixture) {
	x.logSeed()
	for i := range DifferentialPrograms {
		if !DifferentialSeed(x, x.seed+uint64(i), x.f) {
			return
		}
	}
}

// profile is what a program may do for the strategies it runs on.
type profile struct {
	keys  bool // stage non-zero sort keys (the model orders by them)
	mixed bool // several recorders may hold pending commands at once
}

func profileOf(c deferral.Capabilities) profile {
	return profile{keys: c.ReproducibleOrder && c.SortKeys, mixed: c.ReproducibleOrder}
}

// refKind is what a program's handle refers to.
type refKind uint8

const (
	refSetup      refKind = iota // an entity the program created with the World API before staging
	refPH                        // a placeholder: the create with that symbol
	refResolved                  // the entity a placeholder resolved to, captured after a commit
	refZero                      // the zero Entity
	refForeignPH                 // a placeholder of another strategy instance
	refForeignEnt                // an entity of another world
)

type ref struct {
	kind refKind
	n    int
}

func (r ref) String() string {
	switch r.kind {
	case refSetup:
		return fmt.Sprintf("e%d", r.n)
	case refPH:
		return fmt.Sprintf("p%d", r.n)
	case refResolved:
		return fmt.Sprintf("resolved(p%d)", r.n)
	case refZero:
		return "zero"
	case refForeignPH:
		return "foreign-placeholder"
	}
	return "foreign-entity"
}

// value is one component value of a bundle.
type value struct {
	b bool // diffB, else diffA
	v int32
}

func bundleOf(vals []value) ecs.Bundle {
	var b ecs.Bundle
	for _, v := range vals {
		if v.b {
			b = b.With(diffB.Value(v.v))
		} else {
			b = b.With(diffA.Value(v.v))
		}
	}
	return b
}

// closureKind is what a staged closure does when it runs.
type closureKind uint8

const (
	fnTouch closureKind = iota // sets diffB of setup entity 0 (if alive) to the live count: order-sensitive
	fnFail                     // fails its first fails runs, then touches
	fnNest                     // stages nested commands (on any recorder) while the commit runs
)

// cmdSpec is one staged command.
type cmdSpec struct {
	rec    int
	key    uint64
	verb   deferral.Verb
	target ref     // not for creates
	sym    int     // creates: the placeholder's symbol
	vals   []value // creates, adds, sets
	comp   bool    // removes: diffB, else diffA
	fn     closureKind
	fails  int
	id     int       // closures: the closure's number
	nested []cmdSpec // fnNest
}

func (c *cmdSpec) String() string {
	s := fmt.Sprintf("r%d", c.rec)
	if c.key != 0 {
		s += fmt.Sprintf("/k%d", c.key)
	}
	switch c.verb {
	case deferral.VerbCreate:
		return fmt.Sprintf("%s create %v -> p%d", s, c.vals, c.sym)
	case deferral.VerbRemove:
		return fmt.Sprintf("%s remove %v %s", s, c.target, map[bool]string{false: "A", true: "B"}[c.comp])
	case deferral.VerbFunc:
		switch c.fn {
		case fnFail:
			return fmt.Sprintf("%s closure#%d (fails %d times)", s, c.id, c.fails)
		case fnNest:
			parts := make([]string, len(c.nested))
			for i := range c.nested {
				parts[i] = c.nested[i].String()
			}
			return fmt.Sprintf("%s closure#%d staging [%s]", s, c.id, strings.Join(parts, "; "))
		}
		return fmt.Sprintf("%s closure#%d", s, c.id)
	}
	return fmt.Sprintf("%s %v %v %v", s, c.verb, c.target, c.vals)
}

// opKind is one step of a program.
type opKind uint8

const (
	opStage opKind = iota
	opCommit
	opDiscard
	opTake
	opFix // at the sync point: add the vals to the target with the World API (if alive)
)

type op struct {
	kind   opKind
	cmd    cmdSpec
	target ref
	vals   []value
}

func (o *op) String() string {
	switch o.kind {
	case opStage:
		return "stage " + o.cmd.String()
	case opCommit:
		return "commit"
	case opDiscard:
		return "discard"
	case opTake:
		return "take report"
	}
	return fmt.Sprintf("fix: world add %v to %v", o.vals, o.target)
}

// program is a generated program with what the model observed after each step.
type program struct {
	seed  uint64
	prof  profile
	recs  int
	setup [][]value
	ops   []op
	want  []observation
}

// observation is what a step shows: all of it is compared.
type observation struct {
	pending  int
	hash     uint64
	err      string // commit: canonical error; "" for nil
	discard  int
	report   string // take: canonical report or error
	resolves string // after commits and discards: what Resolve answers for every symbol
}

// actor is a model or a strategy running a program.
type actor interface {
	stage(c *cmdSpec)
	commit() error
	discard() int
	take() (deferral.Report, error)
	pending() int
	world() *ecs.World
	resolve(sym int) (ecs.Entity, error) // the symbol's placeholder, resolved now
	symbols() []int                      // the placeholder symbols minted so far, ascending
	handle(r ref) (ecs.Entity, bool)     // a real handle for fix; false: a placeholder not resolved
}

// generate makes the program of seed for prof, running the model alongside to steer it.
func generate(seed uint64, prof profile) *program {
	rng := rand.New(rand.NewPCG(seed, 0xd1ff))
	p := &program{seed: seed, prof: prof, recs: 1 + rng.IntN(4)}
	for range 2 + rng.IntN(3) {
		p.setup = append(p.setup, randVals(rng, false))
	}
	m := newModel(p)
	g := &gen{rng: rng, p: p, m: m, active: rng.IntN(p.recs)}
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
	return c
}

// apply runs o on a and returns what it observed, and the commit's error.
func apply(a actor, o *op) (observation, error) {
	var obs observation
	var err error
	switch o.kind {
	case opStage:
		a.stage(&o.cmd)
	case opCommit:
		err = a.commit()
		obs.err = canonErr(err)
		obs.resolves = resolves(a)
	case opDiscard:
		obs.discard = a.discard()
		obs.resolves = resolves(a)
	case opTake:
		rep, err := a.take()
		obs.report = canonReport(rep, err)
	case opFix:
		if e, ok := a.handle(o.target); ok && a.world().Alive(e) {
			_ = a.world().Upsert(e, bundleOf(o.vals))
		}
	}
	obs.pending = a.pending()
	obs.hash = a.world().Hash()
	return obs, err
}

// canonErr writes a commit error as the contract sees it: position, verb, component and the
// cause's sentinel.
func canonErr(err error) string {
	if err == nil {
		return ""
	}
	var ce *deferral.CommandError
	if !errors.As(err, &ce) {
		return "not a *deferral.CommandError: " + err.Error()
	}
	cause := "other cause: " + fmt.Sprint(ce.Err)
	for _, s := range []error{ecs.ErrMissingComponent, ecs.ErrInvalidValue, errClosure, deferral.ErrReentry, deferral.ErrClosed} {
		if errors.Is(err, s) {
			cause = s.Error()
			break
		}
	}
	return fmt.Sprintf("recorder %d command %d (%v %q): %s", ce.Pos.Recorder, ce.Pos.Index, ce.Verb, ce.Component, cause)
}

func canonEntity(e ecs.Entity) string { return fmt.Sprintf("%d.%d", e.Slot(), e.Generation()) }

func canonReport(r deferral.Report, err error) string {
	if err != nil {
		for _, s := range []error{deferral.ErrPending} {
			if errors.Is(err, s) {
				return "error: " + s.Error()
			}
		}
		return "error: " + err.Error()
	}
	created := make([]string, len(r.Created))
	for i, e := range r.Created {
		created[i] = canonEntity(e)
	}
	return fmt.Sprintf("created %v destroyed %d ignored-destroys %d ignored-creates %d skipped %d noop-removes %d applied %d",
		created, r.Destroyed, r.IgnoredDestroys, r.IgnoredCreates, r.Skipped, r.NoopRemoves, r.Applied)
}

// resolves writes what Resolve answers for every symbol a has minted, a real handle and the
// foreign placeholder.
func resolves(a actor) string {
	var b strings.Builder
	for _, sym := range a.symbols() {
		e, err := a.resolve(sym)
		fmt.Fprintf(&b, "p%d:%s ", sym, canonResolve(e, err))
	}
	for _, r := range []ref{{kind: refForeignPH}, {kind: refSetup}, {kind: refZero}} {
		e, err := a.resolve(-1 - int(r.kind))
		fmt.Fprintf(&b, "%v:%s ", r, canonResolve(e, err))
	}
	return b.String()
}

func canonResolve(e ecs.Entity, err error) string {
	if err == nil {
		return canonEntity(e)
	}
	for _, s := range []error{deferral.ErrUnresolved, deferral.ErrCulled, deferral.ErrForeignPlaceholder, deferral.ErrNotPlaceholder} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "error " + err.Error()
}

// run runs the program on a strategy f makes and returns the first disagreement with the
// model, with the program up to it, or "".
func (p *program) run(f Factory) (msg string) {
	x := newStrategyActor(p, f)
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("panicked: %v\n%s", r, p.listing(len(p.ops)-1))
		}
		x.close()
	}()
	for i := range p.ops {
		got, _ := apply(x, &p.ops[i])
		if d := diffObs(got, p.want[i]); d != "" {
			return fmt.Sprintf("step %d (%v): %s\nprogram (recorders %d, setup %v):\n%s", i, &p.ops[i], d, p.recs, p.setup, p.listing(i))
		}
	}
	return ""
}

func (p *program) listing(upto int) string {
	var b strings.Builder
	for i := 0; i <= upto && i < len(p.ops); i++ {
		fmt.Fprintf(&b, "  %3d %v", i, &p.ops[i])
		if w := p.want[i]; p.ops[i].kind == opCommit && w.err != "" {
			fmt.Fprintf(&b, "   [model: %s]", w.err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func diffObs(got, want observation) string {
	var d []string
	if got.err != want.err {
		d = append(d, fmt.Sprintf("commit error: got %q, want %q", got.err, want.err))
	}
	if got.pending != want.pending {
		d = append(d, fmt.Sprintf("pending: got %d, want %d", got.pending, want.pending))
	}
	if got.discard != want.discard {
		d = append(d, fmt.Sprintf("discard: got %d, want %d", got.discard, want.discard))
	}
	if got.report != want.report {
		d = append(d, fmt.Sprintf("report:\n   got %s\n  want %s", got.report, want.report))
	}
	if got.resolves != want.resolves {
		d = append(d, fmt.Sprintf("resolve:\n   got %s\n  want %s", got.resolves, want.resolves))
	}
	if got.hash != want.hash {
		d = append(d, fmt.Sprintf("world hash: got %#x, want %#x", got.hash, want.hash))
	}
	return strings.Join(d, "; ")
}

// setupWorld creates the program's setup entities with the World API.
func setupWorld(p *program) (*ecs.World, []ecs.Entity) {
	w := ecs.NewWorld()
	var es []ecs.Entity
	for _, vals := range p.setup {
		e, err := w.Create(bundleOf(vals))
		if err != nil {
			panic(fmt.Sprintf("conformance: differential setup: %v", err))
		}
		es = append(es, e)
	}
	return w, es
}

// touch is what fnTouch closures do.
func touch(w *ecs.World, setup []ecs.Entity) {
	if e := setup[0]; w.Alive(e) {
		_ = w.Upsert(e, diffB.Value(int32(w.Len())))
	}
}

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

func newStrategyActor(p *program, f Factory) *strategyActor {
	w, setup := setupWorld(p)
	x := &strategyActor{p: p, s: f(w), w: w, setup: setup, phs: map[int]ecs.Entity{}, captured: map[int]ecs.Entity{}, runs: map[int]int{}}
	for range p.recs {
		x.recs = append(x.recs, x.s.NewRecorder())
	}
	ow := ecs.NewWorld()
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
	w, setup := setupWorld(p)
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
