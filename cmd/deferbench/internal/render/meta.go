package render

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
)

// ReportMeta is what report.md says about the run besides the results.
type ReportMeta struct {
	Config      []results.Config      // bench.txt's file-level configuration
	Throttled   string                // "yes", "no" or "unknown": did the firmware throttle during the run
	Partial     string                // why the run is incomplete (the results.PartialKey config value), "" when complete
	Attribution []results.Attribution // per strategy, with -profile
	Plots       []string              // plot files, relative to the report's directory
	// Cores is the run's NumCPU (env.json); 0 when unknown.
	Cores int
	// LoadBefore is the load average before the run ("1.2 0.8 0.5"); "" when unknown. It
	// decides the Loaded flag only when OtherWork is nil. The load average after a run is
	// not used: it counts the run's own threads (up to 2×NumCPU busy goroutines), so it is
	// above NumCPU on an idle machine.
	LoadBefore string
	// OtherWork is the measured share of the machine's CPU time that other work took
	// during the run; nil when not measured (no /proc/stat, or an env.json written by an
	// older deferbench).
	OtherWork *OtherWork
	// NoOtherWork says why OtherWork is nil (envinfo.WhyNoShare: a run too short to measure,
	// one killed before its closing capture, no /proc/stat; or no env.json at all); "" when
	// unknown. With LoadBefore "" too, report.md flags the load as unknown (Load unknown) and
	// no timed verdict reads firm.
	NoOtherWork string
	// Counts is env.json's record of the count tier (the cases left out and why, whether
	// cachegrind simulated the caches, the hardware counters); nil when unknown.
	Counts *results.CountsEnv
	// MethodDoc is docs/method.md of the deferbench checkout the report's directory lies in,
	// relative to that directory (../../docs/method.md for results/NAME); "" when it lies in
	// none, and the report names the file without a link.
	MethodDoc string
}

// OtherWork is how much of the machine's CPU time work other than the run took while it
// ran, measured from the machine's busy time less the run's own CPU time (Linux
// /proc/stat and /proc/self/stat). Shares are fractions (0 to 1) of all CPUs' time.
type OtherWork struct {
	CPUs    int     // the machine's CPUs
	Seconds float64 // the run's wall time in seconds; 0 when unknown
	Other   float64 // other processes, kernel threads and interrupts
	Steal   float64 // time the hypervisor gave the CPUs to other guests (steal)
}

// LoadedAbove is the share of the machine's CPU time (other work plus steal) above which
// report.md flags a run as Loaded: 0.10, a tenth of all CPUs' time.
const LoadedAbove = analysis.LoadedAbove
