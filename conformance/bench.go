package conformance

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// Benchmark runs the Stage, StageApply and Contention benchmarks of deferbench's harness on the
// strategies f makes, as sub-benchmarks named like the harness's results
// (Stage/strategy=NAME/cmd=typed, …). To line a strategy up with deferbench's own results in
// benchstat, give each its top-level benchmark of the harness's name instead:
//
//	func BenchmarkStage(b *testing.B)      { conformance.BenchmarkStage(b, mine.Factory) }
//	func BenchmarkStageApply(b *testing.B) { conformance.BenchmarkStageApply(b, mine.Factory) }
//	func BenchmarkContention(b *testing.B) { conformance.BenchmarkContention(b, mine.Factory) }
//
// and compare with benchstat -col /strategy deferbench.txt mine.txt. A strategy that wants its
// producers' hand-over point marked implements Handover(*deferral.Recorder), as handrolled does.
func Benchmark(b *testing.B, f Factory) {
	b.Run("Stage", func(b *testing.B) { BenchmarkStage(b, f) })
	b.Run("StageApply", func(b *testing.B) { BenchmarkStageApply(b, f) })
	b.Run("Contention", func(b *testing.B) { BenchmarkContention(b, f) })
}

// benchBatch is how many commands Stage stages before it drops them with Discard, so buffers
// stay warm and bounded whatever b.N is; it is also the number of target entities.
const benchBatch = 1024

// strategyName returns the name of the strategies f makes.
func strategyName(b *testing.B, f Factory) string {
	b.Helper()
	if f == nil {
		b.Fatal("conformance: benchmark factory is nil")
	}
	s := f(ecs.NewWorld())
	name := s.Name()
	if err := s.Close(); err != nil {
		b.Fatalf("close of an unused strategy: %v", err)
	}
	return name
}

// handOver marks r's producer as done, for strategies that order by hand-over.
func handOver(s deferral.Strategy, r *deferral.Recorder) {
	if h, ok := s.(interface{ Handover(*deferral.Recorder) }); ok {
		h.Handover(r)
	}
}

// benchTargets returns a world with benchBatch entities having a Position, and those entities.
func benchTargets(b *testing.B) (*ecs.World, []ecs.Entity) {
	b.Helper()
	w := ecs.NewWorld()
	ents := make([]ecs.Entity, benchBatch)
	for i := range ents {
		e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
		if err != nil {
			b.Fatalf("setup: %v", err)
		}
		ents[i] = e
	}
	return w, ents
}

// benchLarge is what the large closure captures besides the entity: 256 bytes.
type benchLarge [32]float64

// BenchmarkStage measures staging through one recorder, ns/op per staged command, with the
// buffers dropped (Discard) every 1024 commands: cmd=typed stages Recorder.Set of a Position,
// cmd=closure a closure capturing an entity and a Vec2 (24 B), cmd=closure-large one capturing
// 264 B. Sub-benchmarks are named strategy=NAME/cmd=KIND, as the harness names Stage.
func BenchmarkStage(b *testing.B, f Factory) {
	name := strategyName(b, f)
	for _, kind := range []string{"typed", "closure", "closure-large"} {
		b.Run("strategy="+name+"/cmd="+kind, func(b *testing.B) {
			w, ents := benchTargets(b)
			s := f(w)
			r := s.NewRecorder()
			stage := func(i int) {
				e := ents[i&(benchBatch-1)]
				switch kind {
				case "typed":
					r.Set(e, workload.Position.Value(workload.Vec2{X: float64(i)}))
				case "closure":
					v := workload.Vec2{X: float64(i)}
					r.Do(func(w *ecs.World) error { return workload.Position.Set(w, e, v) })
				default:
					var p benchLarge
					p[0], p[31] = float64(i), 1
					r.Do(func(w *ecs.World) error { return workload.Position.Set(w, e, workload.Vec2{X: p[0], Y: p[31]}) })
				}
				if i&(benchBatch-1) == benchBatch-1 {
					handOver(s, r)
					s.Discard()
				}
			}
			for i := range benchBatch { // warm the buffers to their working size
				stage(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				stage(i)
			}
			b.StopTimer()
			s.Discard()
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// The StageApply command mix: eight command types.
const (
	mixSetPosition = iota
	mixSetVelocity
	mixAddHealth
	mixRemoveHealth
	mixAddTag
	mixRemoveTag
	mixCreate
	mixDestroy
	mixKinds
)

// applyBatch is how many commands StageApply stages between commits.
const applyBatch = 256

// Components of StageApply's command mix.
var (
	benchHealth = ecs.NewComponent[int64]("conformance.Health", nil)
	benchTag    = ecs.NewComponent[uint32]("conformance.Tag", nil)
)

// mixOf returns the command-type sequence of a mix, benchBatch long and cycled; each type
// appears equally often in roundrobin8 and shuffled8, so creates and destroys balance.
func mixOf(mix string) []uint8 {
	seq := make([]uint8, benchBatch)
	if mix != "homogeneous" {
		for i := range seq {
			seq[i] = uint8(i % mixKinds)
		}
		if mix == "shuffled8" {
			r := rand.New(rand.NewPCG(8, 8))
			r.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
		}
	}
	return seq
}

// BenchmarkStageApply measures staging and committing, ns/op per command: one recorder stages
// a mix of commands and the strategy commits every 256. mix=homogeneous is all Sets;
// roundrobin8 cycles Set Position, Set Velocity, Add and Remove of two components, Create and
// Destroy; shuffled8 is the same eight shuffled. Sub-benchmarks are named
// strategy=NAME/mix=MIX, as the harness names StageApply.
func BenchmarkStageApply(b *testing.B, f Factory) {
	name := strategyName(b, f)
	for _, mix := range []string{"homogeneous", "roundrobin8", "shuffled8"} {
		b.Run("strategy="+name+"/mix="+mix, func(b *testing.B) {
			seq := mixOf(mix)
			w := ecs.NewWorld()
			var targets, fifo []ecs.Entity
			for i := range 2 * benchBatch {
				e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}).With(workload.Velocity.Value(workload.Vec2{Y: 1})))
				if err != nil {
					b.Fatal(err)
				}
				if i < benchBatch {
					targets = append(targets, e)
				} else {
					fifo = append(fifo, e)
				}
			}
			s := f(w)
			r := s.NewRecorder()
			commit := func() {
				handOver(s, r)
				if err := s.Commit(); err != nil {
					b.Fatal(err)
				}
				rep, err := s.TakeReport()
				if err != nil {
					b.Fatal(err)
				}
				fifo = append(fifo, rep.Created...)
			}
			head := 0
			stage := func(i int) {
				e := targets[i&(benchBatch-1)]
				switch seq[i&(benchBatch-1)] {
				case mixSetPosition:
					r.Set(e, workload.Position.Value(workload.Vec2{X: float64(i)}))
				case mixSetVelocity:
					r.Set(e, workload.Velocity.Value(workload.Vec2{Y: float64(i)}))
				case mixAddHealth:
					r.Add(e, benchHealth.Value(int64(i)))
				case mixRemoveHealth:
					r.Remove(e, benchHealth.ID())
				case mixAddTag:
					r.Add(e, benchTag.Value(uint32(i)))
				case mixRemoveTag:
					r.Remove(e, benchTag.ID())
				case mixCreate:
					r.Create(workload.Position.Value(workload.Vec2{X: float64(i)}).With(workload.Velocity.Value(workload.Vec2{Y: 1})))
				default:
					var victim ecs.Entity
					if head < len(fifo) {
						victim = fifo[head]
						head++
					}
					r.Destroy(victim)
				}
				if i%applyBatch == applyBatch-1 {
					commit()
					if head > 4*benchBatch && 2*head > len(fifo) {
						fifo, head = fifo[:copy(fifo, fifo[head:])], 0
					}
				}
			}
			for i := range applyBatch {
				stage(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				stage(i)
			}
			b.StopTimer()
			commit()
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// contentionRound is how many commands each Contention producer stages per round; the
// producers then meet at a barrier and the owner drops what they staged (Discard).
const contentionRound = 1 << 16

// BenchmarkContention measures P producers staging typed commands (Recorder.Set) concurrently
// into one target, each through its own recorder, in rounds of 65536 commands per producer;
// ns/op per command and cmds/s. The owner goroutine is producer 0. Sub-benchmarks are named
// strategy=NAME/producers=P for P in 1, 2, 4, 8, 16, as the harness names Contention; sweep
// GOMAXPROCS with go test -cpu.
func BenchmarkContention(b *testing.B, f Factory) {
	name := strategyName(b, f)
	for _, p := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("strategy=%s/producers=%d", name, p), func(b *testing.B) {
			w, ents := benchTargets(b)
			s := f(w)
			recs := make([]*deferral.Recorder, p)
			for i := range recs {
				recs[i] = s.NewRecorder()
			}
			stride := benchBatch / p
			work := func(id, n int) {
				r, off := recs[id], id*stride
				for i := 0; i < n; i++ {
					r.Set(ents[(off+i)&(benchBatch-1)], workload.Position.Value(workload.Vec2{X: float64(i)}))
				}
				handOver(s, r)
			}
			start := make([]chan int, p)
			var wg sync.WaitGroup
			for i := 1; i < p; i++ {
				start[i] = make(chan int)
				go func(id int) {
					for n := range start[id] {
						work(id, n)
						wg.Done()
					}
				}(i)
			}
			defer func() {
				for _, c := range start[1:] {
					close(c)
				}
			}()
			round := func(total int) {
				per, extra := total/p, total%p
				wg.Add(p - 1)
				for i := 1; i < p; i++ {
					n := per
					if i < extra {
						n++
					}
					start[i] <- n
				}
				n0 := per
				if extra > 0 {
					n0++
				}
				work(0, n0)
				wg.Wait()
				s.Discard()
			}
			round(min(b.N, p*contentionRound))
			b.ReportAllocs()
			b.ResetTimer()
			for left := b.N; left > 0; {
				n := min(left, p*contentionRound)
				round(n)
				left -= n
			}
			b.StopTimer()
			if b.Elapsed() > 0 {
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
