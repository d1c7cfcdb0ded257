// Package suite declares deferbench's benchmark suite as data: each scenario's name, the
// description that says what one op is, its headline metrics and its charts, and each row of
// the strategy table (name, description, and whether it is a control rather than a
// strategy). The harness runs the scenarios under these names, analysis ranks the strategies
// by the headlines, render draws the charts and the fleet table shows the headline figures;
// none of them holds a second copy. The package builds no strategy: what analysis needs to
// know about one (its deferral.Capabilities) travels in bench.txt.
package suite

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/deferral"
)

// Param is one key=value element of a sub-benchmark name.
type Param = results.Param

// Scenario is a family of sub-benchmarks as the reports read it; the harness adds how to run
// it.
type Scenario struct {
	// Name is the benchmark name after the Benchmark prefix.
	Name string
	// Description is one line for `deferbench list` and report.md: what one op
	// is, per variant.
	Description string
	// Headlines are the metrics the report's Findings rank the strategies by, and the
	// requirements of its "Which to pick" they answer; none means ns/op in every variant.
	Headlines []Headline
	// Charts are the plots the scenario draws; none means a bar chart of ns/op per variant.
	Charts []Chart
	// Per is what one op of ns/op is, for chart titles: "op" when empty, "frame".
	Per string
	// OwnProcs: the scenario sets GOMAXPROCS itself (Determinism: 1, NumCPU, 2×NumCPU), so
	// report headings and charts do not name the -N suffix of its results.
	OwnProcs bool
	// Against are the references the report sets the strategies of some rows against:
	// what a user would write instead of deferring (Peer's: Ark's collect-then-apply and
	// Ark's batches).
	Against []Against
}

// Against is a reference row the strategies of a scenario's rows are set against in the
// report's Findings, as a ratio with its 95% CI (and a ratio of instructions per op where
// both were counted): the row of Strategy that has the ranked row's parameters, with Set
// replacing or adding some, at the same GOMAXPROCS. It applies to the rows that have one of
// Only's parameters.
type Against struct {
	Label    string  // how the report names it: "Ark's collect-then-apply"
	Where    string  // where it ran, for the report: "archetypes, Ark's only storage"
	Strategy string  // the reference's strategy name in bench.txt
	Only     []Param // the ranked rows it applies to
	Set      []Param // the reference row's parameters that differ from the ranked row's
}

// AppliesTo reports whether a is set against the row of parameters ps.
func (a Against) AppliesTo(ps []Param) bool {
	for _, o := range a.Only {
		for _, p := range ps {
			if p == o {
				return true
			}
		}
	}
	return false
}

// Row returns the reference row's parameters for the ranked row of parameters ps: ps with
// each of Set's keys given Set's value, in ps's order, and Set's other keys after them.
func (a Against) Row(ps []Param) []Param {
	out := make([]Param, 0, len(ps)+len(a.Set))
	used := make([]bool, len(a.Set))
	for _, p := range ps {
		for i, s := range a.Set {
			if s.Key == p.Key {
				p, used[i] = s, true
			}
		}
		out = append(out, p)
	}
	for i, s := range a.Set {
		if !used[i] {
			out = append(out, s)
		}
	}
	return out
}

// ChartsOf returns the scenario's charts: its declared ones, or one bar chart of ns/op.
func (s Scenario) ChartsOf() []Chart {
	if len(s.Charts) > 0 {
		return s.Charts
	}
	per := s.Per
	if per == "" {
		per = "op"
	}
	return []Chart{{Title: "median time per " + per, YLabel: "time per " + per, Units: []string{"ns/op"}}}
}

// Headline is one metric the report's Findings rank the strategies by. A scenario declares
// its headlines (Scenario.Headlines); one that declares none is ranked by ns/op in every
// variant.
type Headline struct {
	// Unit is the metric's unit as bench.txt writes it: "ns/op", "allocs/op", "efficiency".
	Unit string
	// Higher: a higher value is better (efficiency, throughput); otherwise lower is.
	Higher bool
	// Where keeps the rows whose name has these key=value parameters; the value NumCPU
	// stands for the run's NumCPU (or, when no row has it, the largest value below it). Rows
	// left are ranked one by one.
	Where []Param
	// AtNumCPU keeps the rows at GOMAXPROCS = NumCPU (or the largest GOMAXPROCS below it).
	AtNumCPU bool
	// Need, when set, makes the headline answer a row of the report's "Which to pick": the
	// requirement a user has, with {key} replaced by the row's parameter ("lowest frame
	// time at {entities} entities") and {GOMAXPROCS} by the row's GOMAXPROCS.
	Need string
	// Meets, when set, decides from a strategy's samples whether it meets Need (all zero,
	// say); nil means the strategies of the best group: those noise cannot separate from the
	// best.
	Meets func(samples []float64) bool
	// Requires, when set, is the declared property Need rests on: whether the strategy's
	// declared capabilities (as bench.txt carries them) have it, and the words that say so.
	Requires func(c deferral.Capabilities) (ok bool, why string)
	// Within names a companion headline's unit in the same row (higher is better there): a
	// strategy whose median in it is under a tenth of the best strategy's is not ranked by
	// this headline but listed after the ranked ones, with its share. Contention's
	// efficiency is relative to each strategy's own single-producer speed, so a strategy
	// that stages a fiftieth of the others' commands could otherwise be "best" at it.
	Within string
	// Cost makes the row a price rather than a requirement: "Which to pick" lists the
	// strategies that pay it and what, and its summary line does not count it.
	Cost bool
}

// allBelow meets a need when every sample is below x (allocs/op: amortized growth of a
// buffer gives a few millionths).
func allBelow(x float64) func([]float64) bool {
	return func(v []float64) bool {
		for _, s := range v {
			if !(s < x) {
				return false
			}
		}
		return len(v) > 0
	}
}

// allEqual meets a need when every sample is x.
func allEqual(x float64) func([]float64) bool {
	return func(v []float64) bool {
		for _, s := range v {
			if s != x {
				return false
			}
		}
		return len(v) > 0
	}
}

// Plot chart names, without the .svg/.png extension.
const (
	// PlotFrameScaling is Frame's ns/frame against entities (log-log), drawn when the run has
	// at least two entity counts (PlotFrameScaling-G per GOMAXPROCS G when it ran at several);
	// Frame's per-variant bar chart is "Frame" like every scenario's.
	PlotFrameScaling = "Frame-scaling"
	// PlotFramePerEntity is Frame's time per frame divided by the entities, against entities:
	// the cost of one entity, where the strategies' differences show at every size.
	PlotFramePerEntity = "Frame-per-entity"
	// PlotReadersLatency is Readers' p50 and p99 read latency per strategy.
	PlotReadersLatency = "Readers-latency"
	// PlotDeterminism is the distinct final states per strategy (1 = reproducible).
	PlotDeterminism = "Determinism"
)

// Chart is one chart of a scenario, written as plots/NAME.svg and .png.
type Chart struct {
	// Name is the file name without extension; "" means the scenario's name.
	Name string
	// Title follows "Scenario: " in the chart's title.
	Title string
	// YLabel labels the y axis.
	YLabel string
	// Units are the metrics drawn: one, or several side by side as bars labelled by their
	// unit's first word (p50-read-ns and p99-read-ns: "p50", "p99").
	Units []string
	// Against, when set, draws one line per strategy against this numeric parameter (log x),
	// one chart per GOMAXPROCS when the scenario ran at several (NAME-G); otherwise bars, one
	// group per variant.
	Against string
	// PerAgainst divides every value by the Against parameter (time per entity).
	PerAgainst bool
	// PerProcs names the line charts NAME-G even for one GOMAXPROCS G.
	PerProcs bool
	// Linear keeps the y axis linear (otherwise logarithmic when the values span more than
	// 10×).
	Linear bool
	// CountOf, when set, draws a small count: integer ticks from 0 to the largest value of
	// this parameter (runs for distinct final states).
	CountOf string
	// Bound, when above 0, is the limit a requirement sets on the values drawn (Spike's
	// retained-x under 2): drawn as a dashed line across the chart, the axis reaching it.
	Bound float64
	// Only, when set, draws only the variants that have one of these key=value parameters
	// (Peer's immediate calls on one chart, its W1–W3 on another: on one chart their 14
	// groups of 8 series drew 2,200 px wide with markers too small to tell apart).
	Only []Param
}

// Draws reports whether c draws the variant named n: always without Only, else when n has
// one of Only's parameters.
func (c Chart) Draws(n results.Name) bool {
	if len(c.Only) == 0 {
		return true
	}
	for _, p := range c.Only {
		if n.Param(p.Key) == p.Value {
			return true
		}
	}
	return false
}
