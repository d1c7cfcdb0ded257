package conformance

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/internal/racetest"
	"github.com/deferbench/deferbench/workload"
)

// Factory makes the strategy under test bound to a World; it is deferral.Factory.
type Factory = deferral.Factory

// SeedEnv is the environment variable that fixes the suite's random seed, to replay a
// failure whose seed a subtest logged.
const SeedEnv = "DEFERBENCH_CONFORMANCE_SEED"

// Test runs the conformance suite against the strategies f makes: one subtest per row of the
// deferral contract, each on a fresh World and strategy. Run it under -race, since several
// subtests stage from several goroutines, and once without: under -race the rows that
// measure retained memory on the test's goroutine alone (SpikeReleased*, SpikeWorkingSetKept,
// ChurnMemoryBounded) are skipped, saying so, as the detector finds nothing in them and
// slows them ten times over.
func Test(t *testing.T, f Factory) {
	t.Helper()
	if f == nil {
		t.Fatal("conformance.Test: factory is nil")
	}
	probe := f(ecs.NewWorld())
	caps := probe.Capabilities()
	if err := probe.Close(); err != nil {
		t.Errorf("close of an unused strategy: got %v, want nil", err)
	}
	seed := suiteSeed()
	t.Logf("strategy %q: capabilities %+v; seed %d (set %s=%d to replay)", probe.Name(), caps, seed, SeedEnv, seed)
	for _, c := range onStorages(t, checks(caps)) {
		t.Run(c.name, func(t *testing.T) {
			t.Helper()
			if c.alone && racetest.Enabled {
				t.Skip("under -race: this row runs on the test's goroutine alone, where the race detector finds nothing and is ten times slower; run the suite without -race to check it")
			}
			runCheck(t, f, c, seed, Timeout)
		})
	}
}

// check is one subtest: a row of the contract, in one variant.
type check struct {
	name    string
	fn      func(x *fixture)
	v       variant
	storage ecs.Storage // the storage of the check's worlds
	alone   bool        // a row of the test's goroutine alone (alone): skipped under -race
}

// variant is a value of each parameter the contract varies that a row runs over: the sort key
// the row's recorders stage with, how many recorders stage (bystanders stage first, on the
// lower-numbered recorders, with key 0, so they apply before the row's commands in every
// declared order), and whether the command that fails is a closure or a typed command.
type variant struct {
	key       uint64
	recorders int
	closure   bool
}

func (v variant) String() string {
	cmd := "typed"
	if v.closure {
		cmd = "closure"
	}
	return fmt.Sprintf("key=%d/recorders=%d/cmd=%s", v.key, v.recorders, cmd)
}

// varies says which parameters a row runs over.
type varies uint8

const (
	varyKey varies = 1 << iota
	varyRecorders
	varyCmd
	varyAll = varyKey | varyRecorders | varyCmd
	// alone marks a row that varies nothing and whose work runs on the test's goroutine
	// alone, measuring what a strategy keeps allocated (the spike and churn rows): Test skips
	// it under the race detector, which has no second goroutine to watch there and slows the
	// row ten times over.
	alone varies = 1 << 7
)

// defaultVariant is the variant of rows that vary nothing: key 0, one recorder, typed.
var defaultVariant = variant{recorders: 1}

// expand returns one check per variant of what vary covers: keys 0 and 7, 1 and 3 recorders,
// typed and closure commands.
func expand(name string, fn func(*fixture), vary varies) []check {
	keys, recs, cls := []uint64{0}, []int{1}, []bool{false}
	if vary&varyKey != 0 {
		keys = append(keys, 7)
	}
	if vary&varyRecorders != 0 {
		recs = append(recs, 3)
	}
	if vary&varyCmd != 0 {
		cls = append(cls, true)
	}
	var out []check
	for _, k := range keys {
		for _, n := range recs {
			for _, c := range cls {
				v := variant{key: k, recorders: n, closure: c}
				out = append(out, check{name: name + "/" + v.String(), fn: fn, v: v})
			}
		}
	}
	return out
}

// checks returns the suite's subtests for a strategy declaring caps.
func checks(caps deferral.Capabilities) []check {
	var out []check
	for _, c := range rows(caps) {
		if c.vary&^alone == 0 {
			out = append(out, check{name: c.name, fn: c.fn, v: defaultVariant, alone: c.vary&alone != 0})
			continue
		}
		out = append(out, expand(c.name, c.fn, c.vary)...)
	}
	return out
}

// row is one row of the contract and the parameters it runs over.
type row struct {
	name string
	fn   func(x *fixture)
	vary varies
}

// rows returns the suite's rows for a strategy declaring caps.
func rows(caps deferral.Capabilities) []row {
	return []row{
		{"StrategyIdentity", checkIdentity, 0},
		{"Lifecycle", checkLifecycle, varyKey | varyRecorders},
		{"LeniencyAddOverwrites", checkAddOverwrites, varyKey | varyRecorders},
		{"LeniencyRemoveMissingNoop", checkRemoveMissingNoop, varyKey | varyRecorders},
		{"LeniencyDestroyDeadIgnored", checkDestroyDeadIgnored, 0},
		{"LeniencySkipAfterDestroy", checkSkipAfterDestroy, varyKey | varyRecorders},
		{"LeniencySkipAfterDestroySlotReused", checkSkipAfterDestroySlotReused, varyKey | varyRecorders},
		{"LeniencyAddSetInvalidFails", checkAddSetInvalidFails, varyKey | varyRecorders},
		{"ValidatorCallsOnce", checkValidatorCalls, varyKey | varyRecorders},
		{"SetMissingFails", checkSetMissingFails, varyKey | varyRecorders},
		{"CreateCulled", checkCreateCulled, varyKey | varyRecorders},
		{"PlaceholderSameRecorder", checkPlaceholderSameRecorder, varyKey | varyRecorders},
		{orderName("PlaceholderOtherRecorder", caps), checkPlaceholderOtherRecorder, 0},
		{"PlaceholderCulled", checkPlaceholderCulled, varyKey | varyRecorders},
		{"PlaceholderForeign", checkPlaceholderForeign, 0},
		{"PlaceholderStale", checkPlaceholderStale, varyKey | varyRecorders},
		{"PlaceholderEpochWrap", checkPlaceholderEpochWrap, 0},
		{"PlaceholderDestroySkipped", checkDestroyPlaceholderSkipped, varyKey | varyRecorders},
		{"ResolveLifetime", checkResolveLifetime, varyKey | varyRecorders},
		{"ResetResolutionsAfterRetry", checkResolutionsResetAfterRetry, varyKey | varyRecorders},
		{"ReportApplyOrder", checkReportApplyOrder, varyKey | varyRecorders},
		{"ReportTakeRefusedWhilePending", checkReportTakeRefused, varyKey | varyRecorders},
		{"ReportNotAliased", checkReportNotAliased, varyKey | varyRecorders},
		{"CommitProportionalToPending", checkProportional, 0},
		{"FailurePrefixRetained", checkFailurePrefixRetained, varyAll},
		{"FailureRetryNoReplay", checkFailureRetryNoReplay, varyAll},
		{"FailureDiscard", checkFailureDiscard, varyAll},
		{"FailureCloseWithPending", checkFailureClose, varyAll},
		{"StagedAfterCloseBounded", checkStagedAfterClose, varyKey},
		{"ResetFailureByDiscard", checkFailureClearedByDiscard, varyAll},
		{orderName("FailureStagedAfterJoinsSuffix", caps), checkStagedAfterFailureKeyOrder, 0},
		{"PositionNestedFailedCommit", checkPositionNestedFailedCommit, varyAll},
		{"PositionNestedDrainedCommit", checkPositionNestedDrainedCommit, varyAll},
		{"PositionAfterDiscard", checkPositionAfterDiscard, varyAll},
		{"PositionAcrossFailedCommit", checkPositionAcrossFailedCommit, varyAll},
		{"PositionAcrossRecorders", checkPositionAcrossRecorders, varyAll},
		{"ClosureTier", checkClosureTier, varyKey | varyRecorders},
		{"ClosurePlaceholderRetried", checkClosurePlaceholderRetried, varyAll},
		{"ClosureStagesDuringCommit", checkStagedDuringCommit, varyKey | varyRecorders},
		{"ClosureReentryRefused", checkDiscardFromClosureRefused, varyAll},
		{"ClosurePanicKeepsPending", checkClosurePanicKeepsPending, varyKey | varyRecorders},
		{"TypedPanicKeepsPending", checkTypedPanicKeepsPending, varyKey | varyRecorders},
		{"ClosureNestedCommitError", checkNestedCommitError, varyKey | varyRecorders},
		{"FIFOWithinRecorder", checkFIFO, 0},
		{"ConcurrentRecorders", checkConcurrentRecorders, 0},
		{orderName("ConcurrentMint", caps), checkConcurrentMint, 0},
		{orderName("Order", caps), checkOrder, 0},
		{determinismName(caps), checkDeterminism, 0},
		{"Differential", checkDifferential, 0},
		{"DifferentialFixed", checkDifferentialFixed, 0},
		{"RemoveThenDestroySameCommit", checkRemoveThenDestroy, 0},
		{"DestroyTwice", checkDestroyTwice, 0},
		{"RemoveOnMissingEntityLeavesOthers", checkRemoveOnMissing, 0},
		{"CommitWhileQueryIterates", checkCommitWhileIterating, 0},
		{"CreateRunWhileQueryIterates", checkCreateRunWhileIterating, 0},
		{orderName("AddAndDestroyFromTwoRecorders", caps), checkAddAndDestroyTwoRecorders, 0},
		{"FrameRejectsBadDt", checkFrameBadDt, 0},
		{"FrameOrder", checkFrameOrder, 0},
		{"FrameReentryRefused", checkFrameReentry, 0},
		{"FrameDecisionErrorKeepsPending", checkFrameDecisionError, 0},
		{readsName(caps), checkReads, 0},
		{"InvalidRecordFails", checkInvalidRecord, varyAll},
		{"InvalidRecordStagedDuringCommit", checkInvalidRecordStagedDuringCommit, varyAll},
		{"HandBuiltRecordsApplyAsVerbs", checkHandBuiltRecords, varyKey | varyRecorders},
		{"PendingCountsAcrossRecorders", checkPendingCounts, varyAll},
		{"RecorderReusable", checkRecorderReusable, varyAll},
		{"AddThenRemoveSameCommit", checkAddThenRemove, varyKey | varyRecorders},
		{"CreateThenDestroySameCommit", checkCreateThenDestroy, varyKey | varyRecorders},
		{"ResolveAcrossDiscard", checkResolveAcrossDiscard, varyAll},
		{"RecorderNumbering", checkRecorderNumbering, 0},
		{"WriteToMissingSkipped", checkWriteToMissingSkipped, varyKey | varyRecorders},
		{"ResolveDuringCommit", checkResolveDuringCommit, varyKey | varyRecorders},
		{"FailureAfterStagedRun", checkFailureAfterStagedRun, 0},
		{"ClosureStrictCallFails", checkClosureStrictCall, 0},
		{"PointerComponentsFollowMoves", checkPointerComponents, varyKey | varyRecorders},
		{"ComponentSizesRoundTrip", checkComponentSizes, varyKey | varyRecorders},
		{"TypedRunsEverySize", checkTypedRuns, 0},
		{"ClosureHandleErrors", checkClosureHandleErrors, 0},
		{"ClosureWorldCalls", checkClosureWorldCalls, 0},
		{"ClosureWorldRefusals", checkClosureWorldRefusals, 0},
		{"ClosureWorldQueries", checkClosureWorldQueries, 0},
		{"ClosureReplicaCopy", checkClosureReplicaCopy, 0},
		{"DuplicateComponentFails", checkDuplicateComponentFails, 0},
		{"HandBuiltCommands", checkHandBuiltCommands, 0},
		{"QueriesSeeCommit", checkQueriesSeeCommit, varyKey | varyRecorders},
		{"SpikeReleasedTyped", checkSpikeReleased(spikeTyped), alone},
		{"SpikeReleasedClosures", checkSpikeReleased(spikeClosure), alone},
		{"SpikeReleasedMixed", checkSpikeReleased(spikeMixed), alone},
		{"SpikeReleasedKeyed", checkSpikeReleased(spikeKeyed), alone},
		{"SpikeWorkingSetKept", checkWorkingSetKept, alone},
		{"ChurnMemoryBounded", checkChurnBounded, alone},
		{allocsName(caps), checkTypedAllocs, 0},
		{batchName(caps), checkBatch, 0},
		{bulkName(caps), checkBulk, 0},
	}
}

// orderName names a subtest whose assertion depends on the declared cross-recorder order.
func orderName(base string, caps deferral.Capabilities) string {
	switch {
	case caps.ReproducibleOrder && caps.SortKeys:
		return base + "ReproducibleBySortKey"
	case caps.ReproducibleOrder:
		return base + "ReproducibleByRecorder"
	case caps.SortKeys:
		return base + "FIFOOnlyBySortKey"
	default:
		return base + "FIFOOnly"
	}
}

func determinismName(caps deferral.Capabilities) string {
	if caps.ReproducibleOrder {
		return "DeterminismReproducible"
	}
	return "DeterminismNotClaimed"
}

// suiteSeed returns the seed from SeedEnv, or a fresh one.
func suiteSeed() uint64 {
	if s := os.Getenv(SeedEnv); s != "" {
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			return v
		}
	}
	return uint64(time.Now().UnixNano())
}

// fixture is one subtest's state: the check's TB, a fresh World and strategy, and every
// strategy the check made (closed at the end).
type fixture struct {
	testing.TB
	f     Factory
	store ecs.Storage // the storage of every World the check makes
	w     *ecs.World
	s     deferral.Strategy
	caps  deferral.Capabilities
	seed  uint64
	owned []deferral.Strategy
	v     variant
	// Bystanders (variant.recorders > 1) and what their commands add to the next report.
	bystanders bool
	extra      deferral.Report
}

func newFixture(t testing.TB, f Factory, seed uint64, store ecs.Storage) *fixture {
	x := &fixture{TB: t, f: f, seed: seed, store: store}
	x.w, x.s = x.pair()
	x.caps = x.s.Capabilities()
	return x
}

// pair returns a fresh World and a strategy over it; the fixture closes it at the end.
func (x *fixture) pair() (*ecs.World, deferral.Strategy) {
	w := x.newWorld()
	return w, x.on(w)
}

// on returns a fresh strategy over w; the fixture closes it at the end.
func (x *fixture) on(w *ecs.World) deferral.Strategy {
	s := x.f(w)
	if s == nil {
		x.Fatalf("factory: got a nil strategy")
	}
	x.owned = append(x.owned, s)
	return s
}

func (x *fixture) recoverPanic(what string) {
	if r := recover(); r != nil {
		x.Errorf("%s: panicked: %v\n%s", what, r, debug.Stack())
	}
}

// finish discards what the check left pending and closes every strategy it made; closing
// after a discard must succeed.
func (x *fixture) finish() {
	defer x.recoverPanic("cleanup (discard, close)")
	for _, s := range x.owned {
		s.Discard()
		if err := s.Close(); err != nil {
			x.Errorf("close after discard: got %v, want nil", err)
		}
	}
}

// logSeed logs the seed a check draws from.
func (x *fixture) logSeed() {
	x.Helper()
	x.Logf("seed %d (set %s=%d to replay)", x.seed, SeedEnv, x.seed)
}

// create makes an entity with the strict World API; a failure is a broken setup.
func (x *fixture) create(w *ecs.World, b ecs.Bundle) ecs.Entity {
	x.Helper()
	e, err := w.Create(b)
	if err != nil {
		x.Fatalf("setup: world create: %v", err)
	}
	return e
}

// commit commits s and reports an error; it returns whether the commit succeeded.
func (x *fixture) commit(op string, s deferral.Strategy) bool {
	x.Helper()
	if err := s.Commit(); err != nil {
		x.Errorf("%s: commit: got error %v, want nil", op, err)
		return false
	}
	return true
}

// wantReport takes s's report and compares it with want.
func (x *fixture) wantReport(op string, s deferral.Strategy, want deferral.Report) deferral.Report {
	x.Helper()
	got, err := s.TakeReport()
	if err != nil {
		x.Errorf("%s: take report: got error %v, want nil", op, err)
		return got
	}
	x.compareReport(op, got, want)
	return got
}

// rec mints a recorder for the row, with the variant's sort key. The first call mints the
// variant's bystanders before it: recorders that stage, with key 0, a remove naming the zero
// handle (skipped) and a closure, so that the row's recorder is not recorder 0 and its
// commands are not the only ones of the commit. What bystanders add to the next report is
// added to the report the row wants.
func (x *fixture) rec() *deferral.Recorder {
	x.Helper()
	if !x.bystanders {
		x.bystanders = true
		for i := 1; i < x.v.recorders; i++ {
			b := x.s.NewRecorder()
			b.Remove(ecs.Entity{}, workload.Velocity.ID())
			b.Do(func(*ecs.World) error { return nil })
			x.extra.Skipped++
			x.extra.Applied += 2
		}
	}
	r := x.s.NewRecorder()
	r.SetSortKey(x.v.key)
	return r
}

// compareReport compares a taken report with want plus what bystanders staged since the last
// report.
func (x *fixture) compareReport(op string, got, want deferral.Report) {
	x.Helper()
	want.Skipped += x.extra.Skipped
	want.Applied += x.extra.Applied
	x.extra = deferral.Report{}
	if !slices.Equal(got.Created, want.Created) {
		x.Errorf("%s: report.Created: got %v, want %v", op, got.Created, want.Created)
	}
	type field struct {
		name      string
		got, want int
	}
	for _, f := range []field{
		{"Destroyed", got.Destroyed, want.Destroyed},
		{"IgnoredDestroys", got.IgnoredDestroys, want.IgnoredDestroys},
		{"IgnoredCreates", got.IgnoredCreates, want.IgnoredCreates},
		{"Skipped", got.Skipped, want.Skipped},
		{"NoopRemoves", got.NoopRemoves, want.NoopRemoves},
		{"Applied", got.Applied, want.Applied},
	} {
		if f.got != f.want {
			x.Errorf("%s: report.%s: got %d, want %d", op, f.name, f.got, f.want)
		}
	}
}

// wantIs reports unless errors.Is(err, target).
func (x *fixture) wantIs(op string, err, target error) bool {
	x.Helper()
	if !errors.Is(err, target) {
		x.Errorf("%s: got error %v, want %v", op, err, target)
		return false
	}
	return true
}

// wantNil reports a non-nil err.
func (x *fixture) wantNil(op string, err error) bool {
	x.Helper()
	if err != nil {
		x.Errorf("%s: got error %v, want nil", op, err)
		return false
	}
	return true
}

// want reports got != want.
func want[T comparable](x *fixture, op string, got, want T) bool {
	x.Helper()
	if got != want {
		x.Errorf("%s: got %v, want %v", op, got, want)
		return false
	}
	return true
}

// resolve resolves p with s and reports an error.
func (x *fixture) resolve(op string, s deferral.Strategy, p ecs.Entity) ecs.Entity {
	x.Helper()
	e, err := s.Resolve(p)
	if err != nil {
		x.Errorf("%s: resolve %v: got error %v, want an entity", op, p, err)
	}
	return e
}

// pos returns e's Position, reporting when it has none.
func (x *fixture) pos(op string, w *ecs.World, e ecs.Entity) workload.Vec2 {
	x.Helper()
	v, err := workload.Position.Get(w, e)
	if err != nil {
		x.Errorf("%s: get position of %v: got error %v, want a value", op, e, err)
	}
	return v
}

// vel returns e's Velocity and whether it has one.
func vel(w *ecs.World, e ecs.Entity) (workload.Vec2, bool) {
	v, err := workload.Velocity.Get(w, e)
	return v, err == nil
}

// wantAlive reports when e's liveness is not alive.
func (x *fixture) wantAlive(op string, w *ecs.World, e ecs.Entity, alive bool) {
	x.Helper()
	if got := w.Alive(e); got != alive {
		x.Errorf("%s: alive(%v): got %v, want %v", op, e, got, alive)
	}
}

// wantHash reports when w's hash moved from h.
func (x *fixture) wantHash(op string, w *ecs.World, h uint64) {
	x.Helper()
	if got := w.Hash(); got != h {
		x.Errorf("%s: world hash: got %#x, want %#x (the world changed)", op, got, h)
	}
}

// pt is shorthand for a Position bundle.
func pt(x, y float64) ecs.Bundle { return workload.Position.Value(workload.Vec2{X: x, Y: y}) }

// vl is shorthand for a Velocity bundle.
func vl(x, y float64) ecs.Bundle { return workload.Velocity.Value(workload.Vec2{X: x, Y: y}) }

// life is shorthand for a Lifetime bundle.
func life(s float64) ecs.Bundle { return workload.Lifetime.Value(workload.Life{Remaining: s}) }

// v2 is shorthand for a Vec2.
func v2(x, y float64) workload.Vec2 { return workload.Vec2{X: x, Y: y} }

// errMessageHas reports which of parts err's message lacks.
func errMessageHas(err error, parts ...string) []string {
	var missing []string
	for _, p := range parts {
		if err == nil || !strings.Contains(err.Error(), p) {
			missing = append(missing, p)
		}
	}
	return missing
}
