package bench

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Baseline is the strategy= name of the rows a nil Factory measures, the in-run lower bound.
const Baseline = "baseline"

// Targets is the number of entities the Stage, Contention and Spike bodies stage commands
// for (NewTargets); it is a power of two, so command i names entity i&(Targets-1).
const Targets = 1024

// NewTargets returns a world of the default storage (ecs.Slots) with Targets entities having
// a workload.Position, and those entities in creation order.
func NewTargets() (*ecs.World, []ecs.Entity, error) { return NewTargetsOn(ecs.Slots) }

// NewTargetsOn is NewTargets on storage s (ecs.Slots or ecs.Archetypes).
func NewTargetsOn(s ecs.Storage) (*ecs.World, []ecs.Entity, error) {
	w := ecs.NewWorld(ecs.WithStorage(s))
	ents := make([]ecs.Entity, Targets)
	for i := range ents {
		e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
		if err != nil {
			return nil, nil, fmt.Errorf("bench setup: %w", err)
		}
		ents[i] = e
	}
	return w, ents, nil
}

// AppendSetFloor appends to dst, by hand, the compact record deferral.Set(r, e,
// workload.Position, v) writes into a recorder's stream — the two words of
// deferral.PutValueHead, then v's two — as one plain append and the header's stores, which the
// compiler inlines, and returns the extended slice: the baseline's typed command in Stage and
// Contention, the floor a strategy's typed staging is read against. deferral.AppendSet writes
// the same 32 bytes for any component, but as a call.
func AppendSetFloor(dst []uint64, e ecs.Entity, v workload.Vec2) []uint64 {
	dst = append(dst, 0, 0, math.Float64bits(v.X), math.Float64bits(v.Y))
	deferral.PutValueHead((*[2]uint64)(dst[len(dst)-4:]), deferral.VerbSet, e, workload.Position.ID(), unsafe.Sizeof(v))
	return dst
}

// Handover hands r's work over if st orders producers by hand-over (it has a
// Handover(*deferral.Recorder) method, as handrolled does); otherwise it does nothing.
func Handover(st deferral.Strategy, r *deferral.Recorder) {
	if h, ok := st.(interface{ Handover(*deferral.Recorder) }); ok {
		h.Handover(r)
	}
}

// A Meter measures costs of a strategy's own over the timed part of a body that accepts one
// (StageApply): Start is called with the strategy as the timer starts, Report after it stops,
// once per call of the body. deferbench's harness meters versioned's publishes with one.
type Meter interface {
	Start(st deferral.Strategy)
	Report(b B)
}

// sink keeps the baseline's and the control's results alive so the compiler cannot drop the
// work.
var sink struct {
	words []uint64
	fns   []func(*ecs.World) error
	n     int
}

// once caches figures measured untimed once per benchmark: testing calls a body several
// times while it sizes b.N() (and once per -count), and the heap figures need a full collection
// each, so they are measured at the first call and reused, keyed by scenario, strategy name
// and variant.
var once struct {
	sync.Mutex
	m map[string][]float64
}

// measureOnce returns the figures cached under key, or measures them with f and caches them.
func measureOnce(key string, f func() ([]float64, error)) ([]float64, error) {
	once.Lock()
	v, ok := once.m[key]
	once.Unlock()
	if ok {
		return v, nil
	}
	v, err := f()
	if err != nil {
		return nil, err
	}
	once.Lock()
	if once.m == nil {
		once.m = map[string][]float64{}
	}
	once.m[key] = v
	once.Unlock()
	return v, nil
}

// liveHeap returns the live heap after a full collection, in bytes.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// MovesUnit is the metric StageApplyOn reports on archetype storage: the row moves
// (ecs.World.Moves) the timed loop's commits made, per op. Slots storage moves no rows, so its
// rows carry no such metric.
const MovesUnit = "moves/op"

// movesMeter counts the row moves of w over a body's timed part and reports them per op
// (MovesUnit); on slots storage it reports nothing.
type movesMeter struct {
	w      *ecs.World
	start  uint64
	placed uint64 // w.Placements() at begin
	rows   bool   // also report RowsUnit
}

// RowsUnit is the metric Structural reports beside moves/op on archetype storage: the rows the
// timed commits wrote into tables (ecs.World.Placements + Moves: a create's row placed, and
// each move), per op. A spawn writes 1 row when its create and adds apply as one create, and 3
// when they apply one by one (the create's row, then a move per add).
const RowsUnit = "rows/op"

func (m *movesMeter) begin(w *ecs.World) { m.w, m.start, m.placed = w, w.Moves(), w.Placements() }

func (m *movesMeter) report(b B) {
	if m.w == nil || m.w.Storage() != ecs.Archetypes || b.N() == 0 {
		return
	}
	b.ReportMetric(float64(m.w.Moves()-m.start)/float64(b.N()), MovesUnit)
	if m.rows {
		b.ReportMetric(float64(m.w.Moves()-m.start+m.w.Placements()-m.placed)/float64(b.N()), RowsUnit)
	}
}

// nameOf returns the strategy= name of the rows f measures.
func nameOf(st deferral.Strategy) string {
	if st == nil {
		return Baseline
	}
	return st.Name()
}
