package bench

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/workload"
)

// ContentionProducers are the variants of Contention (producers=…).
var ContentionProducers = []int{1, 2, 4, 8, 16}

// Noop is the strategy= name of Contention's control row (ContentionNoop).
const Noop = "noop"

// Contention times P producers staging typed commands (deferral.Set of a workload.Position)
// concurrently into one strategy f makes, each through its own recorder, at the current
// GOMAXPROCS (sweep it with go test -cpu). The owner goroutine is producer 0; producers
// 1…P-1 persist across rounds of up to 65536 commands per producer (about 1 ms of
// single-producer staging, at least 1024), after each of which they meet at a spinning
// barrier and the owner drops what was staged (Discard) at a sync point. It reports ns/op per
// command, cmds/s (commands of all producers together per second), efficiency =
// throughput(P) / (min(P, GOMAXPROCS) × throughput(1)), and B/op and allocs/op per staged
// command. For P > 1 every round is followed by a single-producer reference round staging as
// many commands as each producer did, efficiency is the median over rounds of each round's
// ratio to its reference, and ns/op and cmds/s cover the P-producer rounds only (the body
// reports them itself); every call stages at least 8192 commands per producer, whatever b.N().
// For P = 1 efficiency is 1. f nil times the baseline: each producer appends the same records
// to its own preallocated slice. Errors: producers < 1, the strategy's Close.
func Contention(b B, f deferral.Factory, producers int) error {
	return contentionRun(b, f, producers, false)
}

// ContentionNoop times Contention's control (strategy=noop): the same producers, rounds and
// barrier, each command one multiply-add on a register. Its efficiency below 1 is what the
// method itself (barrier, scheduler) costs; above 0.95 the strategies' figures measure the
// strategies.
func ContentionNoop(b B, producers int) error {
	return contentionRun(b, nil, producers, true)
}

// contentionRound is the most commands each producer stages per round of Contention; after a
// round the producers meet at a barrier and the owner drops what they staged (Discard) at a
// sync point. A round is long so that the barrier — waking P goroutines and waiting for the
// last — costs under 1% of it: the noop row, whose producers touch no memory, checks that (its
// efficiency is the method's ceiling). With 1024-command rounds the barrier dominated and
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

// contentionInterleaved times b.N() commands staged by P > 1 producers in rounds (round), each
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
// Every call stages at least total commands (contentionFloor), whatever b.N(), and reports its
// figures per command it staged: a round's barrier costs a fixed time (waking P
// producers, on a loaded machine an OS time slice of milliseconds), so a round of a few
// commands measures the barrier, not staging. Without that floor, a -benchtime of 1x or 2x, or
// a ramp whose first call of one command hit a slow wake-up, ran rounds of one or two commands
// (loaded 2-vCPU VM, -quick: baseline at producers=2 read 6 ms/op and efficiency 0.0003 at
// b.N = 2, noop at producers=4 6.5 ms/op at b.N = 1).
func contentionInterleaved(b B, producers, per, total int, round, alone func(n int)) {
	// The caller's warm-up rounds grew producer 0's buffers to at least what a round alone
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
	b.ReportAllocs() // print the B/op and allocs/op reported below under go test too
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

func contentionRun(b B, f deferral.Factory, producers int, noop bool) error {
	if producers < 1 {
		return fmt.Errorf("contention: producers %d: want at least 1", producers)
	}
	w, ents, err := NewTargets()
	if err != nil {
		return err
	}
	var st deferral.Strategy
	recs := make([]*deferral.Recorder, producers)
	bufs := make([][]uint64, producers) // the baseline's compact records (AppendSetFloor)
	outs := make([]noopOut, producers)
	switch {
	case noop:
	case f == nil:
		for i := range bufs {
			bufs[i] = make([]uint64, 0, 4*contentionRound)
		}
	default:
		st = f(w)
		for i := range recs {
			recs[i] = st.NewRecorder()
		}
	}
	stride := Targets / producers
	work := func(id, n int) {
		off := id * stride
		if noop {
			outs[id].v = noopLoop(outs[id].v+uint64(id), n)
			return
		}
		if st == nil {
			buf := bufs[id][:0]
			for i := 0; i < n; i++ {
				buf = AppendSetFloor(buf, ents[(off+i)&(Targets-1)], workload.Vec2{X: float64(i)})
			}
			bufs[id] = buf
			return
		}
		r := recs[id]
		for i := 0; i < n; i++ {
			deferral.Set(r, ents[(off+i)&(Targets-1)], workload.Position, workload.Vec2{X: float64(i)})
		}
		Handover(st, r)
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
	total := b.N()
	if producers > 1 {
		total = contentionFloor(b.N(), producers, per)
	}
	// Warm the buffers to the size the timed rounds use, twice: a strategy that hands a
	// producer's array over at each round and stages the next round into a second one
	// (handrolled) has two to grow, and one warm-up round left the second to grow inside the
	// first timed round, where it set the B/op and, in the reference round, the efficiency
	// (handrolled read 15 at producers = 8, GOMAXPROCS = 1, with 30 B/op).
	round(min(total, producers*per))
	round(min(total, producers*per))
	if producers == 1 {
		b.ReportAllocs()
		b.ResetTimer()
		for left := b.N(); left > 0; {
			n := min(left, per)
			round(n)
			left -= n
		}
		b.StopTimer()
		if b.Elapsed() > 0 {
			b.ReportMetric(float64(b.N())/b.Elapsed().Seconds(), "cmds/s")
		}
		// throughput(1) / (min(1, GOMAXPROCS) × throughput(1)): 1 by definition, reported
		// so that every row of the scenario has the unit.
		b.ReportMetric(1, "efficiency")
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
