// Package analysis turns results into findings, as data: per benchmark and unit the median
// and its 95% confidence interval (Summarize, golang.org/x/perf/benchmath), paired and
// unpaired ratios between strategies (Ratio), the strategies ranked per headline metric
// with groups that noise cannot separate (Run.Rankings), and the comparison of two runs with
// its gate (CompareRuns, ParseThresholds). Its input is results only: what it needs to know
// about a strategy is what bench.txt declares (Capabilities), never a live strategy.
package analysis
