package harness

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// ErrNotCounted marks a case whose work depends on scheduling, so that counting what it does
// (instructions, cycles) measures the scheduler as much as the strategy: Contention, Readers
// and Determinism, and Frame at GOMAXPROCS above 1 (one producer per P). Countable wraps it
// with the reason; test it with errors.Is.
var ErrNotCounted = errors.New("not counted")

// Countable returns nil when c does the same work at a given iteration count whatever the
// scheduler does: it runs on one goroutine at GOMAXPROCS=1 (Frame there has one producer).
// Otherwise it returns ErrNotCounted wrapped with the reason, one line.
func Countable(c Case) error {
	switch c.Scenario {
	case "Contention":
		return fmt.Errorf("%s: %w: producers race for the target, so the work per command depends on scheduling", c.FullName(), ErrNotCounted)
	case "Readers":
		return fmt.Errorf("%s: %w: readers and producers interleave as the scheduler runs them", c.FullName(), ErrNotCounted)
	case "Determinism":
		return fmt.Errorf("%s: %w: it injects scheduling jitter on purpose and sweeps GOMAXPROCS", c.FullName(), ErrNotCounted)
	}
	if c.Procs != 1 {
		return fmt.Errorf("%s: %w: GOMAXPROCS=%d runs several producers; counts are taken at GOMAXPROCS=1", c.FullName(), ErrNotCounted, c.Procs)
	}
	return nil
}

// countedEntities is the largest world (entities=N) that a run's plan counts: setting up a
// world of 100,000 or 1,000,000 entities under cachegrind takes each child 3 to 13 s of
// processor time, twice per row, for a per-frame count whose method the smaller worlds
// already show (Frame's seven rows at 1,000,000 entities were 260 s of an 11-minute run).
const countedEntities = 10_000

// CountCost returns "" when a run's plan counts c (c is Countable), or the reason it leaves c
// out for cost, one line: a world above countedEntities entities. The case can still be
// counted by itself (deferbench count-child, counts.Count).
func CountCost(c Case) string {
	for _, part := range strings.Split(c.Name, "/") {
		if v, ok := strings.CutPrefix(part, "entities="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > countedEntities {
				return fmt.Sprintf("cost: a world of more than %d entities takes each counting child seconds to set up under cachegrind; the smaller worlds are counted", countedEntities)
			}
		}
	}
	return ""
}

// FixedIters are the iteration counts a case is counted at: the count tier runs it at Low
// and at High and divides the difference of the totals by High−Low, so set-up and start-up
// cancel. High−Low holds whole batches of the case (Stage drops its buffers every 1024
// commands; StageApply commits every 256 of a 1024-command sequence, or runs rounds of 400
// component operations; Structural destroys its spawns every 4096 and changes 1024 entities
// a frame; Peer creates and destroys 1024 entities at a time), and so does
// Low + m·(High−Low) for any m: a counter that needs a longer difference to rise above its
// noise may grow High that way up to MaxHigh (0: no limit). Frame stays inside one segment
// of 50 frames (MaxHigh 50), so no rebuild of the world, which is not timed, is counted.
type FixedIters struct{ Low, High, MaxHigh int }

// fixedIters is FixedIters by scenario.
var fixedIters = map[string]FixedIters{
	"Stage":      {Low: 2 * stageBatch, High: 258 * stageBatch},
	"StageApply": {Low: 25600, High: 10 * 25600}, // lcm(1024, 400) = 6400, and commits at 256
	"Frame":      {Low: 2, High: 10, MaxHigh: frameSegment},
	"Structural": {Low: 8192, High: 10 * 8192}, // spawn's cleanup every 4096, effects' frame of 1024
	"Spike":      {Low: 2, High: 130},
	"Peer":       {Low: 2 * peerBatch, High: 258 * peerBatch},
}

// ItersFor returns the iteration counts c is counted at; a scenario without its own counts
// runs 1024 and 1024·257.
func ItersFor(c Case) FixedIters {
	if f, ok := fixedIters[c.Scenario]; ok {
		return f
	}
	return FixedIters{Low: 1024, High: 257 * 1024}
}

// FindCase returns the case named name (without the Benchmark prefix, with the -GOMAXPROCS
// suffix when it is not 1) among every scenario and strategy, at the full sizes or the quick
// ones. An unknown name is an error naming it.
func FindCase(name string) (Case, error) {
	for _, quick := range []bool{false, true} {
		for _, procs := range [][]int{{1}, nil} {
			for _, c := range Plan(Scenarios, Strategies, quick, procs) {
				if c.FullName() == name {
					return c, nil
				}
			}
		}
	}
	return Case{}, fmt.Errorf("unknown benchmark %q (deferbench list names the scenarios and strategies)", name)
}

// RunFixed runs case c once at exactly n iterations (as testing.Benchmark at -benchtime nx:
// no sizing ramp, and the body runs once at 1 iteration first, as testing always does) at
// GOMAXPROCS c.Procs, and returns the result. It is what a counting child process runs: the
// parent counts the whole process at two values of n. It must not be called concurrently.
func RunFixed(c Case, n int) (*benchfmt.Result, error) {
	if n < 1 {
		return nil, fmt.Errorf("iterations %d: must be at least 1", n)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.Procs))
	res, _, err := measureTimed(c, c.FullName(), Benchtime{N: n})
	return res, err
}
