package harness

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// shuffled is a deliberately non-reproducible test strategy: its commit interleaves the
// recorders' FIFOs in a random order drawn afresh every commit (unseeded), the way a
// mutex-acquisition or completion order would, only more so.
type shuffled struct {
	core  *deferral.Core
	mu    sync.Mutex
	sinks []*shuffledSink
}

type shuffledSink struct{ cmds []shuffledCmd }

type shuffledCmd struct {
	c  deferral.Command
	fn func(*ecs.World) error
}

func (s *shuffledSink) StageKeyed(_ uint64, c deferral.Command) {
	s.cmds = append(s.cmds, shuffledCmd{c: c})
}

func (s *shuffledSink) StageFuncKeyed(_ uint64, fn func(*ecs.World) error) {
	s.cmds = append(s.cmds, shuffledCmd{fn: fn})
}

var _ deferral.Strategy = (*shuffled)(nil)

func newShuffled(w *ecs.World) deferral.Strategy { return &shuffled{core: deferral.NewCore(w)} }

func (s *shuffled) Name() string { return "shuffled" }
func (s *shuffled) Capabilities() deferral.Capabilities {
	return deferral.Capabilities{Order: "random"}
}
func (s *shuffled) World() *ecs.World { return s.core.World() }

func (s *shuffled) NewRecorder() *deferral.Recorder {
	sink := &shuffledSink{}
	s.mu.Lock()
	s.sinks = append(s.sinks, sink)
	s.mu.Unlock()
	return s.core.NewRecorder(sink)
}

func (s *shuffled) Commit() error {
	if err := s.core.Begin(); err != nil {
		return err
	}
	next := make([]int, len(s.sinks))
	for {
		var live []int
		for i, sk := range s.sinks {
			if next[i] < len(sk.cmds) {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			break
		}
		i := live[rand.IntN(len(live))]
		c := &s.sinks[i].cmds[next[i]]
		at := deferral.Pos{Recorder: i, Index: next[i]}
		next[i]++
		var err error
		if c.fn != nil {
			err = s.core.ApplyFunc(at, c.fn)
		} else {
			err = s.core.Apply(at, &c.c)
		}
		if err != nil {
			s.core.End(false)
			return err // test strategy: the suffix is not retained
		}
	}
	for _, sk := range s.sinks {
		sk.cmds = sk.cmds[:0]
	}
	s.core.End(true)
	return nil
}

func (s *shuffled) Pending() int {
	n := 0
	for _, sk := range s.sinks {
		n += len(sk.cmds)
	}
	return n
}

func (s *shuffled) Discard() int {
	n := s.Pending()
	for _, sk := range s.sinks {
		sk.cmds = sk.cmds[:0]
	}
	s.core.Discarded()
	return n
}

func (s *shuffled) Resolve(p ecs.Entity) (ecs.Entity, error) { return s.core.Resolve(p) }
func (s *shuffled) TakeReport() (deferral.Report, error)     { return s.core.TakeReport(s.Pending()) }
func (s *shuffled) Close() error                             { return s.core.Close(s.Pending()) }

// distinctStates runs the Determinism scenario's quick variant for st once and returns its
// distinct-states metric.
func distinctStates(t *testing.T, st StrategyInfo) float64 {
	t.Helper()
	v := determinismScenario.Variants(VariantConfig{Quick: true, Procs: []int{1, 2}})[0]
	res, err := measure(Case{Name: "Determinism/strategy=" + st.Name, Run: determinismScenario.Bench(st, v)}, st.Name, Benchtime{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	n, ok := res.Value("distinct-states")
	if !ok {
		t.Fatalf("%s: no distinct-states metric", st.Name)
	}
	return n
}

// TestDeterminismDetector proves the Determinism scenario's detector: a strategy whose
// cross-recorder order is random must show more than one final state, and every strategy
// that declares a reproducible order exactly one.
func TestDeterminismDetector(t *testing.T) {
	if n := distinctStates(t, StrategyInfo{Strategy: suite.Strategy{Name: "shuffled"}, Factory: newShuffled}); n <= 1 {
		t.Errorf("shuffled (random order): distinct-states %v, want > 1", n)
	}
	for _, st := range Strategies {
		if st.Baseline() {
			continue
		}
		w := ecs.NewWorld()
		s := st.Factory(w)
		reproducible := s.Capabilities().ReproducibleOrder
		s.Close()
		if !reproducible {
			t.Logf("%s declares a non-reproducible order: distinct-states %v (not asserted: timing-dependent)", st.Name, distinctStates(t, st))
			continue
		}
		if n := distinctStates(t, st); n != 1 {
			t.Errorf("%s declares a reproducible order but distinct-states is %v, want 1", st.Name, n)
		}
	}
}

// TestDeterminismOneCasePerRun: -procs 1,2 plans Determinism once per strategy, sweeping those
// GOMAXPROCS itself (runs=2 sweeps × 2 values at -quick), not once per -procs value: the copies
// ran the same sweep under another -N suffix and stood as verdicts of their own.
func TestDeterminismOneCasePerRun(t *testing.T) {
	sts, err := SelectStrategies([]string{"cmdbuffer"})
	if err != nil {
		t.Fatal(err)
	}
	cases := Plan([]Scenario{determinismScenario}, sts, true, []int{1, 2})
	if len(cases) != 1 || !strings.Contains(cases[0].Name, "runs=4/") {
		var names []string
		for _, c := range cases {
			names = append(names, fmt.Sprintf("%s-%d", c.Name, c.Procs))
		}
		t.Fatalf("Determinism with -procs 1,2: cases %v; want one, runs=4", names)
	}
}
