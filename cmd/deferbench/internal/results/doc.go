// Package results owns a results directory and the files in it: holding the directory with
// its lock file (RunDir), bench.txt in the Go benchmark format (BenchFile to write it as
// results arrive, ReadResults and ReadInput to read it back within MaxResults and
// MaxResultsBytes), env.json and summary.json (Env, SummaryFile), the partial marker of a run
// that stopped early, the strategies' declared capabilities carried as configuration lines
// (CapabilityConfig, Capabilities), the one parser of benchmark names (ParseName) and the
// unit rules every reader shares (Tolerance, HigherIsBetter, FormatValue). Every command
// reads results through it. It builds on golang.org/x/perf/benchfmt, as benchfmt's own
// reader, writer and files do.
package results
