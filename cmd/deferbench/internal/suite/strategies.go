package suite

// Strategy is one row of the strategy table as the reports read it; the harness adds how to
// build it.
type Strategy struct {
	// Name is the value of the strategy= key in benchmark names.
	Name string
	// Description is one line for `deferbench list`.
	Description string
	// ControlOf, when set, names the only scenario this row runs in: a reference row that is
	// not a strategy (noop in Contention measures the harness; ecs and ark in Peer the
	// worlds).
	ControlOf string
}

// Names of the rows that are not strategies.
const (
	// BaselineName is the in-run lower bound.
	BaselineName = "baseline"
	// NoopName is Contention's control: producers that touch no memory.
	NoopName = "noop"
	// PeerECS and PeerArk are Peer's references: the worlds called immediately.
	PeerECS = "ecs"
	PeerArk = "ark"
)

// The rows of the strategy table.
var (
	Baseline        = Strategy{Name: BaselineName, Description: "append the record a recorder writes, or the closure, to a preallocated slice: in Stage and Contention the compact stream record of deferral.Set (bench.AppendSetFloor), the lower bound; in StageApply a deferral.Command applied one by one with deferral.Core, a reference a batched commit can beat"}
	CmdBuffer       = Strategy{Name: "cmdbuffer", Description: "command buffers: per-recorder private buffers of typed POD records plus a closure tier; commit in (sort key, recorder, FIFO) order"}
	LazyGuarded     = Strategy{Name: "lazyguarded", Description: "lazy guarded target: every staged command is a task on the target's mutex-guarded FIFO pipe; readers wait behind parked writes"}
	LazyGuardedPass = Strategy{Name: "lazyguarded-pass", Description: "lazyguarded, but readers pass parked writes (stale reads, opt-in)"}
	HandRolled      = Strategy{Name: "handrolled", Description: "hand-rolled: producers fill their own slices and hand them over; commit gathers in hand-over order and applies"}
	Hybrid          = Strategy{Name: "hybrid", Description: "command buffers in a static task graph: cmdbuffer's buffers with a recorder per graph node, committed by a flush node the graph derives; commit in (sort key, recorder, FIFO) order"}
	Versioned       = Strategy{Name: "versioned", Description: "double-buffered replicas: cmdbuffer's staging, published to a second replica of the world that readers read lock-free; commit = apply, swap, resync (replay)"}
	Noop            = Strategy{Name: NoopName, Description: "control, not a strategy (Contention only): each producer runs a register-only loop, one step per command, touching no memory; its efficiency is the ceiling the harness itself allows", ControlOf: "Contention"}
	ECS             = Strategy{Name: PeerECS, Description: "reference, not a strategy (Peer only): ecs.World called immediately", ControlOf: "Peer"}
	Ark             = Strategy{Name: PeerArk, Description: "reference, not a strategy (Peer only): Ark (github.com/mlange-42/ark) called immediately", ControlOf: "Peer"}
)

// Strategies is the strategy table, in the order results are interleaved within each
// repetition (the baseline first), which is also the order of the plots' colours.
var Strategies = []Strategy{Baseline, CmdBuffer, LazyGuarded, LazyGuardedPass, HandRolled, Hybrid, Versioned, Noop, ECS, Ark}

// IsControl reports whether name is a row of the table that is not a strategy but a control
// or reference (ControlOf set).
func IsControl(name string) bool {
	for _, s := range Strategies {
		if s.Name == name {
			return s.ControlOf != ""
		}
	}
	return false
}
