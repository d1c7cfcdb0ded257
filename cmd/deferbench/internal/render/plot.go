package render

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// PlotOptions is what Plot needs besides the results.
type PlotOptions struct {
	// Cores is the run's NumCPU: charts at a GOMAXPROCS above it are labelled
	// oversubscribed. 0: unknown, nothing labelled.
	Cores int
	// Flags are the run's trust flags (analysis.TrustFlags): every chart's title carries
	// their first words, so that a chart copied on its own still says "Loaded".
	Flags []string
}

// Plot is PlotWith without options.
func Plot(rs []*benchfmt.Result, dir string) ([]string, error) {
	return PlotWith(rs, dir, PlotOptions{})
}

// MaxChartScenarios bounds the scenarios PlotWith draws, and 16 times it the pairs of a
// scenario and a GOMAXPROCS (some charts are per GOMAXPROCS); a chart takes some 20 ms: a deferbench run
// has about ten scenarios at a few GOMAXPROCS, while go test output of a large project can
// have thousands of benchmark functions, which would take minutes and fill plots/.
const MaxChartScenarios = 256

// maxPlotValue is the largest magnitude PlotWith draws: near the float64 maximum the axis
// padding overflows to infinity and the PNG rasterizer never finishes (1.7e308 ns/op).
const maxPlotValue = 1e300

// ErrTooManyCharts is why PlotWith refuses results of more than MaxChartScenarios scenarios.
var ErrTooManyCharts = errors.New("too many charts")

// chartFile is the file name (without extension) of the chart called name, which comes from
// benchmark names in the input: kept as it is when it is short and made of letters, digits,
// '.', '_' and '-' (every chart of a deferbench run); otherwise the unsafe characters become
// '_', it is cut to 80 bytes, and a hash of the whole name keeps two such charts apart, so
// that no benchmark name can make a path that is too long, hidden, or outside the folder.
func chartFile(name string) string {
	safe := func(r rune) bool {
		return r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}
	if name != "" && len(name) <= 80 && name[0] != '.' && !strings.ContainsFunc(name, func(r rune) bool { return !safe(r) }) {
		return name
	}
	b := []byte(strings.Map(func(r rune) rune {
		if safe(r) {
			return r
		}
		return '_'
	}, name))
	if len(b) > 80 {
		b = b[:80]
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("_%s-%08x", b, h.Sum32())
}

// PlotWith draws results into dir as SVG and PNG and returns the files it wrote, each once:
// the charts every scenario declares (Scenario.Charts; a scenario without any, or not in the
// table, gets a bar chart of its median ns/op per variant and strategy). Today:
//   - SCENARIO: Stage, StageApply, Frame and Readers, the median time per op (per frame) of
//     every variant and strategy;
//   - Frame-scaling: Frame's ns/frame against entities, with two or more entity counts;
//     Frame-scaling-G per GOMAXPROCS G when Frame ran at several; Frame-per-entity the same
//     divided by the entities;
//   - Contention-efficiency-G and Contention-throughput-G: efficiency and cmds/s against
//     producers, one chart per GOMAXPROCS G ("oversubscribed" in the title above NumCPU);
//   - Readers-latency: p50 and p99 read latency per readers count and strategy;
//   - Determinism: distinct final states per strategy (1 = reproducible);
//   - Spike: retained-x, the heap held after the spike over the steady heap (the scenario's
//     purpose), and Spike-time the time per ordinary frame.
//
// Every median carries its 95% confidence interval as an error bar (none with fewer than 6
// repetitions); an axis whose medians span more than 10× is logarithmic, and a bar chart on
// it draws markers and intervals without bars; an interval reaching past 2.5× the largest
// median (6.25× on a log axis) is cut at the axis, marked ▲ and counted in the title. Every
// title ends with the run's trust flags (opt.Flags), "[Loaded]", so that a chart pasted
// alone keeps them. Every strategy has
// its own colour and marker, taken from its row in the strategy table (styleOf). The legend
// stands right of the data.
func PlotWith(rs []*benchfmt.Result, dir string, opt PlotOptions) ([]string, error) {
	scs, runs := map[string]bool{}, map[[2]string]bool{}
	for _, r := range rs {
		n := results.ParseName(string(r.Name))
		scs[n.Scenario] = true
		runs[[2]string{n.Scenario, strconv.Itoa(n.Procs)}] = true
	}
	switch {
	case len(scs) > MaxChartScenarios:
		return nil, fmt.Errorf("%w: the results have %d scenarios (benchmark names before the first /), more than %d", ErrTooManyCharts, len(scs), MaxChartScenarios)
	case len(runs) > 16*MaxChartScenarios:
		// Some charts are drawn per GOMAXPROCS (the -N suffix); a run of every scenario at
		// the 256 GOMAXPROCS values deferbench run -procs allows stays below this.
		return nil, fmt.Errorf("%w: the results have %d scenario and GOMAXPROCS pairs, more than %d", ErrTooManyCharts, len(runs), 16*MaxChartScenarios)
	}
	sums := analysis.Summarize(rs)
	for _, s := range sums {
		for _, x := range []float64{s.Median, s.Lo, s.Hi} {
			if !(math.Abs(x) <= maxPlotValue) {
				return nil, fmt.Errorf("%w: Benchmark%s has %s %s, too large to draw (the axes overflow past %g): correct or delete its lines",
					results.ErrBadValue, s.Name, strconv.FormatFloat(x, 'g', -1, 64), s.Unit, maxPlotValue)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	byUnit := map[string][]point{}
	for _, s := range sums {
		byUnit[s.Unit] = append(byUnit[s.Unit], point{results.ParseName(s.Name), s})
	}
	var files []string
	names := map[string]bool{}
	save := func(p *plot.Plot, name string) error {
		if names[name] {
			return fmt.Errorf("plot %s: two charts with one name", name)
		}
		names[name] = true
		for _, ext := range []string{"svg", "png"} {
			b, err := render(p, chartWidth(p), 12*vg.Centimeter, ext)
			if err != nil {
				return fmt.Errorf("plot %s: %w", name, err)
			}
			f := filepath.Join(dir, chartFile(name)+"."+ext)
			if err := results.WriteFileAtomic(f, b); err != nil {
				return err
			}
			files = append(files, f)
		}
		return nil
	}

	// Strategies and scenarios in first-seen order.
	var strategies, scenarios []string
	seen := map[string]bool{}
	for _, r := range rs {
		n := results.ParseName(string(r.Name))
		if !seen["s:"+n.Strategy] {
			seen["s:"+n.Strategy] = true
			strategies = append(strategies, n.Strategy)
		}
		if !seen["c:"+n.Scenario] {
			seen["c:"+n.Scenario] = true
			scenarios = append(scenarios, n.Scenario)
		}
	}
	style := styleOf(strategies)
	flagged := ""
	if len(opt.Flags) > 0 {
		flagged = " [" + strings.Join(analysis.ShortFlags(opt.Flags), ", ") + "]"
	}
	// untimedFlagged is flagged for a chart of counts, bytes or ratios (distinct-states,
	// retained-x): without the flags that bear on timing alone (Loaded, Emulated, Throttled).
	untimedFlagged := ""
	var kept []string
	for _, f := range analysis.ShortFlags(opt.Flags) {
		if f != "Loaded" && f != "Emulated" && f != "Throttled" {
			kept = append(kept, f)
		}
	}
	if len(kept) > 0 {
		untimedFlagged = " [" + strings.Join(kept, ", ") + "]"
	}
	over := func(g int) string {
		if opt.Cores > 0 && g > opt.Cores {
			return fmt.Sprintf(", oversubscribed: above NumCPU=%d", opt.Cores)
		}
		return ""
	}

	for _, sc := range scenarios {
		def := suite.Lookup(sc)
		for _, ch := range def.ChartsOf() {
			name := ch.Name
			if name == "" {
				name = sc
			}
			title := sc + ": " + ch.Title
			if ch.Against == "" {
				var bars []barPoint
				for _, u := range ch.Units {
					for _, pt := range byUnit[u] {
						if pt.n.Scenario == sc && ch.Draws(pt.n) {
							sub := ""
							if len(ch.Units) > 1 {
								sub, _, _ = strings.Cut(u, "-")
							}
							bars = append(bars, barPoint{pt.n, sub, pt.s})
						}
					}
				}
				sortBars(bars, ch.Units)
				mode := axisMode(0)
				if ch.Linear {
					mode = linearAxis
				}
				cores := opt.Cores
				if def.OwnProcs {
					cores = 0
				}
				p, logY, clipped := barChart(bars, ch.Units[0], strategies, style, cores, mode)
				if p == nil {
					continue
				}
				var ss []results.Summary
				for _, b := range bars {
					ss = append(ss, b.s)
				}
				p.Title.Text = title + logNote(logY) + clipNote(clipped) + noCINote(ss) + timedFlags(ch.Units, flagged, untimedFlagged)
				p.Y.Label.Text = ch.YLabel
				if def.OwnProcs {
					p.X.Label.Text = "" // the scenario sets GOMAXPROCS itself
				}
				if ch.Bound > 0 {
					addBound(p, ch.Bound)
				}
				if ch.CountOf != "" {
					most := 0.0
					for _, b := range bars {
						if r, err := strconv.ParseFloat(b.n.Param(ch.CountOf), 64); err == nil {
							most = math.Max(most, r)
						}
					}
					p.Y.Min = 0
					p.Y.Max = math.Max(p.Y.Max, most) + 1
					p.Y.Tick.Marker = integerTicks{}
				}
				if err := save(p, name); err != nil {
					return files, err
				}
				continue
			}
			// Lines against a numeric parameter, per GOMAXPROCS where needed.
			pts := byUnit[ch.Units[0]]
			if ch.PerAgainst {
				pts = perParam(pts, sc, ch.Against)
			}
			procs := procsOf(pts, sc)
			// One chart per world storage: a line joins points of one storage only (rows
			// without a storage parameter are on slots, and keep the chart's own name).
			for _, store := range storagesOf(pts, sc) {
				spts, sname, stitle := onStorage(pts, store), name, title
				if store != "" {
					sname, stitle = name+"-"+store, title+" on "+store+" storage"
				}
				for _, g := range procs {
					p, logY, clipped := linePlot(spts, sc, ch.Against, g, ch.Units[0], strategies, style)
					if p == nil {
						continue
					}
					file, t := sname, stitle
					if ch.PerProcs || len(procs) > 1 {
						file = fmt.Sprintf("%s-%d", sname, g)
						t = fmt.Sprintf("%s at GOMAXPROCS=%d%s", stitle, g, over(g))
					}
					var ss []results.Summary
					for _, pt := range spts {
						if pt.n.Scenario == sc && pt.n.Procs == g {
							ss = append(ss, pt.s)
						}
					}
					p.Title.Text = t + logNote2(true, logY) + clipNote(clipped) + noCINote(ss) + flagged
					p.Y.Label.Text = ch.YLabel
					if err := save(p, file); err != nil {
						return files, err
					}
				}
			}
		}
	}
	if len(files) == 0 {
		// Nothing to draw (a counted-only run: the charts draw timed units): no empty
		// plots/ left behind. Remove takes only an empty directory.
		_ = os.Remove(dir)
	}
	return files, nil
}

// sortBars orders bars by variant (first seen), then by unit in units order.
func sortBars(bars []barPoint, units []string) {
	first := map[string]int{}
	for i, b := range bars {
		if _, ok := first[b.n.Variant()]; !ok {
			first[b.n.Variant()] = i
		}
	}
	rank := func(b barPoint) int {
		for i, u := range units {
			if strings.HasPrefix(u, b.sub) && b.sub != "" {
				return i
			}
		}
		return 0
	}
	sort.SliceStable(bars, func(i, j int) bool {
		vi, vj := first[bars[i].n.Variant()], first[bars[j].n.Variant()]
		if vi != vj {
			return vi < vj
		}
		return rank(bars[i]) < rank(bars[j])
	})
}

func logNote(logY bool) string {
	if logY {
		return " (log scale)"
	}
	return ""
}

// clipNote says that n intervals were cut at the top of the axis (▲).
func clipNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (▲: 1 interval cut at the axis)"
	}
	return fmt.Sprintf(" (▲: %d intervals cut at the axis)", n)
}

// noCINote says that some medians drawn have no interval: fewer than 6 repetitions (a -quick
// run, a low -count), so a marker without a bar is no sign of a steady measurement.
func noCINote(ss []results.Summary) string {
	for _, s := range ss {
		if s.NoCI {
			return " (no 95% CI: fewer than 6 repetitions)"
		}
	}
	return ""
}

// logNote2 names the log axes of a line chart: x is always logarithmic.
func logNote2(logX, logY bool) string {
	switch {
	case logX && logY:
		return " (log-log)"
	case logX:
		return " (log x)"
	}
	return ""
}

// perParam divides the values of scenario sc by its numeric parameter key (time per
// entity).
func perParam(pts []point, sc, key string) []point {
	var out []point
	for _, pt := range pts {
		if pt.n.Scenario != sc {
			continue
		}
		x, err := strconv.ParseFloat(pt.n.Param(key), 64)
		if err != nil || x <= 0 {
			continue
		}
		s := pt.s
		s.Median, s.Lo, s.Hi = s.Median/x, s.Lo/x, s.Hi/x
		out = append(out, point{pt.n, s})
	}
	return out
}

// procsOf is the GOMAXPROCS values of scenario sc among pts, ascending.
// storagesOf returns the storage parameter values of sc's points, first seen first ("" for
// rows without one: slots storage).
func storagesOf(pts []point, sc string) []string {
	seen := map[string]bool{}
	var out []string
	for _, pt := range pts {
		if v := pt.n.Param("storage"); pt.n.Scenario == sc && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// onStorage returns the points whose storage parameter is store.
func onStorage(pts []point, store string) []point {
	var out []point
	for _, pt := range pts {
		if pt.n.Param("storage") == store {
			out = append(out, pt)
		}
	}
	return out
}

func procsOf(pts []point, sc string) []int {
	seen := map[int]bool{}
	var ps []int
	for _, pt := range pts {
		if pt.n.Scenario == sc && !seen[pt.n.Procs] {
			seen[pt.n.Procs] = true
			ps = append(ps, pt.n.Procs)
		}
	}
	sort.Ints(ps)
	return ps
}

// timedFlags is flagged for a chart of times or rates, untimed for one of counts, bytes or
// ratios (distinct-states, retained-x).
func timedFlags(units []string, flagged, untimed string) string {
	for _, u := range units {
		if results.UnitIsTime(u) || results.HigherIsBetter(u) {
			return flagged
		}
	}
	return untimed
}
