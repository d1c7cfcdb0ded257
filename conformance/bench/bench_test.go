package bench

import (
	"flag"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/conformance/internal/reference"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// factory is the strategy these tests run the bodies on: the conformance suite's reference.
var factory = reference.Factory(reference.Ordered, reference.NoBug)

// setBenchtime sets -test.benchtime, which testing.Benchmark obeys, until the test ends.
func setBenchtime(t *testing.T, d string) {
	t.Helper()
	f := flag.Lookup("test.benchtime")
	old := f.Value.String()
	if err := f.Value.Set(d); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Value.Set(old) })
}

// measure runs body under testing.Benchmark and fails t with its error.
func measure(t *testing.T, name string, body func(b B) error) testing.BenchmarkResult {
	t.Helper()
	var err error
	r := testing.Benchmark(func(b *testing.B) {
		if e := body(Testing(b)); e != nil && err == nil {
			err = e
		}
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.N == 0 {
		t.Fatalf("%s: no iterations", name)
	}
	return r
}

// TestBodiesReportTheirUnits: every body, for the strategy and the baseline, reports the
// metrics its documentation names, finite and not negative (the units a deferbench run and
// a go test of conformance.Benchmark* both print).
func TestBodiesReportTheirUnits(t *testing.T) {
	setBenchtime(t, "3x")
	type row struct {
		name  string
		body  func(b B) error
		units []string
	}
	var rows []row
	for _, f := range []struct {
		name string
		fac  deferral.Factory
	}{{"reference", factory}, {Baseline, nil}} {
		fac := f.fac
		for _, cmd := range StageCmds {
			rows = append(rows, row{"Stage/" + f.name + "/" + cmd, func(b B) error { return Stage(b, fac, cmd) }, []string{"heap-B/cmd"}})
		}
		for _, mix := range StageApplyMixes {
			rows = append(rows, row{"StageApply/" + f.name + "/" + mix, func(b B) error { return StageApply(b, fac, mix) }, nil})
		}
		for _, p := range []int{1, 2} {
			rows = append(rows, row{"Contention/" + f.name + "/" + strconv.Itoa(p), func(b B) error { return Contention(b, fac, p) },
				[]string{"cmds/s", "efficiency"}})
		}
	}
	rows = append(rows,
		row{"Contention/noop/2", func(b B) error { return ContentionNoop(b, 2) }, []string{"cmds/s", "efficiency", "ns/op", "B/op", "allocs/op"}},
		row{"Spike/reference", func(b B) error { return Spike(b, factory, 1<<12) }, []string{"retained-B", "steady-B", "retained-x"}},
		row{"Spike/reference/archetypes", func(b B) error { return SpikeOn(b, factory, 1<<12, ecs.Archetypes) }, []string{"retained-B", "steady-B", "retained-x"}},
		row{"SpikeClosures/reference/archetypes", func(b B) error { return SpikeClosuresOn(b, factory, 1<<12, ecs.Archetypes) }, []string{"retained-B", "steady-B", "retained-x"}})
	for _, wl := range StructuralWorkloads {
		for _, s := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
			rows = append(rows, row{"Structural/reference/" + wl + "/" + s.String(), func(b B) error { return Structural(b, factory, wl, s) }, []string{CmdsUnit}})
		}
	}
	for _, r := range rows {
		res := measure(t, r.name, r.body)
		for _, u := range r.units {
			v, ok := res.Extra[u]
			if !ok || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: %s = %v (reported %v), want a finite figure ≥ 0", r.name, u, v, ok)
			}
		}
		if strings.HasSuffix(r.name, "/1") && res.Extra["efficiency"] != 1 {
			t.Errorf("%s: efficiency %v, want 1 (single producer)", r.name, res.Extra["efficiency"])
		}
	}
}

// TestBadVariants: an unknown variant, a nil factory where a strategy is needed, and a
// producer count below 1 are errors that name the input, not panics.
func TestBadVariants(t *testing.T) {
	setBenchtime(t, "1x")
	for _, c := range []struct {
		body func(b B) error
		want string
	}{
		{func(b B) error { return Stage(b, factory, "typo") }, `unknown cmd "typo"`},
		{func(b B) error { return StageApply(b, nil, "typo") }, `unknown mix "typo"`},
		{func(b B) error { return Contention(b, factory, 0) }, "producers 0"},
		{func(b B) error { return Spike(b, nil, 1) }, "give a strategy"},
		{func(b B) error { return Spike(b, factory, 0) }, "size 0"},
	} {
		var err error
		testing.Benchmark(func(b *testing.B) { err = c.body(Testing(b)) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// countingMeter is a Meter that counts the calls.
type countingMeter struct{ starts, reports int }

func (m *countingMeter) Start(deferral.Strategy) { m.starts++ }
func (m *countingMeter) Report(b B)              { m.reports++; b.ReportMetric(7, "widgets/op") }

// TestMeterWrapsTheTimedPart: StageApply starts and reports each meter once per call of the
// body, for a strategy, in every mix; the baseline, which has no strategy, is not metered.
func TestMeterWrapsTheTimedPart(t *testing.T) {
	setBenchtime(t, "2x")
	for _, mix := range StageApplyMixes {
		var m countingMeter
		calls := 0
		res := measure(t, mix, func(b B) error { calls++; return StageApply(b, factory, mix, &m) })
		if m.starts != calls || m.reports != calls || res.Extra["widgets/op"] != 7 {
			t.Errorf("%s: %d starts and %d reports in %d calls, widgets/op %v", mix, m.starts, m.reports, calls, res.Extra["widgets/op"])
		}
		var base countingMeter
		measure(t, mix, func(b B) error { return StageApply(b, nil, mix, &base) })
		if base.starts != 0 || base.reports != 0 {
			t.Errorf("%s: the baseline was metered (%d starts, %d reports)", mix, base.starts, base.reports)
		}
	}
}

// traceStager logs what runAddRemove asks of it, one operation or commit at a time.
type traceStager struct{ log []int } // operation j, or -1 for a commit

func (x *traceStager) stage(_ []ecs.Entity, j, k, _ int) {
	if j >= k || (j < addRemoveRound/2) != (k <= addRemoveRound/2) || k > addRemoveRound {
		panic("stage run crosses a commit")
	}
	for ; j < k; j++ {
		x.log = append(x.log, j)
	}
}

func (x *traceStager) commit() error { x.log = append(x.log, -1); return nil }

// TestRunAddRemoveSplits checks that however b.N splits the rounds, the operations come in
// round order with a commit after each half, exactly n of them per call.
func TestRunAddRemoveSplits(t *testing.T) {
	var want []int
	for range 3 {
		for j := range addRemoveRound {
			want = append(want, j)
			if j == addRemoveRound/2-1 || j == addRemoveRound-1 {
				want = append(want, -1)
			}
		}
	}
	for _, sizes := range [][]int{{1200}, {1, 1199}, {199, 1, 1, 399, 600}, {200, 200, 800}, {7, 393, 401, 399}} {
		var x traceStager
		j := 0
		for _, n := range sizes {
			var err error
			if j, err = runAddRemove(&x, nil, j, n); err != nil {
				t.Fatal(err)
			}
		}
		if j != 0 || !slices.Equal(x.log, want) {
			t.Errorf("sizes %v: ended at %d, log differs from three whole rounds (%d entries, want %d)", sizes, j, len(x.log), len(want))
		}
	}
}

// TestContentionFullRounds: a P > 1 Contention call stages at least contentionMinCall commands
// per producer whatever b.N (1x, 2x, or a ramp's first call), so that its ns/op and efficiency
// measure staging, not the fixed cost of a round's barrier, and it reports them per command
// staged.
func TestContentionFullRounds(t *testing.T) {
	for _, bt := range []string{"1x", "3x"} {
		setBenchtime(t, bt)
		const p = 3
		var inRounds, alone int
		r := testing.Benchmark(func(b *testing.B) {
			inRounds, alone = 0, 0
			contentionInterleaved(Testing(b), p, contentionRound, contentionFloor(b.N, p, contentionRound), func(n int) { inRounds += n }, func(n int) { alone += n })
		})
		// The first round is the one-command-per-producer wake-up after ReadMemStats.
		if want := p + p*contentionMinCall; inRounds != want || alone != contentionMinCall {
			t.Errorf("%s: %d commands in P-producer rounds and %d alone; want %d and %d", bt, inRounds, alone, want, contentionMinCall)
		}
		if cmds, ok := r.Extra["cmds/s"]; !ok || !(cmds > 0) || math.IsInf(cmds, 0) {
			t.Errorf("%s: cmds/s %v", bt, r.Extra)
		}
	}
}

func TestRoundLength(t *testing.T) {
	for _, c := range []struct {
		probe time.Duration
		want  int
	}{
		{0, contentionRound},
		{time.Microsecond, contentionRound},         // 1 ns per command: capped
		{20 * time.Microsecond, 51200},              // 20 ns per command: 1 ms rounds
		{400 * time.Microsecond, 2560},              // lazyguarded's 400 ns
		{10 * time.Millisecond, contentionMinRound}, // slower than 1 ms a probe: the floor
	} {
		if got := roundLength(c.probe); got != c.want {
			t.Errorf("roundLength(%v) = %d, want %d", c.probe, got, c.want)
		}
	}
}

func TestContentionFloor(t *testing.T) {
	for _, c := range []struct{ n, p, per, want int }{
		{1, 3, contentionRound, 3 * contentionMinCall}, // a ramp's first call
		{1, 3, 2560, 3 * 2560},                         // rounds shorter than the floor: one round
		{1_000_000, 3, contentionRound, 1_000_000},     // enough already
	} {
		if got := contentionFloor(c.n, c.p, c.per); got != c.want {
			t.Errorf("contentionFloor(%d, %d, %d) = %d, want %d", c.n, c.p, c.per, got, c.want)
		}
	}
}

// TestMovesPerOp: on archetype storage StageApplyOn reports the rows its timed commits moved
// per op (MovesUnit): one per component operation for the one-by-one reference and the
// baseline in addremove2x100 (whole rounds: 400 iterations), none for Sets; on slots storage
// no such metric.
func TestMovesPerOp(t *testing.T) {
	setBenchtime(t, "400x")
	for _, f := range []struct {
		name string
		fac  deferral.Factory
	}{{"reference", factory}, {Baseline, nil}} {
		for _, c := range []struct {
			mix  string
			want float64
		}{{"addremove2x100", 1}, {"homogeneous", 0}} {
			res := measure(t, c.mix, func(b B) error { return StageApplyOn(b, f.fac, c.mix, ecs.Archetypes) })
			if got, ok := res.Extra[MovesUnit]; !ok || got != c.want {
				t.Errorf("%s %s on archetypes: %s = %v (reported %v), want %v", f.name, c.mix, MovesUnit, got, ok, c.want)
			}
			res = measure(t, c.mix, func(b B) error { return StageApplyOn(b, f.fac, c.mix, ecs.Slots) })
			if v, ok := res.Extra[MovesUnit]; ok {
				t.Errorf("%s %s on slots: reports %s = %v, want no such metric", f.name, c.mix, MovesUnit, v)
			}
		}
	}
}

// TestStructuralMoves: on archetype storage Structural reports moves/op as the strategy applies
// the commands; the reference applies them one by one, so a spawn moves its row twice (the two
// adds; the create places it) and a status change once per command (every add adds a component
// the entity lacks, every remove removes one it has): moves/op equals cmds/op. b.N values that
// end inside a commit batch and a frame count too. On slots storage no moves/op.
func TestStructuralMoves(t *testing.T) {
	for _, bt := range []string{"1x", "300x", "5000x"} {
		setBenchtime(t, bt)
		for _, wl := range StructuralWorkloads {
			res := measure(t, wl, func(b B) error { return Structural(b, factory, wl, ecs.Archetypes) })
			moves, ok := res.Extra[MovesUnit]
			cmds := res.Extra[CmdsUnit]
			want := cmds
			if wl == "spawn" {
				want = 2
				if cmds != 3 {
					t.Errorf("%s %s: %s = %v, want 3", bt, wl, CmdsUnit, cmds)
				}
			} else if cmds < 1 || cmds > 3 {
				t.Errorf("%s %s: %s = %v, want 1 to 3", bt, wl, CmdsUnit, cmds)
			}
			if !ok || moves != want {
				t.Errorf("%s %s on archetypes: %s = %v (reported %v), want %v", bt, wl, MovesUnit, moves, ok, want)
			}
			res = measure(t, wl, func(b B) error { return Structural(b, factory, wl, ecs.Slots) })
			if v, ok := res.Extra[MovesUnit]; ok {
				t.Errorf("%s %s on slots: reports %s = %v, want no such metric", bt, wl, MovesUnit, v)
			}
		}
	}
}

// TestStructuralBadInput: Structural without a strategy, or of an unknown workload, is an
// error naming the input.
func TestStructuralBadInput(t *testing.T) {
	setBenchtime(t, "1x")
	for _, c := range []struct {
		body func(b B) error
		want string
	}{
		{func(b B) error { return Structural(b, nil, "spawn", ecs.Slots) }, "give a strategy"},
		{func(b B) error { return Structural(b, factory, "typo", ecs.Archetypes) }, `unknown workload "typo"`},
	} {
		var err error
		testing.Benchmark(func(b *testing.B) { err = c.body(Testing(b)) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// TestAppendSetFloorMatchesAppendSet: the baseline's hand-written append writes the words
// deferral.AppendSet does (the record deferral.Set stages), over a buffer holding other bytes.
func TestAppendSetFloorMatchesAppendSet(t *testing.T) {
	_, ents, err := NewTargets()
	if err != nil {
		t.Fatal(err)
	}
	var got, want []uint64
	for i, e := range ents[:8] {
		v := workload.Vec2{X: float64(i) + 0.5, Y: -float64(i)}
		got = AppendSetFloor(got, e, v)
		want = deferral.AppendSet(want, e, workload.Position, v)
	}
	if !slices.Equal(got, want) {
		t.Errorf("AppendSetFloor wrote %x; AppendSet %x", got, want)
	}
}
