package harness

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deferbench/deferbench/conformance/bench"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/workload"
	"github.com/montanaflynn/stats"
)

// readersBatch is how many commands the producer of Readers stages between commits.
const readersBatch = 256

// readerSamples caps the latency samples one reader keeps (a ring of the latest).
const readerSamples = 1 << 13

// guardedReader is the optional interface of a strategy whose reads of the world must go
// through it (lazyguarded: a read is a job on the target's pipe, which waits behind parked
// writes or passes them, by mode). A strategy declaring ReadsPreviousVersion (versioned) is
// read through its deferral.VersionReader, which never waits for a commit. Other strategies
// never block readers while staging; the harness then keeps readers off the world during a
// commit with a sync-point lock.
type guardedReader interface {
	Read(fn func(w *ecs.World) error) *lazyguarded.Task
}

var readersScenario = Scenario{
	Scenario: suite.Readers,
	Variants: func(cfg VariantConfig) []Variant {
		rs := []int{1, 4}
		if cfg.Quick {
			rs = []int{2}
		}
		var vs []Variant
		for _, r := range rs {
			vs = append(vs, Variant{Params: []Param{{"readers", strconv.Itoa(r)}}, Arg: r})
		}
		return vs
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		if s.Baseline() {
			return nil
		}
		r := v.Arg.(int)
		return func(b bench.B) error { return readers(b, s, r) }
	},
}

func readers(b bench.B, s StrategyInfo, nreaders int) error {
	w, ents, err := stageTargets()
	if err != nil {
		return err
	}
	st := s.Factory(w)
	rec := st.NewRecorder()
	guarded, _ := st.(guardedReader)
	var versions deferral.VersionReader // reads the last published version, never blocked
	if st.Capabilities().ReadsPreviousVersion {
		versions, _ = st.(deferral.VersionReader)
	}
	var syncPoint sync.RWMutex // used when the strategy does not guard reads itself

	var stop atomic.Bool
	// counting is on only while the timer runs: reads/s divides the reads counted then by the
	// timed duration. Readers also run during setup, ResetTimer's stop-the-world and teardown,
	// and the owner goroutine can wait there for a P while they read; counted, those reads
	// inflated the rate by orders of magnitude at a small b.N (2.9e9 reads/s at b.N = 1).
	var counting atomic.Bool
	var wg sync.WaitGroup
	samples := make([][]float64, nreaders)
	reads := make([]int, nreaders)
	sums := make([]float64, nreaders) // keeps the reads alive
	errs := make([]error, nreaders)
	var started sync.WaitGroup
	started.Add(nreaders)
	for id := range nreaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]float64, 0, readerSamples)
			var sum float64
			k := 0 // reads so far, timed or not: picks the entity
			read := func(w *ecs.World) error {
				p, err := workload.Position.Get(w, ents[(id*97+k)&(stageBatch-1)])
				sum += p.X
				return err
			}
			started.Done()
			for n := 0; !stop.Load(); n++ {
				if n%1024 == 1023 {
					// Yield now and then: with more busy readers than processors, a reader
					// descheduled inside a read holds up the commit waiting for it until the
					// scheduler preempts another reader (10 ms), which a yield shortens.
					runtime.Gosched()
				}
				t0 := time.Now()
				var err error
				if guarded != nil {
					err = guarded.Read(read).Wait()
				} else if versions != nil {
					err = versions.Read(read)
				} else {
					syncPoint.RLock()
					err = read(w)
					syncPoint.RUnlock()
				}
				d := float64(time.Since(t0).Nanoseconds())
				if err != nil {
					errs[id] = fmt.Errorf("reader %d: %w", id, err)
					return
				}
				if len(lat) < readerSamples {
					lat = append(lat, d)
				} else {
					lat[n%readerSamples] = d
				}
				k++
				if counting.Load() {
					reads[id]++
				}
			}
			samples[id] = lat
			sums[id] = sum
		}()
	}
	commit := func() error {
		handover(st, rec)
		if guarded == nil && versions == nil {
			syncPoint.Lock()
			defer syncPoint.Unlock()
		}
		if err := st.Commit(); err != nil {
			return fmt.Errorf("readers: %w", err)
		}
		return nil
	}
	stopReaders := func() {
		stop.Store(true)
		wg.Wait()
	}
	started.Wait()
	var pm publishMeter
	pm.start(st)
	b.ReportAllocs()
	b.ResetTimer()
	counting.Store(true) // after the timer starts and before it stops: only reads inside it count
	for i := range b.N() {
		rec.Set(ents[i&(stageBatch-1)], workload.Position.Value(workload.Vec2{X: float64(i)}))
		if i%readersBatch == readersBatch-1 {
			if err := commit(); err != nil {
				st.Discard() // release readers waiting behind the parked suffix
				stopReaders()
				return err
			}
		}
	}
	err = commit() // a reader waiting behind parked writes needs the last flush to finish
	counting.Store(false)
	elapsed := b.Elapsed()
	b.StopTimer()
	pm.report(b)
	if err != nil {
		st.Discard()
	}
	stopReaders()
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	var all []float64
	total := 0
	for id := range samples {
		sink.n += int(sums[id])
		all = append(all, samples[id]...)
		total += reads[id]
	}
	if len(all) > 0 {
		p50, _ := stats.Percentile(all, 50)
		p99, _ := stats.Percentile(all, 99)
		b.ReportMetric(p50, "p50-read-ns")
		b.ReportMetric(p99, "p99-read-ns")
	}
	if elapsed > 0 {
		b.ReportMetric(float64(total)/elapsed.Seconds(), "reads/s")
	}
	return st.Close()
}
