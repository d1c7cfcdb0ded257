// Command instrcount runs one named micro-workload a given number of times, and counts the
// instructions per op of named workloads: scripts/count-instr.sh builds and runs it.
//
//	instrcount WORKLOAD N
//	instrcount -list
//	instrcount -count [-n1 N1] [-n2 N2] [WORKLOAD...]
//	instrcount -bench COUNT WORKLOAD...
//	instrcount -cpuprofile FILE WORKLOAD N
//
// Every workload does the same setup and warm-up whatever N, then N operations; what one
// operation is depends on the workload (-list says).
//
// -count counts the named workloads (all of them when none is named) with the count tier's
// cachegrind driver, counts.Count, the one deferbench run -measure instructions uses: each
// runs as a child of this program (instrcount WORKLOAD N) under
// valgrind --tool=cachegrind --cache-sim=no with counts.ControlEnv's settings, at N1 and N2
// operations (default 400000 and 800000, multiples of 400: the add/remove workloads run whole
// rounds of 400 component operations), and one line per workload says
// (I(N2) − I(N1)) / (N2 − N1): setup, warm-up and the runtime's start-up cancel out. The
// workloads are counted side by side on every CPU; the lines come in the order named. An
// unknown workload or a bad count is one line on stderr and exit status 2; no valgrind, or a
// child that fails, exit status 1.
//
// -cpuprofile runs WORKLOAD N times under the CPU profiler and writes the profile to FILE: a
// profile for profile-guided optimisation (go build -pgo=FILE), with which the compiler
// inlines hot calls its default budget refuses, such as deferral.Set's (scripts/count-instr.sh
// counts such a build with PGO=FILE).
//
// -bench times the named workloads instead, COUNT rounds of each in turn (interleaved, so
// that a change in the machine's load lands on all of them), with testing.Benchmark, and
// prints one line in the Go benchmark format per workload and round
// (BenchmarkOp/workload=NAME N ns/op, ns per op as a float): input for benchstat
// -col /workload.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"testing"

	cbench "github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/versioned"
	"github.com/deferbench/deferbench/workload"
	ark "github.com/mlange-42/ark/ecs"
)

// A workload prepares its state and returns the loop that runs n operations.
type workloadFunc func() func(n int)

type entry struct {
	op  string // what one operation is
	run workloadFunc
}

var workloads = map[string]entry{}

func register(name, op string, run workloadFunc) { workloads[name] = entry{op, run} }

// sink keeps results alive.
var sink struct {
	n     int
	f     float64
	c16   []cmd16
	cmds  []deferral.Command
	words []uint64
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-list" {
		names := make([]string, 0, len(workloads))
		for n := range workloads {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Printf("%-28s %s\n", n, workloads[n].op)
		}
		return
	}
	if len(os.Args) >= 2 && os.Args[1] == "-count" {
		os.Exit(countMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) >= 2 && os.Args[1] == "-cpuprofile" {
		os.Exit(profileMain(os.Args[2:], os.Stderr))
	}
	if len(os.Args) >= 4 && os.Args[1] == "-bench" {
		bench(os.Args[2], os.Args[3:])
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: instrcount WORKLOAD N (instrcount -list names the workloads)")
		os.Exit(2)
	}
	w, ok := workloads[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "instrcount: unknown workload %q: instrcount -list names them\n", os.Args[1])
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "instrcount: N %q: want a whole number ≥ 0\n", os.Args[2])
		os.Exit(2)
	}
	loop := w.run()
	loop(n)
	fmt.Println(sink.n)
}

// bench prints count interleaved rounds of timings of the named workloads.
func bench(count string, names []string) {
	rounds, err := strconv.Atoi(count)
	if err != nil || rounds < 1 {
		fmt.Fprintf(os.Stderr, "instrcount: -bench COUNT %q: want a whole number ≥ 1\n", count)
		os.Exit(2)
	}
	for _, n := range names {
		if _, ok := workloads[n]; !ok {
			fmt.Fprintf(os.Stderr, "instrcount: unknown workload %q: instrcount -list names them\n", n)
			os.Exit(2)
		}
	}
	testing.Init()
	for range rounds {
		for _, n := range names {
			r := testing.Benchmark(func(b *testing.B) {
				loop := workloads[n].run()
				b.ResetTimer()
				loop(b.N)
			})
			fmt.Printf("BenchmarkOp/workload=%s\t%d\t%.3f ns/op\n", n, r.N, float64(r.T.Nanoseconds())/float64(r.N))
		}
	}
}

// cmd16 is a 16-byte generic-tier command.
type cmd16 struct {
	body  uint32
	_     uint32
	force float64
}

const batch = 1024

var (
	health = ecs.NewComponent[int64]("count.Health", nil)
	tag    = ecs.NewComponent[uint32]("count.Tag", nil)
)

func targets(n int) (*ecs.World, []ecs.Entity) { return targetsOn(ecs.Slots, n) }

// targetsOn returns a world on storage s with n entities holding a Position.
func targetsOn(s ecs.Storage, n int) (*ecs.World, []ecs.Entity) {
	w := ecs.NewWorld(ecs.WithStorage(s))
	ents := make([]ecs.Entity, n)
	for i := range ents {
		e, err := w.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
		if err != nil {
			panic(err)
		}
		ents[i] = e
	}
	return w, ents
}

func init() {
	register("append16", "append a 16-byte command to a local preallocated slice (reset every 1024)", func() func(int) {
		buf := make([]cmd16, 0, batch)
		return func(n int) {
			for i := 0; i < n; i++ {
				if len(buf) == cap(buf) {
					buf = buf[:0]
				}
				buf = append(buf, cmd16{body: uint32(i), force: 1})
			}
			sink.c16 = buf
		}
	})
	register("append-compact-generic", "append the compact Set record of Position through the generic deferral.AppendSet (a call) to a local preallocated slice (reset every 1024 records)", func() func(int) {
		_, ents := targets(batch)
		words := make([]uint64, 0, 4*batch)
		return func(n int) {
			buf := words[:0]
			for i := 0; i < n; i++ {
				buf = deferral.AppendSet(buf, ents[i&(batch-1)], workload.Position, workload.Vec2{X: float64(i)})
				if i&(batch-1) == batch-1 {
					buf = buf[:0]
				}
			}
			sink.words = buf
		}
	})
	register("append72", "append a 72-byte deferral.Command Set record to a local preallocated slice", func() func(int) {
		_, ents := targets(batch)
		buf := make([]deferral.Command, 0, batch)
		return func(n int) {
			for i := 0; i < n; i++ {
				e := ents[i&(batch-1)]
				buf = append(buf, deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: workload.Position.Value(workload.Vec2{X: float64(i)})})
				if len(buf) == batch {
					buf = buf[:0]
				}
			}
			sink.cmds = buf
		}
	})
	register("append-compact", "append the compact Set record of Position (cbench.AppendSetFloor, the Stage baseline's body) to a local preallocated slice (reset every 1024 records)", func() func(int) {
		_, ents := targets(batch)
		words := make([]uint64, 0, 4*batch)
		return func(n int) {
			buf := words[:0] // a local, as in the Stage baseline: not the closure's variable
			for i := 0; i < n; i++ {
				buf = cbench.AppendSetFloor(buf, ents[i&(batch-1)], workload.Vec2{X: float64(i)})
				if i&(batch-1) == batch-1 {
					buf = buf[:0]
				}
			}
			sink.words = buf
		}
	})
	register("set-commit-generic", "stage (deferral.Set) + commit of typed Sets through cmdbuffer, 256 per commit; per command", setCommitGeneric(ecs.Slots))
	register("set-commit-generic-archetypes", "stage (deferral.Set) + commit of typed Sets through cmdbuffer on archetype storage, 256 per commit; per command", setCommitGeneric(ecs.Archetypes))
	register("set-commit", "stage + commit of typed Sets through cmdbuffer, 256 per commit; per command", func() func(int) {
		w, ents := targets(256)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		run := func(n int) {
			for i := 0; i < n; i++ {
				r.Set(ents[i&255], workload.Position.Value(workload.Vec2{X: float64(i)}))
				if i&255 == 255 {
					if err := st.Commit(); err != nil {
						panic(err)
					}
					if _, err := st.TakeReport(); err != nil {
						panic(err)
					}
				}
			}
			if err := st.Commit(); err != nil {
				panic(err)
			}
			st.TakeReport()
		}
		run(4 * 256)
		return run
	})
	for _, s := range []struct {
		name    string
		mk      deferral.Factory
		storage ecs.Storage
	}{
		{"cmdbuffer", cmdbuffer.Factory, ecs.Slots},
		{"handrolled", handrolled.Factory, ecs.Slots},
		{"hybrid", hybrid.Factory, ecs.Slots},
		{"versioned", versioned.Factory, ecs.Slots},
		// On archetype storage each entity's two adjacent Adds (and two Removes) are one net
		// change, applied with one row move (deferral's per-entity batching), as Ark's Map2.Add.
		{"cmdbuffer", cmdbuffer.Factory, ecs.Archetypes},
	} {
		for _, generic := range []bool{false, true} {
			name, how := "addremove-"+s.name, "Recorder.Add of Component.Value"
			if generic {
				name, how = "addremove-generic-"+s.name, "deferral.Add"
			}
			where := ""
			if s.storage != ecs.Slots {
				name += "-" + s.storage.String()
				where = ", " + s.storage.String() + " storage"
			}
			register(name, "add 2 / remove 2 components on 100 entities through "+s.name+" ("+how+where+"; commit after the adds and after the removes); per component op", func() func(int) {
				w, ents := targetsOn(s.storage, 100)
				st := s.mk(w)
				r := st.NewRecorder()
				commit := func() {
					if err := st.Commit(); err != nil {
						panic(err)
					}
					if _, err := st.TakeReport(); err != nil {
						panic(err)
					}
				}
				round := func() {
					if generic {
						for i, e := range ents {
							deferral.Add(r, e, health, int64(i))
							deferral.Add(r, e, tag, uint32(i))
						}
					} else {
						for i, e := range ents {
							r.Add(e, health.Value(int64(i)))
							r.Add(e, tag.Value(uint32(i)))
						}
					}
					commit()
					for _, e := range ents {
						r.Remove(e, health.ID())
						r.Remove(e, tag.ID())
					}
					commit()
				}
				for range 4 {
					round()
				}
				return func(n int) { // n in component ops, rounded to whole rounds of 400
					for k := 0; k < n; k += 400 {
						round()
					}
				}
			})
		}
	}
	for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
		register("spawn-cmdbuffer-"+st.String(), "spawn through cmdbuffer on "+st.String()+" storage: a create with Position, then Velocity and a tag added through its placeholder, 100 per commit, destroyed after it (World.Destroy); per spawn", func() func(int) {
			w := ecs.NewWorld(ecs.WithStorage(st))
			s := cmdbuffer.NewECS(w)
			r := s.NewRecorder()
			ph := make([]ecs.Entity, 100)
			round := func() {
				for i := range ph {
					ph[i] = r.Create(workload.Position.Value(workload.Vec2{X: float64(i)}))
					deferral.Add(r, ph[i], workload.Velocity, workload.Vec2{Y: 1})
					deferral.Add(r, ph[i], tag, uint32(i))
				}
				if err := s.Commit(); err != nil {
					panic(err)
				}
				rep, err := s.TakeReport()
				if err != nil {
					panic(err)
				}
				for _, e := range rep.Created {
					if err := w.Destroy(e); err != nil {
						panic(err)
					}
				}
			}
			for range 4 {
				round()
			}
			return func(n int) {
				for k := 0; k < n; k += 100 {
					round()
				}
			}
		})
	}
	register("addremove-ark", "Ark immediate Map2.Add / Map2.Remove of 2 components on 100 entities; per component op", func() func(int) {
		w := ark.NewWorld(1024)
		pos := ark.NewMap1[arkPos](&w)
		both := ark.NewMap2[arkHealth, arkTag](&w)
		es := make([]ark.Entity, 100)
		for i := range es {
			es[i] = pos.NewEntity(&arkPos{X: float64(i)})
		}
		round := func() {
			for i, e := range es {
				both.Add(e, &arkHealth{int64(i)}, &arkTag{uint32(i)})
			}
			for _, e := range es {
				both.Remove(e)
			}
		}
		for range 4 {
			round()
		}
		return func(n int) {
			for k := 0; k < n; k += 400 {
				round()
			}
		}
	})
	register("query-ecs", "ecs.NewQuery2 over 100,000 entities with Position and Velocity; per entity visited", func() func(int) {
		w := ecs.NewWorld()
		for i := range 100_000 {
			if _, err := ecs.Create2(w, workload.Position, workload.Vec2{X: float64(i)}, workload.Velocity, workload.Vec2{Y: 1}); err != nil {
				panic(err)
			}
		}
		return func(n int) {
			var sum float64
			for left := n; left > 0; {
				q := ecs.NewQuery2(w, workload.Position, workload.Velocity)
				for q.Next() {
					p, v := q.Get()
					sum += p.X + v.Y
					if left--; left == 0 {
						q.Close()
						break
					}
				}
			}
			sink.f += sum
		}
	})
	register("query-ark", "Ark Filter2 query over 100,000 entities with two components; per entity visited", func() func(int) {
		w := ark.NewWorld(1024)
		both := ark.NewMap2[arkPos, arkVel](&w)
		both.NewBatch(100_000, &arkPos{X: 1}, &arkVel{Y: 1})
		filter := ark.NewFilter2[arkPos, arkVel](&w).Register()
		return func(n int) {
			var sum float64
			for left := n; left > 0; {
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
			sink.f += sum
		}
	})
}

type (
	arkPos    struct{ X, Y float64 }
	arkVel    struct{ X, Y float64 }
	arkHealth struct{ V int64 }
	arkTag    struct{ V uint32 }
)

// setCommitGeneric is the set-commit-generic workload on storage s: typed Sets staged with
// deferral.Set through cmdbuffer on 256 entities, a commit every 256.
func setCommitGeneric(s ecs.Storage) func() func(int) {
	return func() func(int) {
		w, ents := targetsOn(s, 256)
		st := cmdbuffer.NewECS(w)
		r := st.NewRecorder()
		run := func(n int) {
			for i := 0; i < n; i++ {
				deferral.Set(r, ents[i&255], workload.Position, workload.Vec2{X: float64(i)})
				if i&255 == 255 {
					if err := st.Commit(); err != nil {
						panic(err)
					}
					if _, err := st.TakeReport(); err != nil {
						panic(err)
					}
				}
			}
			if err := st.Commit(); err != nil {
				panic(err)
			}
			st.TakeReport()
		}
		run(4 * 256)
		return run
	}
}

// profileMain is instrcount -cpuprofile FILE WORKLOAD N: the workload's N operations (after
// its setup) under the CPU profiler, written to FILE. It returns the exit status: 2 for bad
// arguments, 1 when FILE cannot be written.
func profileMain(args []string, stderr io.Writer) int {
	if len(args) != 3 {
		fmt.Fprintln(stderr, "usage: instrcount -cpuprofile FILE WORKLOAD N")
		return 2
	}
	w, ok := workloads[args[1]]
	if !ok {
		fmt.Fprintf(stderr, "instrcount: unknown workload %q: instrcount -list names them\n", args[1])
		return 2
	}
	n, err := strconv.Atoi(args[2])
	if err != nil || n < 1 {
		fmt.Fprintf(stderr, "instrcount: N %q: want a whole number ≥ 1\n", args[2])
		return 2
	}
	loop := w.run()
	f, err := os.Create(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "instrcount: -cpuprofile: %v\n", err)
		return 1
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(args[0])
		fmt.Fprintf(stderr, "instrcount: -cpuprofile: %v\n", err)
		return 1
	}
	loop(n)
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		os.Remove(args[0])
		fmt.Fprintf(stderr, "instrcount: -cpuprofile %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
