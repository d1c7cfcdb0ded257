package conformance

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Determinism configures DistinctStates: the parallel particle frame (workload.StepParallel
// with workload.Replace), made order-sensitive and run again and again. Zero fields take the
// defaults named on them.
type Determinism struct {
	Runs      int     // runs per GOMAXPROCS value; default 3
	Frames    int     // frames per run; default 8
	Entities  int     // particles populated before the first frame; default 1000
	Producers int     // decision goroutines per frame (fixed across runs); default 4
	Procs     []int   // GOMAXPROCS values; default: the current value only
	Seed      uint64  // workload seed, the same in every run; default 1
	Rate      float64 // replace rate per survivor and frame; default 0.1
	Jitter    float64 // probability of a runtime.Gosched before each decision; default 0.25, negative for none
	// JitterSeed seeds the scheduling jitter; each run, GOMAXPROCS value and producer draws
	// from its own stream derived from it, so runs are jittered differently but replayably.
	JitterSeed uint64
	// Dt is the frame's time step in seconds; default 1/60.
	Dt float64
	// Storage is the storage of the runs' worlds; default ecs.Slots.
	Storage ecs.Storage
}

// DistinctStates runs the order-sensitive parallel frame workload runs times for each
// GOMAXPROCS value in procs, frames frames each, with scheduling jitter seeded by jitterSeed,
// and returns the number of distinct final world hashes: 1 means the strategy reached the same
// world every time. It is Determinism{Runs: runs, Frames: frames, Procs: procs, JitterSeed:
// jitterSeed}.DistinctStates(f); see there. Errors: runs or frames below 1, and those of
// Determinism.DistinctStates.
func DistinctStates(f Factory, runs, frames int, procs []int, jitterSeed uint64) (int, error) {
	if runs < 1 || frames < 1 {
		return 0, fmt.Errorf("distinct states: runs %d, frames %d: want at least 1 of each", runs, frames)
	}
	d := Determinism{Runs: runs, Frames: frames, Procs: procs, JitterSeed: jitterSeed}
	return d.DistinctStates(f)
}

// DistinctStates runs the workload d describes with the strategies f makes and returns the
// number of distinct final world hashes (the harness's distinct-states metric). Every run
// starts from the same populated world and a fresh strategy; each frame's producers decide
// with workload.Replace and additionally stage, each, a Set of one shared beacon entity's
// Velocity — last writer wins, so any difference in cross-recorder apply order shows in the
// hash. Before each decision a producer yields (runtime.Gosched) with probability d.Jitter.
//
// It sets GOMAXPROCS for each value of d.Procs and restores it before returning, so it must
// not run in parallel with other code that depends on GOMAXPROCS. Errors: an invalid
// configuration (a count below 1, a rate or jitter outside [0, 1]), a frame's error, or the
// strategy's Close error; each names the run.
func (d Determinism) DistinctStates(f Factory) (int, error) {
	d = d.withDefaults()
	if err := d.validate(); err != nil {
		return 0, err
	}
	if f == nil {
		return 0, errors.New("distinct states: factory is nil")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	seen := map[uint64]bool{}
	for pi, procs := range d.Procs {
		runtime.GOMAXPROCS(procs)
		for run := range d.Runs {
			h, err := d.run(f, uint64(pi)<<32|uint64(run))
			if err != nil {
				return 0, fmt.Errorf("distinct states: GOMAXPROCS %d run %d: %w", procs, run, err)
			}
			seen[h] = true
		}
	}
	return len(seen), nil
}

func (d Determinism) withDefaults() Determinism {
	def := func(v *int, x int) {
		if *v == 0 {
			*v = x
		}
	}
	def(&d.Runs, 3)
	def(&d.Frames, 8)
	def(&d.Entities, 1000)
	def(&d.Producers, 4)
	if len(d.Procs) == 0 {
		d.Procs = []int{runtime.GOMAXPROCS(0)}
	}
	if d.Seed == 0 {
		d.Seed = 1
	}
	if d.Rate == 0 {
		d.Rate = 0.1
	}
	switch {
	case d.Jitter == 0:
		d.Jitter = 0.25
	case d.Jitter < 0:
		d.Jitter = 0
	}
	if d.Dt == 0 {
		d.Dt = 1.0 / 60
	}
	return d
}

func (d Determinism) validate() error {
	switch {
	case d.Runs < 1:
		return fmt.Errorf("distinct states: runs %d: want at least 1", d.Runs)
	case d.Frames < 1:
		return fmt.Errorf("distinct states: frames %d: want at least 1", d.Frames)
	case d.Entities < 0:
		return fmt.Errorf("distinct states: entities %d: want at least 0", d.Entities)
	case d.Producers < 1:
		return fmt.Errorf("distinct states: producers %d: want at least 1", d.Producers)
	case !(d.Rate >= 0 && d.Rate <= 1):
		return fmt.Errorf("distinct states: rate %v: want a value in [0, 1]", d.Rate)
	case !(d.Jitter >= 0 && d.Jitter <= 1):
		return fmt.Errorf("distinct states: jitter %v: want a value in [0, 1]", d.Jitter)
	}
	for _, p := range d.Procs {
		if p < 1 {
			return fmt.Errorf("distinct states: GOMAXPROCS value %d: want at least 1", p)
		}
	}
	return nil
}

// run runs one repetition and returns the final world hash. stream distinguishes the
// repetition's jitter.
func (d Determinism) run(f Factory, stream uint64) (uint64, error) {
	w := ecs.NewWorld(ecs.WithStorage(d.Storage))
	if err := workload.Populate(w, d.Entities, d.Seed); err != nil {
		return 0, err
	}
	beacon, err := w.Create(workload.Velocity.Value(workload.Vec2{}))
	if err != nil {
		return 0, err
	}
	s := f(w)
	if s == nil {
		return 0, errors.New("factory returned a nil strategy")
	}
	jitter := make([]*rand.Rand, d.Producers)
	for i := range jitter {
		jitter[i] = rand.New(rand.NewPCG(d.JitterSeed^stream*0x9e3779b97f4a7c15, uint64(i)))
	}
	decide := OrderSensitive(d.Seed, d.Rate, beacon, d.Jitter, jitter)
	sim := workload.NewSim(s)
	for frame := range d.Frames {
		if err := sim.StepParallel(d.Dt, d.Producers, decide); err != nil {
			s.Discard()
			s.Close()
			return 0, fmt.Errorf("frame %d: %w", frame, err)
		}
	}
	if err := s.Close(); err != nil {
		return 0, fmt.Errorf("close: %w", err)
	}
	return w.Hash(), nil
}

// OrderSensitive returns workload.Replace(seed, rate) made sensitive to the cross-recorder
// apply order and jittered: before each survivor's decision, producer chunk yields
// (runtime.Gosched) with probability jitter, drawing from jitterRand[chunk] (one generator
// per producer, none shared; nil means no jitter); after its part, each producer stages a Set
// of beacon's Velocity to (chunk, frame), so the beacon ends with the value of whichever
// producer's commands applied last. beacon must have a Velocity and no Position (Replace
// leaves it alone). The returned callbacks never fail.
func OrderSensitive(seed uint64, rate float64, beacon ecs.Entity, jitter float64, jitterRand []*rand.Rand) workload.ParallelDecisions {
	inner := workload.Replace(seed, rate)
	return func(v workload.View, chunk int, part []ecs.Entity, rec *deferral.Recorder) error {
		var rng *rand.Rand
		if chunk < len(jitterRand) {
			rng = jitterRand[chunk]
		}
		for i := range part {
			if rng != nil && rng.Float64() < jitter {
				runtime.Gosched()
			}
			if err := inner(v, chunk, part[i:i+1:i+1], rec); err != nil {
				return err
			}
		}
		rec.Set(beacon, workload.Velocity.Value(workload.Vec2{X: float64(chunk), Y: float64(v.Frame())}))
		return nil
	}
}
