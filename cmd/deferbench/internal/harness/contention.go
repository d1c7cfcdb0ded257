package harness

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/workload"
	"golang.org/x/perf/benchfmt"
)

// contentionRound is the most commands each producer stages per round of Contention; after a
// round the producers meet at a barrier and the owner drops what they staged (Discard) at a
// sync point. A round is long so that the barrier — waking P goroutines and waiting for the
// last — costs under 1% of it: the noop row, whose producers touch no memory, checks that (its
// efficiency is the harness's ceiling). With 1024-command rounds the barrier dominated and
// every efficiency figure measured it. A strategy whose commands are slow gets shorter rounds
// (roundLength): about contentionRoundTime of single-producer staging, at least
// contentionMinRound commands, which keeps the barrier's share as small, and the benchmark
// from spending seconds on one round (lazyguarded at 16 producers staged a million commands,
// 0.4 s, per round).
const (
	contentionRound     = 1 << 16
	contentionMinRound  = 1 << 10
	contentionRoundTime = time.Millisecond
)

// contentionMinCall is the fewest commands per producer one call of a P > 1 Contention
// benchmark stages (or a whole round, when rounds are shorter): enough that a round's barrier
// is a small share of it (at 10 ns a command, 82 µs against a few µs), without making every
// step of go test's iteration ramp run whole rounds of 65536 commands per producer (a million
// commands per step at 16 producers, which doubled Contention's wall time).
const contentionMinCall = 1 << 13

// contentionFloor is the number of commands a P > 1 call of n iterations stages: n, or at
// least contentionMinCall per producer (a whole round of per, when that is shorter).
func contentionFloor(n, producers, per int) int {
	return max(n, producers*min(per, contentionMinCall))
}

// roundLength returns the commands per producer of a round for a strategy whose producer 0
// alone stages a probe of contentionMinRound commands in probe: about contentionRoundTime of
// staging, within [contentionMinRound, contentionRound].
func roundLength(probe time.Duration) int {
	if probe <= 0 {
		return contentionRound
	}
	n := int(float64(contentionRoundTime) / float64(probe) * contentionMinRound)
	return min(max(n, contentionMinRound), contentionRound)
}

// NoopName is the name of Contention's control row: producers that run a register-only loop.
const NoopName = suite.NoopName

var contentionProducers = []int{1, 2, 4, 8, 16}

// handoverer is the optional interface of a strategy whose producers hand their work over
// when they are done (handrolled's gather order): the harness calls it where a producer
// finishes.
type handoverer interface {
	Handover(r *deferral.Recorder)
}

// handover hands r over if st wants it.
func handover(st deferral.Strategy, r *deferral.Recorder) {
	if h, ok := st.(handoverer); ok {
		h.Handover(r)
	}
}

// contentionProcs is the GOMAXPROCS sweep: 1…NumCPU and 2×NumCPU, or the user's list.
func contentionProcs(cfg VariantConfig) []int {
	if len(cfg.Procs) > 0 {
		return cfg.Procs
	}
	n := runtime.NumCPU()
	var ps []int
	for p := 1; p <= n; p++ {
		if cfg.Quick && p != 1 && p != n {
			continue
		}
		ps = append(ps, p)
	}
	return append(ps, 2*n)
}

var contentionScenario = Scenario{
	Scenario: suite.Contention,
	Variants: func(cfg VariantConfig) []Variant {
		producers := contentionProducers
		if cfg.Quick {
			producers = producers[:3]
		}
		var vs []Variant
		for _, procs := range contentionProcs(cfg) {
			for _, p := range producers {
				vs = append(vs, Variant{Params: []Param{{"producers", strconv.Itoa(p)}}, Arg: p, Procs: procs})
			}
		}
		return vs
	},
	Bench: func(s StrategyInfo, v Variant) BenchFunc {
		p := v.Arg.(int)
		if s.ControlOf != "" {
			return func(b *testing.B) error { return contentionNoop(b, p) }
		}
		return func(b *testing.B) error { return contention(b, s, p) }
	},
	Derive: deriveEfficiency,
}

// deriveEfficiency adds efficiency = throughput(P) / (min(P, GOMAXPROCS) × throughput(1)) to a
// result that did not report it: a P > 1 benchmark measures throughput(1) itself, in reference
// rounds interleaved with its own (contentionRun); otherwise (producers=1, where it is 1)
// throughput(1) comes from the producers=1 result of the same strategy, GOMAXPROCS and
// repetition.
func deriveEfficiency(r *benchfmt.Result, earlier func(string) *benchfmt.Result) {
	if _, ok := r.Value("efficiency"); ok {
		return
	}
	name := string(r.Name)
	base, _ := results.SplitProcs(name)
	procs := results.ParseName(name).Procs
	i := strings.Index(base, "/producers=")
	if i < 0 {
		return
	}
	p, err := strconv.Atoi(base[i+len("/producers="):])
	if err != nil {
		return
	}
	refName := base[:i] + "/producers=1"
	if procs != 1 {
		refName += "-" + strconv.Itoa(procs)
	}
	ref := r
	if p != 1 {
		if ref = earlier(refName); ref == nil {
			return
		}
	}
	ns, ok1 := r.Value("ns/op")
	ns1, ok2 := ref.Value("ns/op")
	if !ok1 || !ok2 || ns <= 0 {
		return
	}
	eff := (ns1 / ns) / float64(min(p, procs))
	r.Values = append(r.Values, benchfmt.Value{Value: eff, Unit: "efficiency"})
}

// contention times P producers staging b.N typed commands in all, in rounds of up to
// contentionRound per producer (roundLength); the owner goroutine is producer 0, the others persist across
// rounds, and all meet at a barrier after which the owner discards what was staged.
func contention(b *testing.B, s StrategyInfo, producers int) error {
	return contentionRun(b, s, producers, false)
}

// contentionNoop times the control: the same producers, rounds and barrier, each command one
// multiply-add on a register. Its efficiency below 1 is what the harness (barrier, scheduler)
// costs; above 0.95 the strategies' figures measure the strategies.
func contentionNoop(b *testing.B, producers int) error {
	return contentionRun(b, StrategyInfo{Strategy: suite.Noop}, producers, true)
}

// noopOut holds each producer's loop result, one cache line apart, so the loop is not
// dropped and producers share no line.
type noopOut struct {
	v uint64
	_ [56]byte
}

// noopLoop is n steps of a linear congruential generator: registers only.
//
//go:noinline
func noopLoop(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// contentionInterleaved times b.N commands staged by P > 1 producers in rounds (round), each
// followed by a reference round (alone) in which producer 0 alone stages as many commands as
// each producer did. It reports ns/op and cmds/s of the P-producer rounds; efficiency, the
// median over rounds of throughput(P) / (min(P, GOMAXPROCS) × throughput(1)) with
// throughput(1) from the reference round right after; and B/op and allocs/op per command
// staged in either kind of round.
//
// Each round is timed by its own clock, so its reference is measured within a millisecond of
// it, not in another benchmark seconds away: a machine whose speed drifts (a VM's neighbours,
// frequency steps) moves both sides alike. The median keeps a round in which the host took a
// CPU away for a few ms — a P-producer round, which needs every CPU throughout, is P times as
// exposed to that as its reference — from setting the figure: on an idle 2-vCPU VM the noop
// control read 0.87–0.91 as a ratio of totals and 0.96 as this median. The benchmark's timer
// stays on throughout, so the producers keep spinning at the barrier: stopping it
// (ReadMemStats stops the world) parks them, and their wake-up, tens of µs on a VM, lands in
// the next round (noop read 0.70 that way).
//
// Every call stages at least total commands (contentionFloor), whatever b.N, and reports its
// figures per command it staged: a round's barrier costs a fixed time (waking P
// producers, on a loaded machine an OS time slice of milliseconds), so a round of a few
// commands measures the barrier, not staging. Without that floor, a -benchtime of 1x or 2x, or
// a ramp whose first call of one command hit a slow wake-up, ran rounds of one or two commands
// (loaded 2-vCPU VM, -quick: baseline at producers=2 read 6 ms/op and efficiency 0.0003 at
// b.N = 2, noop at producers=4 6.5 ms/op at b.N = 1).
func contentionInterleaved(b *testing.B, producers, per, total int, round, alone func(n int)) {
	// The caller's warm-up round grew producer 0's buffers to at least what a round alone
	// stages (as many commands as each producer stages in a round).
	var (
		roundNs, aloneNs time.Duration
		effs             []float64
		before, after    runtime.MemStats
	)
	cpus := float64(min(producers, runtime.GOMAXPROCS(0)))
	effs = make([]float64, 0, total/(producers*per)+2) // no allocation in the loop
	b.ResetTimer()
	// Exact allocation counts, as go test takes them. Reading them stops the world, so a round
	// of one command per producer wakes the producers again before the timed rounds.
	runtime.ReadMemStats(&before)
	round(producers)
	staged := producers
	for left := total; left > 0; {
		n := min(left, producers*per)
		t0 := time.Now()
		round(n)
		t1 := time.Now()
		k := (n + producers - 1) / producers // as many as producer 0 staged in the round
		alone(k)
		tr, ta := t1.Sub(t0), time.Since(t1)
		roundNs, aloneNs, staged = roundNs+tr, aloneNs+ta, staged+n+k
		if tr > 0 && ta > 0 {
			effs = append(effs, (float64(n)/tr.Seconds())/(cpus*float64(k)/ta.Seconds()))
		}
		left -= n
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	if roundNs <= 0 || len(effs) == 0 {
		return
	}
	b.ReportMetric(float64(roundNs.Nanoseconds())/float64(total), "ns/op")
	b.ReportMetric(float64(total)/roundNs.Seconds(), "cmds/s")
	slices.Sort(effs)
	med := effs[len(effs)/2]
	if len(effs)%2 == 0 {
		med = (effs[len(effs)/2-1] + med) / 2
	}
	b.ReportMetric(med, "efficiency")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(staged), "B/op")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(staged), "allocs/op")
}

func contentionRun(b *testing.B, s StrategyInfo, producers int, noop bool) error {
	w, ents, err := stageTargets()
	if err != nil {
		return err
	}
	var st deferral.Strategy
	recs := make([]*deferral.Recorder, producers)
	bufs := make([][]deferral.Command, producers)
	outs := make([]noopOut, producers)
	switch {
	case noop:
	case s.Baseline():
		for i := range bufs {
			bufs[i] = make([]deferral.Command, 0, contentionRound)
		}
	default:
		st = s.Factory(w)
		for i := range recs {
			recs[i] = st.NewRecorder()
		}
	}
	stride := stageBatch / producers
	work := func(id, n int) {
		off := id * stride
		if noop {
			outs[id].v = noopLoop(outs[id].v+uint64(id), n)
			return
		}
		if s.Baseline() {
			buf := bufs[id][:0]
			for i := 0; i < n; i++ {
				e := ents[(off+i)&(stageBatch-1)]
				buf = append(buf, deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: workload.Position.Value(workload.Vec2{X: float64(i)})})
			}
			bufs[id] = buf
			return
		}
		r := recs[id]
		for i := 0; i < n; i++ {
			e := ents[(off+i)&(stageBatch-1)]
			r.Set(e, workload.Position.Value(workload.Vec2{X: float64(i)}))
		}
		handover(st, r)
	}
	// The owner goroutine is producer 0 (no hand-off for P = 1); producers 1…P-1 are
	// goroutines that persist across rounds. The barrier spins on atomics (yielding the
	// processor every few checks, so oversubscribed producers still make progress) instead
	// of parking on channels: a park and wake-up costs tens of µs on a VM, which a round of
	// register-only commands (the noop control) is too short to hide.
	var (
		gen    atomic.Int64 // round number; a new value starts a round
		done   atomic.Int64 // producers 1…P-1 finished in the current round
		stop   atomic.Bool
		counts = make([]int, producers)
	)
	spin := func(cond func() bool) {
		for i := 1; !cond(); i++ {
			if i%64 == 0 {
				runtime.Gosched()
			}
		}
	}
	var exited sync.WaitGroup
	for i := 1; i < producers; i++ {
		exited.Add(1)
		go func(id int) {
			defer exited.Done()
			seen := int64(0)
			for {
				spin(func() bool { return gen.Load() != seen })
				seen = gen.Load()
				if stop.Load() {
					return
				}
				work(id, counts[id])
				done.Add(1)
			}
		}(i)
	}
	defer func() {
		stop.Store(true)
		gen.Add(1)
		exited.Wait()
	}()
	round := func(total int) {
		per, extra := total/producers, total%producers
		for i := range counts {
			counts[i] = per
			if i < extra {
				counts[i]++
			}
		}
		done.Store(0)
		gen.Add(1) // publishes counts and the reset count to the producers
		work(0, counts[0])
		spin(func() bool { return done.Load() == int64(producers-1) })
		if st != nil {
			st.Discard()
		}
	}
	// The round length: producer 0 alone stages a probe twice (the first warms it), timed.
	probe := func() time.Duration {
		clear(counts)
		counts[0] = contentionMinRound
		t0 := time.Now()
		work(0, contentionMinRound)
		if st != nil {
			st.Discard()
		}
		return time.Since(t0)
	}
	probe()
	per := roundLength(probe())
	total := b.N
	if producers > 1 {
		total = contentionFloor(b.N, producers, per)
	}
	round(min(total, producers*per)) // warm the buffers to the size the timed rounds use
	if producers == 1 {
		b.ReportAllocs()
		b.ResetTimer()
		for left := b.N; left > 0; {
			n := min(left, per)
			round(n)
			left -= n
		}
		b.StopTimer()
		if b.Elapsed() > 0 {
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
		}
	} else {
		contentionInterleaved(b, producers, per, total, round, func(n int) {
			clear(counts)
			counts[0] = n
			work(0, n)
			if st != nil {
				st.Discard()
			}
		})
	}
	sink.n += len(bufs)
	for _, o := range outs {
		sink.n += int(o.v & 1)
	}
	if st != nil {
		return st.Close()
	}
	return nil
}
