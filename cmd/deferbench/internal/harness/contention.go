package harness

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/workload"
	"golang.org/x/perf/benchfmt"
)

// contentionRound is how many commands each producer stages per round of Contention; after a
// round the owner drops them (Discard) at a sync point.
const contentionRound = 1024

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
	Name: "Contention",
	Description: "P producers stage typed commands concurrently into one target, each through its own recorder, " +
		"swept over P and GOMAXPROCS; ns/op per command, cmds/s, efficiency = throughput(P) / (min(P, GOMAXPROCS) × throughput(1))",
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
		return func(b *testing.B) error { return contention(b, s, p) }
	},
	Derive: deriveEfficiency,
}

// deriveEfficiency adds efficiency = throughput(P) / (min(P, GOMAXPROCS) × throughput(1)),
// with throughput(1) from the producers=1 result of the same strategy, GOMAXPROCS and
// repetition.
func deriveEfficiency(r *benchfmt.Result, earlier func(string) *benchfmt.Result) {
	name := string(r.Name)
	base, procs := name, 1
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil {
			base, procs = name[:i], n
		}
	}
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

// contention times P producers staging b.N typed commands in all, in rounds of
// contentionRound per producer; goroutines persist across rounds and meet at a barrier, after
// which the owner discards what was staged.
func contention(b *testing.B, s StrategyInfo, producers int) error {
	w, ents, err := stageTargets()
	if err != nil {
		return err
	}
	var st deferral.Strategy
	recs := make([]*deferral.Recorder, producers)
	bufs := make([][]deferral.Command, producers)
	if s.Baseline() {
		for i := range bufs {
			bufs[i] = make([]deferral.Command, 0, contentionRound)
		}
	} else {
		st = s.Factory(w)
		for i := range recs {
			recs[i] = st.NewRecorder()
		}
	}
	stride := stageBatch / producers
	work := func(id, n int) {
		off := id * stride
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
	start := make([]chan int, producers)
	var wg sync.WaitGroup
	for i := range start {
		start[i] = make(chan int)
		go func(id int) {
			for n := range start[id] {
				work(id, n)
				wg.Done()
			}
		}(i)
	}
	defer func() {
		for _, c := range start {
			close(c)
		}
	}()
	round := func(total int) {
		per, extra := total/producers, total%producers
		wg.Add(producers)
		for i, c := range start {
			n := per
			if i < extra {
				n++
			}
			c <- n
		}
		wg.Wait()
		if st != nil {
			st.Discard()
		}
	}
	round(producers * contentionRound) // warm the buffers
	b.ReportAllocs()
	b.ResetTimer()
	for left := b.N; left > 0; {
		n := min(left, producers*contentionRound)
		round(n)
		left -= n
	}
	b.StopTimer()
	if b.Elapsed() > 0 {
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
	}
	sink.n += len(bufs)
	if st != nil {
		return st.Close()
	}
	return nil
}
