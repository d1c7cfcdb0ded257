package harness

import (
	"fmt"
	"strings"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/hybrid/hybridframe"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/strategies/versioned"
	"github.com/deferbench/deferbench/workload"
)

// StrategyInfo describes one strategy the harness measures. Every scenario runs every strategy
// in Strategies, so adding a strategy to the comparison is one line in that table.
type StrategyInfo struct {
	// Name is the value of the strategy= key in benchmark names.
	Name string
	// Description is one line for `deferbench list` and the README.
	Description string
	// Factory makes the strategy over a world. It is nil for the baseline, which is not a
	// deferral.Strategy: scenarios that need a strategy skip it.
	Factory deferral.Factory
	// FrameStepper, when set, drives the Frame scenario the design's own way instead of
	// workload.Sim.StepParallel: it returns a function that runs one frame of dt with
	// producers producers deciding with decide. hybrid runs the frame as its task graph.
	FrameStepper func(st deferral.Strategy, producers int, decide workload.ParallelDecisions) (step func(dt float64) error, err error)
	// ControlOf, when set, names the only scenario this entry runs in: a reference row that
	// is not a strategy (noop in Contention measures the harness; ecs and ark in Peer the
	// worlds).
	ControlOf string
}

// Baseline reports whether s is not a strategy (Factory is nil): the in-run lower bound, or a
// control row (ControlOf set), which its one scenario handles first.
func (s StrategyInfo) Baseline() bool { return s.Factory == nil }

// BaselineName is the name of the in-run lower bound.
const BaselineName = "baseline"

// Strategies is the strategy table, in the order results are interleaved within each
// repetition. The baseline comes first.
var Strategies = []StrategyInfo{
	{Name: BaselineName, Description: "lower bound: append the record a recorder writes (Stage, Contention: the compact stream record, deferral.AppendSet; StageApply: a deferral.Command, applied with deferral.Core) or the closure to a preallocated slice"},
	{Name: "cmdbuffer", Description: "design 2: per-recorder private buffers of typed POD records plus a closure tier; commit in (sort key, recorder, FIFO) order", Factory: cmdbuffer.Factory},
	{Name: "lazyguarded", Description: "design 1: every staged command is a task on the target's mutex-guarded FIFO pipe; readers wait behind parked writes", Factory: lazyguarded.Factory},
	{Name: "lazyguarded-pass", Description: "design 1, readers pass parked writes (stale reads, opt-in)", Factory: lazyguarded.FactoryPass},
	{Name: "handrolled", Description: "design 3: producers fill their own slices and hand them over; commit gathers in hand-over order and applies", Factory: handrolled.Factory},
	{Name: "hybrid", Description: "design 4: cmdbuffer's buffers with a recorder per graph node; commit in (sort key, recorder, FIFO) order", Factory: hybrid.Factory, FrameStepper: hybridFrame},
	{Name: "versioned", Description: "design 5: cmdbuffer's staging, published to a second replica of the world that readers read lock-free; commit = apply, swap, resync (replay)", Factory: versioned.Factory},
	{Name: NoopName, Description: "control, not a strategy (Contention only): each producer runs a register-only loop, one step per command, touching no memory; its efficiency is the ceiling the harness itself allows", ControlOf: "Contention"},
	{Name: peerECS, Description: "reference, not a strategy (Peer only): ecs.World called immediately", ControlOf: "Peer"},
	{Name: peerArk, Description: "reference, not a strategy (Peer only): Ark (github.com/mlange-42/ark) called immediately", ControlOf: "Peer"},
}

// StrategyNames returns the names in Strategies, in order.
func StrategyNames() []string {
	names := make([]string, len(Strategies))
	for i, s := range Strategies {
		names[i] = s.Name
	}
	return names
}

// SelectStrategies returns the strategies named in names (all of them when names is empty), in
// table order. An unknown name is an error naming it and the valid names.
func SelectStrategies(names []string) ([]StrategyInfo, error) {
	return selectByName(Strategies, names, "strategy", func(s StrategyInfo) string { return s.Name })
}

func selectByName[T any](table []T, names []string, what string, name func(T) string) ([]T, error) {
	if len(names) == 0 {
		return append([]T(nil), table...), nil
	}
	want := map[string]bool{}
	for _, n := range names {
		found := false
		for _, t := range table {
			if name(t) == n {
				found = true
				break
			}
		}
		if !found {
			valid := make([]string, len(table))
			for i, t := range table {
				valid[i] = name(t)
			}
			return nil, fmt.Errorf("unknown %s %q (valid: %s)", what, n, strings.Join(valid, ", "))
		}
		want[n] = true
	}
	var out []T
	for _, t := range table {
		if want[name(t)] {
			out = append(out, t)
		}
	}
	return out, nil
}

// hybridFrame runs the particle frame as hybrid's static task graph: movement, lifetime,
// cleanup, the decide nodes in parallel, the derived flush node, a render read.
func hybridFrame(st deferral.Strategy, producers int, decide workload.ParallelDecisions) (func(float64) error, error) {
	h, ok := st.(*hybrid.ECS)
	if !ok {
		return nil, fmt.Errorf("hybrid frame: strategy is %T, want *hybrid.ECS", st)
	}
	pf, err := hybridframe.New(h, producers, workload.NewView, decide)
	if err != nil {
		return nil, err
	}
	return pf.Step, nil
}
