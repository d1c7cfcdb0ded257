package conformance

import (
	"errors"
	"fmt"
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
//
// Each strategy runs the program on every storage of the World (StorageEnv restricts them);
// the model's world is on slot storage, so the world hashes compared are also a check that
// both storages digest the same state alike.
func DifferentialSeed(t testing.TB, seed uint64, factories ...Factory) bool {
	t.Helper()
	return differentialSeed(t, seed, storages(t), factories...)
}

// differentialSeed is DifferentialSeed on the given storages.
func differentialSeed(t testing.TB, seed uint64, stores []ecs.Storage, factories ...Factory) bool {
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
		for _, s := range stores {
			if msg := p.run(f, s); msg != "" {
				t.Errorf("differential: %s on storage=%v disagrees with the model on the program of seed %d (replay: %s=%v and conformance.DifferentialSeed(t, %d, …)):\n%s", name, s, seed, StorageEnv, s, seed, msg)
				ok = false
			}
		}
	}
	return ok
}

// checkDifferential: the strategy agrees with the reference model on random programs.
func checkDifferential(x *fixture) {
	x.logSeed()
	for i := range DifferentialPrograms {
		if !differentialSeed(x, x.seed+uint64(i), []ecs.Storage{x.store}, x.f) {
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
func (p *program) run(f Factory, s ecs.Storage) (msg string) {
	x := newStrategyActor(p, f, s)
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

// setupWorld creates the program's setup entities with the World API, on storage s.
func setupWorld(p *program, s ecs.Storage) (*ecs.World, []ecs.Entity) {
	w := ecs.NewWorld(ecs.WithStorage(s))
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
