package harness

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/deferbench/deferbench/conformance/bench"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/peerload"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
	ark "github.com/mlange-42/ark/ecs"
)

// Peer measures ecs.World, the target every strategy commits to, against a real Go ECS: Ark
// (github.com/mlange-42/ark, the version this module requires), both called immediately (no
// deferral). It is the tool's comparison only: no library package depends on Ark.
//
// The rows are strategy=ecs and strategy=ark, so `benchstat -col /strategy` puts the two
// worlds side by side; they run in Peer only. ecs runs on both storages: on slots (rows
// without a storage parameter, as before archetype storage existed) and on archetypes
// (storage=archetypes). Ark is an archetype ECS, so its rows are storage=archetypes, beside
// the ecs rows they compare like with like; it runs once per op.
var peerScenario = Scenario{
	Scenario:       suite.Peer,
	ReferencesOnly: true,
	Variants: func(cfg VariantConfig) []Variant {
		n := 1_000_000
		if cfg.Quick {
			n = 10_000
		}
		vs := []Variant{
			{Params: []Param{{"op", "create-destroy"}}, Arg: peerOp{op: "create-destroy"}},
			{Params: []Param{{"op", "add-remove"}}, Arg: peerOp{op: "add-remove"}},
			{Params: []Param{{"op", "query"}, {"entities", strconv.Itoa(n)}}, Arg: peerOp{op: "query", n: n}},
		}
		for _, w := range peerload.Names {
			vs = append(vs, Variant{Params: []Param{{"op", w}}, Arg: peerOp{op: w}})
			if _, ok, _ := peerload.ArkBatch(w); ok {
				vs = append(vs, Variant{Params: []Param{{"op", w}, {"apply", "batch"}}, Arg: peerOp{op: w, batch: true}})
			}
		}
		return onStorages(vs, func(v Variant, s ecs.Storage) any {
			op := v.Arg.(peerOp)
			op.storage = s
			return op
		})
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		op := v.Arg.(peerOp)
		if slices.Contains(peerload.Names, op.op) {
			return peerLoad(s, op)
		}
		switch s.Name {
		case peerECS:
			return func(b bench.B) error { return peerWorld(b, op) }
		case peerArk:
			if op.storage != ecs.Archetypes {
				return nil
			}
			return func(b bench.B) error { return peerArkWorld(b, op) }
		}
		return nil
	},
}

// The Peer rows' strategy names.
const (
	peerECS = suite.PeerECS
	peerArk = suite.PeerArk
)

type peerOp struct {
	op      string
	batch   bool        // a peerload workload through Ark's batches
	n       int         // query: entities
	storage ecs.Storage // ecs's world
}

// peerBatch is how many entities create-destroy creates before destroying them.
const peerBatch = 1024

// arkPos and arkVel are Ark's component types: Ark identifies components by Go type.
type (
	arkPos workload.Vec2
	arkVel workload.Vec2
)

// batches runs body over b.N entities in batches of at most peerBatch, body timing its
// create and destroy halves; it reports create-ns and destroy-ns per entity.
func batches(b bench.B, body func(n int) (create, destroy time.Duration, err error)) error {
	var tc, td time.Duration
	for left := b.N(); left > 0; {
		n := min(left, peerBatch)
		c, d, err := body(n)
		if err != nil {
			return err
		}
		tc, td = tc+c, td+d
		left -= n
	}
	b.ReportMetric(float64(tc.Nanoseconds())/float64(b.N()), "create-ns")
	b.ReportMetric(float64(td.Nanoseconds())/float64(b.N()), "destroy-ns")
	return nil
}

func peerWorld(b bench.B, op peerOp) error {
	w := ecs.NewWorld(ecs.WithStorage(op.storage))
	pos, vel := workload.Position, workload.Velocity
	b.ReportAllocs()
	switch op.op {
	case "create-destroy":
		es := make([]ecs.Entity, 0, peerBatch)
		b.ResetTimer()
		return batches(b, func(n int) (time.Duration, time.Duration, error) {
			t0 := time.Now()
			for i := range n {
				// ecs.Create2 writes the two values without a Bundle, as Ark's Map2.NewEntity does.
				e, err := ecs.Create2(w, pos, workload.Vec2{X: float64(i)}, vel, workload.Vec2{Y: 1})
				if err != nil {
					return 0, 0, fmt.Errorf("peer create: %w", err)
				}
				es = append(es, e)
			}
			t1 := time.Now()
			for _, e := range es {
				if err := w.Destroy(e); err != nil {
					return 0, 0, fmt.Errorf("peer destroy: %w", err)
				}
			}
			es = es[:0]
			return t1.Sub(t0), time.Since(t1), nil
		})
	case "add-remove":
		es := make([]ecs.Entity, peerBatch)
		for i := range es {
			e, err := w.Create(pos.Value(workload.Vec2{X: float64(i)}))
			if err != nil {
				return err
			}
			es[i] = e
		}
		b.ResetTimer()
		for i := range b.N() {
			e := es[i&(peerBatch-1)]
			if err := vel.Add(w, e, workload.Vec2{Y: 1}); err != nil {
				return fmt.Errorf("peer add: %w", err)
			}
			if err := vel.Remove(w, e); err != nil {
				return fmt.Errorf("peer remove: %w", err)
			}
		}
	case "query":
		b.StopTimer()
		for i := range op.n {
			if _, err := w.Create(pos.Value(workload.Vec2{X: float64(i)}).With(vel.Value(workload.Vec2{Y: 1}))); err != nil {
				return err
			}
		}
		b.StartTimer()
		b.ResetTimer()
		var sum float64
		for left := b.N(); left > 0; {
			q := ecs.NewQuery2(w, pos, vel)
			for q.Next() {
				p, v := q.Get()
				sum += p.X + v.Y
				if left--; left == 0 {
					q.Close()
					break
				}
			}
		}
		sink.n += int(sum) & 1
	}
	return nil
}

func peerArkWorld(b bench.B, op peerOp) error {
	w := ark.NewWorld(peerBatch)
	both := ark.NewMap2[arkPos, arkVel](&w)
	velMap := ark.NewMap1[arkVel](&w)
	posMap := ark.NewMap1[arkPos](&w)
	b.ReportAllocs()
	switch op.op {
	case "create-destroy":
		es := make([]ark.Entity, 0, peerBatch)
		b.ResetTimer()
		return batches(b, func(n int) (time.Duration, time.Duration, error) {
			t0 := time.Now()
			for i := range n {
				es = append(es, both.NewEntity(&arkPos{X: float64(i)}, &arkVel{Y: 1}))
			}
			t1 := time.Now()
			for _, e := range es {
				w.RemoveEntity(e)
			}
			es = es[:0]
			return t1.Sub(t0), time.Since(t1), nil
		})
	case "add-remove":
		es := make([]ark.Entity, peerBatch)
		for i := range es {
			es[i] = posMap.NewEntity(&arkPos{X: float64(i)})
		}
		b.ResetTimer()
		for i := range b.N() {
			e := es[i&(peerBatch-1)]
			velMap.Add(e, &arkVel{Y: 1})
			velMap.Remove(e)
		}
	case "query":
		b.StopTimer()
		both.NewBatch(op.n, &arkPos{X: 1}, &arkVel{Y: 1})
		filter := ark.NewFilter2[arkPos, arkVel](&w).Register()
		b.StartTimer()
		b.ResetTimer()
		var sum float64
		for left := b.N(); left > 0; {
			q := filter.Query()
			for q.Next() {
				p, v := q.Get()
				sum += p.X + v.Y
				if left--; left == 0 {
					q.Close()
					break
				}
			}
		}
		sink.n += int(sum) & 1
	}
	return nil
}

// peerLoad is the body of a peerload workload (W1-W3): every strategy through its documented
// API on both storages, Ark's collect-then-apply (apply absent) and its batches
// (apply=batch) on archetypes; each checks the world it leaves after the timed ops.
func peerLoad(s StrategyInfo, op peerOp) BenchFunc {
	var mk func() (peerload.Load, error)
	switch {
	case s.Name == peerArk && op.storage == ecs.Archetypes && op.batch:
		mk = func() (peerload.Load, error) { l, _, err := peerload.ArkBatch(op.op); return l, err }
	case s.Name == peerArk && op.storage == ecs.Archetypes:
		mk = func() (peerload.Load, error) { return peerload.ArkCollect(op.op) }
	case s.Factory != nil && !op.batch:
		mk = func() (peerload.Load, error) { return peerload.Strategy(op.op, s.Factory, op.storage) }
	default:
		return nil
	}
	return func(b bench.B) error {
		l, err := mk()
		if err != nil {
			return err
		}
		b.ReportAllocs()
		b.ResetTimer()
		if err := l.Run(b.N()); err != nil {
			return fmt.Errorf("peer %s: %w", op.op, err)
		}
		b.StopTimer()
		return l.Check()
	}
}
