package analysis

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/deferral"
	"golang.org/x/perf/benchfmt"
)

// Capabilities returns what each strategy of rs declared about itself (deferral.Capabilities),
// read from the file-level configuration lines a run writes (results.Capabilities). A file
// written before runs wrote those lines (deferbench v0.1.0-dev before the lines were added)
// gets BeforeCapabilityLines instead, so that a report rebuilt from it reads what its
// strategies declared then. Analysis never builds a strategy to ask it.
func Capabilities(rs []*benchfmt.Result) map[string]deferral.Capabilities {
	if c := results.Capabilities(rs); c != nil {
		return c
	}
	return BeforeCapabilityLines
}

// BeforeCapabilityLines is the fallback for bench.txt files written before runs declared
// capabilities in them: the capabilities the built-in strategies declared up to then, as
// data. It is not updated when a strategy changes; new runs carry their own lines.
var BeforeCapabilityLines = map[string]deferral.Capabilities{
	"cmdbuffer": {ReproducibleOrder: true, SortKeys: true,
		Order: "sort key, then recorder creation order, then FIFO within a recorder",
		Reads: readsDirect},
	"lazyguarded": {
		Order:              lazyOrder,
		ReadsWaitForStaged: true,
		Reads:              "reads queue on the target's pipe behind parked writes (readers-wait)"},
	"lazyguarded-pass": {
		Order: lazyOrder,
		Reads: "reads pass parked writes and see the state before them (readers-pass, stale reads)"},
	"handrolled": {
		Order: "hand-over order: recorders in the order producers handed their slices over (Handover, else first stage since the last commit), which goroutine timing decides; FIFO within a recorder",
		Reads: readsDirect},
	"hybrid": {ReproducibleOrder: true, SortKeys: true,
		Order: "sort key, then recorder number (graph nodes' recorders are minted at Compile in node order), then FIFO within a recorder",
		Reads: readsDirect},
	"versioned": {ReproducibleOrder: true, SortKeys: true, ReadsPreviousVersion: true,
		Order: "sort key, then recorder creation order, then FIFO within a recorder",
		Reads: "declares ReadsPreviousVersion: reads see the last published version and never wait for staging or a commit"},
}

const (
	readsDirect = "reads touch the world directly: staging never blocks them; they wait only for a commit at a sync point"
	lazyOrder   = "pipe order: the order stages acquired the target's pipe mutex (goroutine timing, not reproducible); FIFO within a recorder"
)
