package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
)

// obs is one sample: its value and the index of its result in the input, which tells the
// repetition order.
type obs struct {
	v   float64
	pos int
}

// RowID is one row of a scenario: its parameters (without the strategy) and GOMAXPROCS.
type RowID struct {
	Scenario, Variant string // Variant: the parameters but strategy, "k=v k=v"
	Procs             int    // GOMAXPROCS
}

// Run is a run's samples by row, strategy and unit.
type Run struct {
	scenarios  []string
	rows       map[string][]RowID        // scenario → rows, first-seen order
	params     map[RowID][]results.Param // the row's parameters
	strategies map[RowID][]string        // strategies of a row, first-seen order
	samples    map[sampleKey][]obs       // in input order
	units      map[string]bool           // every unit seen
	ProcsSeen  map[int]int               // GOMAXPROCS → results
	byName     map[string]results.Name   // full name → parsed
}

type sampleKey struct {
	row      RowID
	strategy string
	unit     string
}

func NewRun(rs []*benchfmt.Result) *Run {
	d := &Run{rows: map[string][]RowID{}, params: map[RowID][]results.Param{}, strategies: map[RowID][]string{},
		samples: map[sampleKey][]obs{}, units: map[string]bool{}, ProcsSeen: map[int]int{}, byName: map[string]results.Name{}}
	seen := map[string]bool{}
	for i, r := range rs {
		name := string(r.Name)
		n, ok := d.byName[name]
		if !ok {
			n = results.ParseName(name)
			d.byName[name] = n
		}
		id := RowID{n.Scenario, n.Variant(), n.Procs}
		if !seen["c\x00"+n.Scenario] {
			seen["c\x00"+n.Scenario] = true
			d.scenarios = append(d.scenarios, n.Scenario)
		}
		rk := fmt.Sprintf("r\x00%s\x00%s\x00%d", id.Scenario, id.Variant, id.Procs)
		if !seen[rk] {
			seen[rk] = true
			d.rows[n.Scenario] = append(d.rows[n.Scenario], id)
			d.params[id] = n.Params
		}
		if !seen[rk+"\x00"+n.Strategy] {
			seen[rk+"\x00"+n.Strategy] = true
			d.strategies[id] = append(d.strategies[id], n.Strategy)
		}
		d.ProcsSeen[n.Procs]++
		for _, v := range r.Values {
			x, u := results.UnitValue(v)
			k := sampleKey{id, n.Strategy, u}
			d.samples[k] = append(d.samples[k], obs{x, i})
			d.units[u] = true
		}
	}
	return d
}

func values(os []obs) []float64 {
	v := make([]float64, len(os))
	for i, o := range os {
		v[i] = o.v
	}
	return v
}

func paramValue(ps []results.Param, k string) string {
	for _, p := range ps {
		if p.Key == k {
			return p.Value
		}
	}
	return ""
}

// Cores is the run's NumCPU: known (env.json's) when above 0, else the GOMAXPROCS most results ran at (the runner
// defaults to it).
func (d *Run) Cores(known int) (int, string) {
	if known > 0 {
		return known, "env.json"
	}
	best, n := 0, -1
	for p, c := range d.ProcsSeen {
		if c > n || (c == n && p < best) {
			best, n = p, c
		}
	}
	return best, "guessed: the GOMAXPROCS most results ran at (no env.json)"
}

// CeilingMin is the least efficiency Contention's noop control must reach at P = GOMAXPROCS
// for the run's Contention figures to measure the strategies: below it the machine (other
// load, too few real cores, frequency scaling) or the harness caps every row.
const CeilingMin = 0.9

// Ceiling is the lowest median efficiency of the noop control at producers = GOMAXPROCS,
// 1 < P ≤ cores, and that P; +Inf when it did not run there.
func (d *Run) Ceiling(cores int) (worst float64, at int) {
	worst = math.Inf(1)
	for _, id := range d.rows["Contention"] {
		p, err := strconv.Atoi(paramValue(d.params[id], "producers"))
		if err != nil || p != id.Procs || p < 2 || (cores > 0 && p > cores) {
			continue
		}
		v := values(d.samples[sampleKey{id, suite.NoopName, "efficiency"}])
		if len(v) == 0 {
			continue
		}
		sort.Float64s(v)
		if m := median(v); m < worst {
			worst, at = m, p
		}
	}
	return worst, at
}

// EfficiencyMax is the highest median efficiency of any strategy (the noop control too) in any
// Contention row with producers ≤ GOMAXPROCS ≤ cores (cores 0: any GOMAXPROCS), with where it
// was read: its strategy, producers and GOMAXPROCS; 0 when Contention did not run there. The
// other rows are left out: with more producers than GOMAXPROCS, or GOMAXPROCS above the
// cores, the producers spinning at the barrier share the processors with producer 0's
// reference rounds, which lifts efficiency above 1 by design. Efficiency is throughput(P) / (min(P, GOMAXPROCS) × throughput(1)),
// at most about 1 when both sides are measured alike: well above 1, the single-producer
// reference rounds ran slower than the P-producer rounds beside them (the machine took the
// CPU away from them, or there were too few rounds for the median to drop those), and the
// run's efficiency figures are not to be trusted.
func (d *Run) EfficiencyMax(cores int) (best float64, strategy string, producers, procs int) {
	for _, id := range d.rows["Contention"] {
		if cores > 0 && id.Procs > cores {
			continue
		}
		p, _ := strconv.Atoi(paramValue(d.params[id], "producers"))
		if p > id.Procs {
			continue
		}
		for _, st := range d.strategies[id] {
			v := values(d.samples[sampleKey{id, st, "efficiency"}])
			if len(v) == 0 {
				continue
			}
			sort.Float64s(v)
			if m := median(v); m > best {
				best, strategy, producers, procs = m, st, p, id.Procs
			}
		}
	}
	return best, strategy, producers, procs
}

// EfficiencyMaxOK is the highest median efficiency a run's Contention figures may show
// before the report flags them: cache effects can lift a row a little above 1, not by a
// quarter.
const EfficiencyMaxOK = 1.25

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
