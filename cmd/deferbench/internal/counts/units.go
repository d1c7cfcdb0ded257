package counts

import (
	"golang.org/x/perf/benchfmt"
)

// The count tier's units. Each is a Go benchmark unit that stock benchstat reads; none names
// bytes, so benchunit.ClassOf gives them all the decimal class (1.2k, 3.4M), and only
// task-clock-ns/op holds "ns", which benchunit.Tidy turns into task-clock-sec/op as it turns
// ns/op into sec/op.
const (
	// InstrUnit is instructions executed per op, counted by cachegrind (valgrind's virtual
	// CPU): no noise from other load, and nothing of cache or memory effects.
	InstrUnit = "instr/op"
	// SimD1MissUnit and SimLLMissUnit are first-level data cache and last-level cache misses
	// per op from cachegrind's cache simulation: a model of a cache, not the machine's.
	SimD1MissUnit = "sim-D1-miss/op"
	SimLLMissUnit = "sim-LL-miss/op"
	// The hardware counters' units, per op of the benchmark's own threads (user space).
	CyclesUnit     = "cycles/op"
	HWInstrUnit    = "hw-instr/op"
	BranchMissUnit = "branch-miss/op"
	CacheMissUnit  = "cache-miss/op"
	IPCUnit        = "IPC" // hardware instructions per cycle
	TaskClockUnit  = "task-clock-ns/op"
	PageFaultUnit  = "page-faults/op"
)

// Units lists the count tier's units; IsCountUnit reports whether a unit is one of them.
var Units = []string{InstrUnit, SimD1MissUnit, SimLLMissUnit, CyclesUnit, HWInstrUnit, BranchMissUnit, CacheMissUnit, IPCUnit, TaskClockUnit, PageFaultUnit}

// IsCountUnit reports whether unit is one of Units.
func IsCountUnit(unit string) bool {
	for _, u := range Units {
		if u == unit {
			return true
		}
	}
	return false
}

// HigherIsBetter reports whether a larger value of unit is an improvement: IPC only.
func HigherIsBetter(unit string) bool { return unit == IPCUnit }

// Results returns the rows as Go benchmark results, one per row and repetition, with the
// row's name (bench.txt prints it after the Benchmark prefix), iterations High−Low (the span the counts are taken over) and
// each unit's per-op value of that repetition, so that bench.txt holds the counts of a
// benchmark beside its times under the same name and benchstat takes the median and spread
// of the repetitions as it does for ns/op. conf is the configuration the results carry (nil
// for none).
func Results(rows []Row, conf []benchfmt.Config) []*benchfmt.Result {
	var out []*benchfmt.Result
	for _, r := range rows {
		reps := 0
		for _, m := range r.Measures {
			reps = max(reps, len(m.Samples))
		}
		for i := range reps {
			res := &benchfmt.Result{
				Config: append([]benchfmt.Config(nil), conf...),
				Name:   benchfmt.Name(r.Name),
				Iters:  r.High - r.Low,
			}
			for _, m := range r.Measures {
				if i < len(m.Samples) {
					res.Values = append(res.Values, benchfmt.Value{Value: m.Samples[i], Unit: m.Unit})
				}
			}
			out = append(out, res)
		}
	}
	return out
}
