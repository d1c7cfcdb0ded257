package suite

import "github.com/deferbench/deferbench/deferral"

// Stage declares the Stage scenario.
var Stage = Scenario{
	Name: "Stage",
	Description: "one producer stages commands through one recorder (deferral.Set of a 16-byte value, or Do with a closure capturing 24 B or 264 B); " +
		"ns/op per staged command, buffers dropped every 1024 commands; heap-B/cmd = live heap per staged command before commit",
	Headlines: []Headline{
		{Unit: "ns/op", Where: []Param{{Key: "cmd", Value: "typed"}}, Need: "lowest staging cost (typed commands)"},
		{Unit: "allocs/op", Where: []Param{{Key: "cmd", Value: "typed"}}, Need: "no allocation while staging (typed commands; under 0.01 allocs/op, amortised buffer growth, counts as none)", Meets: allBelow(0.01)},
		{Unit: "heap-B/cmd", Where: []Param{{Key: "cmd", Value: "typed"}}},
	},
}

// StageApply declares the StageApply scenario.
var StageApply = Scenario{
	Name: "StageApply",
	Description: "one producer stages commands and commits every 256; ns/op per command, staging plus apply; " +
		"mix: all Set (homogeneous), 8 command types round-robin, or the same 8 shuffled; " +
		"addremove2x100: add 2 components to 100 entities, commit, remove them, commit, ns/op per component operation; " +
		"versioned also apply-, swap-, resync-ns/publish and replica-B/entity",
	Headlines: []Headline{
		{Unit: "ns/op", Need: "lowest stage plus commit cost (mix = {mix})"},
		{Unit: "replica-B/entity", Need: "memory for readers that never wait: a second replica, bytes per live entity (mix = {mix})", Cost: true},
	},
}

// Structural declares the Structural scenario.
var Structural = Scenario{
	Name: "Structural",
	Description: "structural changes a commit can apply entity by entity or merge per entity; one producer, commit every 256 ops; " +
		"workload=spawn: one op = a create with Position and two adds (Velocity, Lifetime) through its placeholder (workload.Spawn); " +
		"workload=effects: one op = one entity's status change, 1 to 3 of six tag and data components added or removed (workload.EffectChurn, 1024 entities a frame); " +
		"ns/op per op; cmds/op = commands staged per op; on archetype storage moves/op = rows moved between tables per op, rows/op = rows written into tables per op (a create's placed row and each move) " +
		"(one per add or remove applied one by one; fewer where a commit merges an entity's commands)",
	Headlines: []Headline{{Unit: "ns/op", Need: "lowest cost of structural changes (workload = {workload})"}},
}

// Frame declares the Frame scenario.
var Frame = Scenario{
	Name: "Frame",
	Description: "the particle frame (workload.Sim.StepParallel with workload.Replace, 5% replaced per frame; " +
		"hybrid runs it as its task graph) with GOMAXPROCS producers; ns/op per frame; gc/frame = collections per frame; " +
		"versioned also apply-, swap-, resync-ns/publish and replica-B/entity",
	Headlines: []Headline{{Unit: "ns/op", Need: "lowest frame time at {entities} entities"}},
	Per:       "frame",
	Charts: []Chart{
		{Title: "median time per frame", YLabel: "time per frame", Units: []string{"ns/op"}},
		{Name: PlotFrameScaling, Title: "time per frame against entities", YLabel: "time per frame", Units: []string{"ns/op"}, Against: "entities"},
		{Name: PlotFramePerEntity, Title: "time per frame per entity against entities", YLabel: "time per frame ÷ entities",
			Units: []string{"ns/op"}, Against: "entities", PerAgainst: true},
	},
}

// Contention declares the Contention scenario.
var Contention = Scenario{
	Name: "Contention",
	Description: "P producers stage typed commands concurrently into one target, each through its own recorder, " +
		"swept over P and GOMAXPROCS, in rounds of up to 65536 commands per producer (about 1 ms of single-producer staging, at least 1024); ns/op per command, cmds/s, " +
		"efficiency = throughput(P) / (min(P, GOMAXPROCS) × throughput(1)), throughput(1) measured in single-producer reference rounds " +
		"interleaved with the timed ones; strategy=noop is the control (no memory touched)",
	Headlines: []Headline{
		// A programmer with many producers needs the most commands staged per second when
		// all of them run at once: efficiency is relative to each strategy's own
		// single-producer speed, so a strategy slow alone can score well on it while staging
		// a tenth of the others' commands. The need is answered by throughput; efficiency is
		// ranked beside it, for scaling.
		{Unit: "cmds/s", Higher: true, Where: []Param{{Key: "producers", Value: "NumCPU"}}, AtNumCPU: true,
			Need: "many parallel producers (cmds/s of all producers together, producers = {producers} at GOMAXPROCS = {GOMAXPROCS})"},
		{Unit: "efficiency", Higher: true, Where: []Param{{Key: "producers", Value: "NumCPU"}}, AtNumCPU: true, Within: "cmds/s"},
	},
	Charts: []Chart{
		{Name: "Contention-efficiency", Title: "efficiency", YLabel: "efficiency", Units: []string{"efficiency"}, Against: "producers", PerProcs: true},
		{Name: "Contention-throughput", Title: "cmds/s", YLabel: "cmds/s", Units: []string{"cmds/s"}, Against: "producers", PerProcs: true},
	},
}

// Readers declares the Readers scenario.
var Readers = Scenario{
	Name: "Readers",
	Description: "R reader goroutines read Positions of the target while one producer stages Sets and commits every 256; " +
		"ns/op per staged command; p50-read-ns, p99-read-ns, reads/s; versioned also apply-, swap-, resync-ns/publish and replica-B/entity",
	Headlines: []Headline{
		{Unit: "p99-read-ns", Need: "readers never wait for staged writes (p99 read latency at readers = {readers})",
			Requires: func(c deferral.Capabilities) (bool, string) { return !c.ReadsWaitForStaged, c.Reads }},
		{Unit: "p50-read-ns"},
	},
	Charts: []Chart{
		{Title: "median time per staged command, readers reading beside", YLabel: "time per staged command", Units: []string{"ns/op"}},
		{Name: PlotReadersLatency, Title: "read latency, p50 and p99", YLabel: "read latency", Units: []string{"p50-read-ns", "p99-read-ns"}},
	},
}

// Determinism declares the Determinism scenario.
var Determinism = Scenario{
	Name: "Determinism",
	Description: "the order-sensitive parallel particle frame (conformance.Determinism: 4 producers, a shared last-writer-wins entity) " +
		"repeated across runs, GOMAXPROCS 1, NumCPU and 2×NumCPU, with seeded scheduling jitter; distinct-states = distinct final world hashes (1 = reproducible)",
	Headlines: []Headline{{Unit: "distinct-states", Need: "reproducible order (lockstep, replays)", Meets: allEqual(1),
		Requires: func(c deferral.Capabilities) (bool, string) {
			if !c.ReproducibleOrder {
				return false, "does not declare ReproducibleOrder"
			}
			return true, "declares ReproducibleOrder: " + c.Order
		}}},
	OwnProcs: true,
	Charts: []Chart{{Name: PlotDeterminism, Title: "distinct final states over the runs (1 = reproducible)", YLabel: "distinct final states",
		Units: []string{"distinct-states"}, Linear: true, CountOf: "runs"}},
}

// Spike declares the Spike scenario.
var Spike = Scenario{
	Name: "Spike",
	Description: "bounded memory: one frame staging and committing a spike of typed commands (tier=closure: of closures), then 40 ordinary frames of 1024; " +
		"ns/op per ordinary frame (stage 1024 Set commands through one recorder, commit); " +
		"retained-B = live heap the strategy holds after the spike and the 40 frames, steady-B = after 41 ordinary frames, " +
		"retained-x = retained-B / steady-B",
	// Bounded memory is the scenario's purpose, so its need is answered by retained-x, not
	// by ns/op. retained-x is measured once per run (after a full collection), so no test
	// can rank two close figures: the need is a bound, met when the heap held after the
	// spike is under twice the steady-state heap; a strategy that keeps its spike buffers
	// reads hundreds.
	Headlines: []Headline{
		{Unit: "retained-x", Need: "bounded memory after a spike (retained-x = heap held after it / steady heap, under 2)", Meets: allBelow(2)},
		{Unit: "ns/op"},
	},
	// The chart shows what the scenario is for, the memory held after the spike; the time
	// of an ordinary frame is the second chart.
	Charts: []Chart{
		{Title: "heap held after the spike / steady heap (under 2 = bounded)", YLabel: "retained-x", Units: []string{"retained-x"}, Linear: true, Bound: 2},
		{Name: "Spike-time", Title: "median time per ordinary frame after the spike", YLabel: "time per frame", Units: []string{"ns/op"}},
	},
}

// Peer declares the Peer scenario.
var Peer = Scenario{
	Name: "Peer",
	Description: "ecs.World against Ark (github.com/mlange-42/ark), immediate calls, as strategy=ecs and strategy=ark; one op = one entity: " +
		"op=create-destroy (create with Position+Velocity: ecs.Create2, Ark's Map2.NewEntity; destroyed in batches of 1024; metrics create-ns, destroy-ns), " +
		"op=add-remove (add Velocity, remove it), op=query (visit an entity of a 2-component query, reading both); " +
		"op=w1-set, op=w2-add-remove, op=w3-create-destroy (package peerload; one op = one Set, one component added or removed, one entity created and destroyed) run every strategy through its documented API on both storages beside Ark's collect-then-apply and, with apply=batch, Ark's batches, checking the world after",
	Charts: []Chart{
		{Title: "the worlds called immediately, median time per op", YLabel: "time per op", Units: []string{"ns/op"},
			Only: []Param{{Key: "op", Value: "create-destroy"}, {Key: "op", Value: "add-remove"}, {Key: "op", Value: "query"}}},
		{Name: "Peer-deferred", Title: "W1–W3 deferred through each strategy, beside Ark, median time per op", YLabel: "time per op", Units: []string{"ns/op"},
			Only: []Param{{Key: "op", Value: "w1-set"}, {Key: "op", Value: "w2-add-remove"}, {Key: "op", Value: "w3-create-destroy"}}},
	},
	// Ark runs on archetypes, its only storage: the slots rows are set against it there.
	Against: []Against{
		{Label: "Ark's collect-then-apply", Where: "archetypes, Ark's only storage", Strategy: PeerArk,
			Only: []Param{{Key: "op", Value: "w1-set"}, {Key: "op", Value: "w2-add-remove"}, {Key: "op", Value: "w3-create-destroy"}},
			Set:  []Param{{Key: "storage", Value: "archetypes"}}},
		{Label: "Ark's batches", Where: "archetypes; none for W1, as Ark has no batch Set", Strategy: PeerArk,
			Only: []Param{{Key: "op", Value: "w2-add-remove"}, {Key: "op", Value: "w3-create-destroy"}},
			Set:  []Param{{Key: "apply", Value: "batch"}, {Key: "storage", Value: "archetypes"}}},
	},
}

// Figure is one headline figure of the fleet table (deferbench fleet): a scenario's headline
// metric at one row of it, per strategy, one column per board.
type Figure struct {
	// Title heads the figure's rows.
	Title    string
	Scenario Scenario
	// Headline is one of Scenario.Headlines; its Where parameters choose the row (NumCPU
	// standing for the board's cores).
	Headline Headline
	// Row adds parameters for a headline that ranks every row (Frame: one entity count).
	Row []Param
}

// Fleet is the fleet table's figures, in order.
var Fleet = []Figure{
	{Title: "Stage cmd=typed, per command", Scenario: Stage, Headline: Stage.Headlines[0]},
	{Title: "Frame entities=100000, per frame", Scenario: Frame, Headline: Frame.Headlines[0], Row: []Param{{Key: "entities", Value: "100000"}}},
	{Title: "Contention efficiency, producers = cores", Scenario: Contention, Headline: Contention.Headlines[1]},
}

// Scenarios is the scenario table, in run order.
var Scenarios = []Scenario{Stage, StageApply, Structural, Frame, Contention, Readers, Determinism, Spike, Peer}

// Lookup returns the scenario named name, or one with only that name (a bench.txt of another
// version, or of go test).
func Lookup(name string) Scenario {
	for _, s := range Scenarios {
		if s.Name == name {
			return s
		}
	}
	return Scenario{Name: name}
}

// HeadlinesOf returns the headlines of scenario name: its declared ones, or ns/op per variant
// for a scenario without any (or not in the table).
func HeadlinesOf(name string) []Headline {
	if s := Lookup(name); len(s.Headlines) > 0 {
		return s.Headlines
	}
	return []Headline{{Unit: "ns/op"}}
}
