package conformance

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/workload"
)

// checkConcurrentRecorders: several goroutines, each with its own recorder, stage creates,
// adds on their placeholders, sets on an entity of their own and closures at the same time;
// the commit applies all of it, FIFO within each recorder. Run under -race, it also proves
// that staging into different recorders shares no unguarded state.
func checkConcurrentRecorders(x *fixture) {
	x.logSeed()
	rng := rand.New(rand.NewPCG(x.seed, 0xc0c0))
	g := 8
	m := 50 + rng.IntN(100)
	x.Logf("%d goroutines, %d iterations each", g, m)
	owned := make([]ecs.Entity, g)
	recs := make([]*deferral.Recorder, g)
	for i := range g {
		owned[i] = x.create(x.w, pt(float64(i), -1))
		recs[i] = x.s.NewRecorder()
	}
	logs := make([][]int, g) // closure runs, appended at commit
	start := make(chan struct{})
	var wg sync.WaitGroup
	for k := range g {
		gr := rand.New(rand.NewPCG(x.seed, uint64(k)))
		wg.Go(func() {
			defer x.recoverPanic(fmt.Sprintf("producer %d", k))
			r := recs[k]
			<-start
			for i := range m {
				p := r.Create(pt(float64(k), float64(i)))
				r.Add(p, vl(float64(k), float64(i)))
				r.Set(owned[k], pt(float64(k), float64(i)))
				if i%10 == 0 {
					r.Do(func(*ecs.World) error { logs[k] = append(logs[k], i); return nil })
				}
				if gr.IntN(4) == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	close(start)
	wg.Wait()
	closures := (m + 9) / 10
	total := g * (3*m + closures)
	want(x, "pending after concurrent staging", x.s.Pending(), total)
	x.commit("commit of concurrent recorders", x.s)
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	want(x, "report.Applied", rep.Applied, total)
	want(x, "report: created entities", len(rep.Created), g*m)
	next := make([]int, g)
	for _, e := range rep.Created {
		p := x.pos("created", x.w, e)
		k, i := int(p.X), int(p.Y)
		if k < 0 || k >= g {
			x.Errorf("created entity %v: position %v names no producer", e, p)
			continue
		}
		if i != next[k] {
			x.Errorf("producer %d: created entity %d applied where %d was due (FIFO within a recorder)", k, i, next[k])
		}
		next[k] = i + 1
		if v, ok := vel(x.w, e); !ok || v != p {
			x.Errorf("producer %d entity %d: velocity got %v (present %v), want %v (added on its placeholder)", k, i, v, ok, p)
		}
	}
	for k := range g {
		want(x, fmt.Sprintf("producer %d: its entity's position (last set)", k), x.pos("owned", x.w, owned[k]), v2(float64(k), float64(m-1)))
		var wantLog []int
		for i := 0; i < m; i += 10 {
			wantLog = append(wantLog, i)
		}
		if !slices.Equal(logs[k], wantLog) {
			x.Errorf("producer %d: closure runs got %v, want %v", k, logs[k], wantLog)
		}
	}
}

// event is one staged command of the order check: producer g's i-th command, with its sort
// key; a closure or a create.
type event struct {
	g, i    int
	key     uint64
	closure bool
}

func (e event) String() string {
	if e.closure {
		return fmt.Sprintf("fn%d.%d", e.g, e.i)
	}
	return fmt.Sprintf("c%d.%d", e.g, e.i)
}

// orderKey is the sort key of producer g's i-th command: not monotonic within a producer.
func orderKey(g, i int) uint64 { return uint64((g*7 + i*3) % 5) }

// checkOrder: the cross-recorder apply order is what the strategy declares. Producers stage
// creates and closures with varying sort keys, on goroutines released in a seeded random
// order (token passing) or running freely with seeded yields, several times over.
//   - ReproducibleOrder: the apply order is (sort key if SortKeys, recorder, FIFO) in every
//     repetition, and the world hash is the same in every repetition.
//   - otherwise: each recorder's commands apply in FIFO order (within one sort key, if
//     SortKeys, with keys non-decreasing), every command applies once, and the world is the
//     one that order produces.
func checkOrder(x *fixture) {
	x.logSeed()
	rng := rand.New(rand.NewPCG(x.seed, 0x0de7))
	const producers, perProducer, reps = 4, 24, 6
	var staged []event
	for g := range producers {
		for i := range perProducer {
			staged = append(staged, event{g: g, i: i, key: orderKey(g, i), closure: i%5 == 4})
		}
	}
	wantOrder := slices.Clone(staged)
	slices.SortStableFunc(wantOrder, func(a, b event) int {
		if x.caps.SortKeys {
			if c := cmp.Compare(a.key, b.key); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(a.g, b.g), cmp.Compare(a.i, b.i))
	})
	var firstHash uint64
	orders := map[string]bool{}
	for rep := range reps {
		w, s := x.pair()
		got := x.stageAndCommit(w, s, producers, perProducer, rep%2 == 0, rng)
		if got == nil {
			return
		}
		orders[fmt.Sprint(got)] = true
		if len(got) != len(staged) {
			x.Errorf("repetition %d: applied %d commands, want %d", rep, len(got), len(staged))
			continue
		}
		if x.caps.ReproducibleOrder {
			if !slices.Equal(got, wantOrder) {
				x.Errorf("repetition %d: apply order:\n got %v\nwant %v (%s)", rep, got, wantOrder, x.caps.Order)
			}
			if h := w.Hash(); rep == 0 {
				firstHash = h
			} else if h != firstHash {
				x.Errorf("repetition %d: world hash: got %#x, want %#x as in repetition 0", rep, h, firstHash)
			}
			continue
		}
		x.wantValidInterleaving(rep, got)
		x.wantWorldOf(rep, w, got)
	}
	x.Logf("%d distinct apply orders in %d repetitions", len(orders), reps)
}

// wantValidInterleaving checks got is a valid interleaving of the producers' FIFOs: each
// command once, FIFO within a producer (within a sort key, keys non-decreasing, if SortKeys).
func (x *fixture) wantValidInterleaving(rep int, got []event) {
	x.Helper()
	seen := map[[2]int]bool{}
	last := map[[2]int]int{} // (producer, key or 0) → last i
	var prevKey uint64
	for n, e := range got {
		id := [2]int{e.g, e.i}
		if seen[id] {
			x.Errorf("repetition %d: command %v applied twice", rep, e)
		}
		seen[id] = true
		lane := [2]int{e.g, 0}
		if x.caps.SortKeys {
			lane[1] = int(e.key)
			if n > 0 && e.key < prevKey {
				x.Errorf("repetition %d: command %v (key %d) applied after key %d, want keys non-decreasing", rep, e, e.key, prevKey)
			}
			prevKey = e.key
		}
		if l, ok := last[lane]; ok && e.i <= l {
			x.Errorf("repetition %d: producer %d command %d applied after its command %d (FIFO within a recorder)", rep, e.g, e.i, l)
		}
		last[lane] = e.i
	}
}

// wantWorldOf checks w is the world that applying the creates of got in order to an empty
// world makes: the strategy's world is one of the valid interleavings, the one it reported.
func (x *fixture) wantWorldOf(rep int, w *ecs.World, got []event) {
	x.Helper()
	ref := x.newWorld()
	for _, e := range got {
		if !e.closure {
			x.create(ref, pt(float64(e.g), float64(e.i)))
		}
	}
	if w.Hash() != ref.Hash() {
		x.Errorf("repetition %d: world hash: got %#x, want %#x (the world the reported order makes)", rep, w.Hash(), ref.Hash())
	}
}

// stageAndCommit stages the order check's commands on s from one goroutine per producer and
// commits them. coordinated: the goroutines take turns in a seeded random schedule (token
// passing); otherwise they run freely, started in a random order, yielding at random. It
// returns the commands in apply order, read from the report (creates) and the closures' log.
func (x *fixture) stageAndCommit(w *ecs.World, s deferral.Strategy, producers, perProducer int, coordinated bool, rng *rand.Rand) []event {
	x.Helper()
	recs := make([]*deferral.Recorder, producers)
	for g := range recs {
		recs[g] = s.NewRecorder()
	}
	type fnRun struct {
		e     event
		after int // creates applied before the closure ran
	}
	var runs []fnRun
	stage := func(g, i int) {
		r := recs[g]
		r.SetSortKey(orderKey(g, i))
		if i%5 == 4 {
			e := event{g: g, i: i, key: orderKey(g, i), closure: true}
			r.Do(func(w *ecs.World) error { runs = append(runs, fnRun{e, w.Len()}); return nil })
			return
		}
		r.Create(pt(float64(g), float64(i)))
	}
	turns := make([]chan int, producers)
	ack := make(chan struct{})
	start := make([]chan struct{}, producers)
	for g := range producers {
		turns[g] = make(chan int)
		start[g] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for g := range producers {
		yield := rand.New(rand.NewPCG(rng.Uint64(), uint64(g)))
		wg.Go(func() {
			defer x.recoverPanic(fmt.Sprintf("producer %d", g))
			if coordinated {
				i := 0
				for n := range turns[g] {
					for range n {
						stage(g, i)
						i++
					}
					ack <- struct{}{}
				}
				return
			}
			<-start[g]
			for i := range perProducer {
				stage(g, i)
				if yield.IntN(3) == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	if coordinated {
		left := make([]int, producers)
		for g := range left {
			left[g] = perProducer
		}
		for slices.Max(left) > 0 {
			g := rng.IntN(producers)
			if left[g] == 0 {
				continue
			}
			n := min(left[g], 1+rng.IntN(4))
			left[g] -= n
			turns[g] <- n
			<-ack
		}
		for g := range turns {
			close(turns[g])
		}
	} else {
		for _, g := range rng.Perm(producers) {
			close(start[g])
		}
	}
	wg.Wait()
	if err := s.Commit(); err != nil {
		x.Errorf("order check commit: got error %v, want nil", err)
		return nil
	}
	rep, err := s.TakeReport()
	if err != nil {
		x.Errorf("order check take report: got error %v, want nil", err)
		return nil
	}
	var got []event
	k := 0
	for n, e := range rep.Created {
		for k < len(runs) && runs[k].after <= n {
			got = append(got, runs[k].e)
			k++
		}
		p, err := workload.Position.Get(w, e)
		if err != nil {
			x.Errorf("order check: created entity %v: %v", e, err)
			return nil
		}
		g, i := int(p.X), int(p.Y)
		got = append(got, event{g: g, i: i, key: orderKey(g, i)})
	}
	for _, r := range runs[k:] {
		got = append(got, r.e)
	}
	return got
}

// checkDeterminism: the parallel particle frame with an order-sensitive decision rule, across
// runs, GOMAXPROCS values and seeded scheduling jitter. ReproducibleOrder: exactly one
// distinct final world. Otherwise the count is only logged (it is the harness's
// distinct-states metric), but the runs must complete without error.
func checkDeterminism(x *fixture) {
	x.logSeed()
	// Each goroutine an expired row left behind may spin on a P of its own (the watchdog added
	// one for each): the runs get that many more, so that GOMAXPROCS 1 still leaves them one.
	spare := leftBehind()
	procs := []int{1 + spare, 2 + spare, 4 + spare}
	d := Determinism{Runs: 3, Frames: 4, Entities: 400, Producers: 4, Procs: procs, JitterSeed: x.seed, Storage: x.store}
	n, err := d.DistinctStates(x.f)
	if !x.wantNil("distinct states", err) {
		return
	}
	if x.caps.ReproducibleOrder {
		want(x, fmt.Sprintf("distinct final worlds over %d runs × GOMAXPROCS %v with jitter", d.Runs, d.Procs), n, 1)
		return
	}
	if n < 1 {
		x.Errorf("distinct final worlds: got %d, want at least 1", n)
	}
	x.Logf("distinct final worlds over %d runs × GOMAXPROCS %v with jitter: %d (order not declared reproducible)", d.Runs, d.Procs, n)
}
