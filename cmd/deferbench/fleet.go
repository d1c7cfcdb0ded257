package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
)

// fleetDetail is the part of deferbench help fleet between the summary and the flags.
const fleetDetail = `Each DIR is a results directory of deferbench run (bench.txt and env.json), one
per board, e.g. the folders scripts/pi/run.sh fetched into results/. The table has
one column per DIR and a row per figure: the machine (host, model, goarch, cores,
whether the run was emulated, complete, throttled or under-voltage, temperature
before and after), then per strategy the median of
  Stage cmd=typed          ns/op to stage one typed command
  Frame entities=100000    time per frame at 100,000 entities
  Contention efficiency    at producers = cores
at GOMAXPROCS = cores where the run has it (else the run's largest), ± the 95%
confidence interval as % of the median; "—" where the run has no such benchmark
(-quick runs Frame only at its smallest size).`

var fleetCommand = &command{
	name:       "fleet",
	flagsAfter: true,
	args:       "[-out FILE] DIR...",
	summary:    "one markdown table of several boards' headline figures, a column per results directory",
	detail:     fleetDetail,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		out := fs.String("out", "", "write the table to `FILE` (atomically) instead of standard output")
		return func(args []string) error {
			args, err := parseInterspersed(e.cmd, fs, args)
			if err != nil {
				return err
			}
			if args == nil { // -h after a directory
				writeCommandHelp(e.stdout, e.cmd)
				return nil
			}
			if len(args) == 0 {
				return usagef("fleet: want one or more results directories")
			}
			if fs.Lookup("out").Value.String() == "" && isSet(fs, "out") {
				return usagef("fleet: -out is empty: give a file name, or omit -out for standard output")
			}
			boards := make([]fleetBoard, 0, len(args))
			for _, dir := range args {
				b, err := readFleetBoard(dir)
				if err != nil {
					return err
				}
				boards = append(boards, b)
			}
			var buf bytes.Buffer
			writeFleet(&buf, boards)
			if *out == "" {
				_, err := e.stdout.Write(buf.Bytes())
				return err
			}
			if fi, err := os.Stat(filepath.Dir(*out)); err != nil || !fi.IsDir() {
				return usagef("fleet: -out %s: folder %s does not exist", *out, filepath.Dir(*out))
			}
			if fi, err := os.Stat(*out); err == nil && fi.IsDir() {
				return usagef("fleet: -out %s is a directory: give a file name, e.g. %s", *out, filepath.Join(*out, "fleet.md"))
			}
			if err := results.WriteFileAtomic(*out, buf.Bytes()); err != nil {
				return fmt.Errorf("fleet: %w", err)
			}
			fmt.Fprintf(e.stderr, "deferbench: fleet table of %s in %s\n", plural(len(boards), "run"), *out)
			return nil
		}
	},
}

// isSet reports whether flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// fleetBoard is what the fleet table shows of one results directory.
type fleetBoard struct {
	label   string            // the directory's base name
	config  map[string]string // bench.txt's file-level config
	env     results.Env       // env.json
	sums    map[[2]string]results.Summary
	names   []string // benchmark names in bench.txt order
	procs   int      // the GOMAXPROCS the figures are taken at
	partial string   // why the run is incomplete, "" when complete
}

// readFleetBoard reads dir's bench.txt and env.json; errors are one line naming dir.
func readFleetBoard(dir string) (fleetBoard, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fleetBoard{}, usagef("fleet: %s is not a results directory: give the folders deferbench run wrote", dir)
	}
	rs, err := results.ReadResults(filepath.Join(dir, "bench.txt"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fleetBoard{}, usagef("fleet: %s has no bench.txt: give the folders deferbench run wrote", dir)
	case errors.Is(err, results.ErrMalformed), errors.Is(err, results.ErrBadValue), errors.Is(err, results.ErrTooLarge):
		return fleetBoard{}, usagef("fleet: %v", err)
	case errors.Is(err, results.ErrNotResults):
		return fleetBoard{}, usagef("fleet: %s/bench.txt holds no Go benchmark results", dir)
	case errors.As(err, new(*fs.PathError)):
		return fleetBoard{}, usagef("fleet: %s: cannot read it: give the folders deferbench run wrote", err)
	case err != nil:
		return fleetBoard{}, fmt.Errorf("fleet: %w", err)
	}
	raw, err := results.ReadFileLimited(filepath.Join(dir, "env.json"), results.MaxJSONBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return fleetBoard{}, usagef("fleet: %s has no env.json: give the folders deferbench run wrote", dir)
	} else if errors.Is(err, results.ErrNotRegular) || errors.Is(err, results.ErrTooLarge) {
		return fleetBoard{}, usagef("fleet: %v: give the folders deferbench run wrote", err)
	} else if err != nil {
		return fleetBoard{}, fmt.Errorf("fleet: %w", err)
	}
	b := fleetBoard{label: filepath.Base(filepath.Clean(dir)), config: map[string]string{}, sums: map[[2]string]results.Summary{}}
	if err := json.Unmarshal(raw, &b.env); err != nil {
		return fleetBoard{}, usagef("fleet: %s/env.json is not deferbench's env.json (%v)", dir, err)
	}
	for _, r := range rs {
		for _, c := range r.Config {
			if c.File {
				b.config[c.Key] = string(c.Value)
			}
		}
	}
	b.partial = results.Partial(rs)
	if b.partial == "" {
		b.partial = b.env.Partial
	}
	procs := map[int]bool{}
	for _, s := range analysis.Summarize(rs) {
		if _, ok := b.sums[[2]string{s.Name, s.Unit}]; !ok {
			b.names = append(b.names, s.Name)
		}
		b.sums[[2]string{s.Name, s.Unit}] = s
		procs[procsOf(s.Name)] = true
	}
	b.procs = pickProcs(procs, b.env.Before.Cores)
	return b, nil
}

// procsOf is the GOMAXPROCS of a benchmark name: its -N suffix, 1 without one.
func procsOf(name string) int { return results.ParseName(name).Procs }

// pickProcs chooses the GOMAXPROCS the headline figures come from: cores when the run has
// it, else the largest it has.
func pickProcs(have map[int]bool, cores int) int {
	if have[cores] {
		return cores
	}
	best := 0
	for p := range have {
		best = max(best, p)
	}
	return best
}

// name appends the -GOMAXPROCS suffix for b's chosen GOMAXPROCS to base.
func (b fleetBoard) name(base string) string {
	if b.procs <= 1 {
		return base
	}
	return base + "-" + strconv.Itoa(b.procs)
}

// cell is the median ± CI of benchmark base (at b's GOMAXPROCS) in unit, or "—".
func (b fleetBoard) cell(base, unit string) string {
	s, ok := b.sums[[2]string{b.name(base), unit}]
	if !ok {
		return "—"
	}
	v := results.FormatValue(s.Median, s.Unit)
	if s.NoCI || s.Median == 0 {
		return v
	}
	pct := 100 * math.Max(s.Median-s.Lo, s.Hi-s.Median) / math.Abs(s.Median)
	switch {
	case pct > 100:
		return v + " ±>100%"
	case pct < 1:
		return fmt.Sprintf("%s ±%.1f%%", v, pct)
	}
	return fmt.Sprintf("%s ±%.0f%%", v, pct)
}

// emulated says whether b's run was emulated: bench.txt's emulated line, or the -emulated
// suffix scripts/pi/run.sh gives a run it made under qemu-user.
func (b fleetBoard) emulated() string {
	if v := b.config["emulated"]; v != "" {
		return v
	}
	if strings.HasSuffix(b.label, "-emulated") || strings.Contains(b.label, "-emulated-") {
		return "yes"
	}
	return "not recorded"
}

// fleetStrategies lists the strategies of the boards' results of the fleet's scenarios
// (suite.Fleet), in the order they first appear.
func fleetStrategies(boards []fleetBoard) []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range boards {
		for _, s := range b.names {
			st := strategyOf(s)
			if st != "" && !seen[st] {
				seen[st] = true
				out = append(out, st)
			}
		}
	}
	return out
}

// strategyOf is the strategy of a result of one of the fleet's scenarios, "" for others.
func strategyOf(name string) string {
	n := results.ParseName(name)
	for _, f := range suite.Fleet {
		if f.Scenario.Name == n.Scenario {
			return n.Strategy
		}
	}
	return ""
}

// figureName is the benchmark name (without -GOMAXPROCS) of figure f for strategy s on a
// board with cores cores: the headline's Where parameters (NumCPU = cores), then f's Row.
func figureName(f suite.Figure, s string, cores int) string {
	name := f.Scenario.Name + "/strategy=" + s
	for _, p := range append(append([]suite.Param(nil), f.Headline.Where...), f.Row...) {
		v := p.Value
		if v == "NumCPU" {
			v = strconv.Itoa(cores)
		}
		name += "/" + p.Key + "=" + v
	}
	return name
}

// writeFleet writes the markdown table: a column per board, a row per figure.
func writeFleet(w io.Writer, boards []fleetBoard) {
	row := func(head string, cells ...string) {
		fmt.Fprintf(w, "| %s |", head)
		for _, c := range cells {
			fmt.Fprintf(w, " %s |", strings.ReplaceAll(c, "|", `\|`))
		}
		fmt.Fprintln(w)
	}
	each := func(f func(b fleetBoard) string) []string {
		cells := make([]string, len(boards))
		for i, b := range boards {
			cells[i] = f(b)
		}
		return cells
	}
	orUnknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	fmt.Fprintf(w, "# deferbench fleet\n\n")
	row("", each(func(b fleetBoard) string { return b.label })...)
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---:|", len(boards)))
	row("host", each(func(b fleetBoard) string { return orUnknown(b.env.Before.Hostname) })...)
	row("model", each(func(b fleetBoard) string { return orUnknown(b.config["host-model"]) })...)
	row("goarch", each(func(b fleetBoard) string { return orUnknown(b.config["goarch"]) })...)
	row("cores (GOMAXPROCS of the figures)", each(func(b fleetBoard) string {
		return fmt.Sprintf("%d (%d)", b.env.Before.Cores, max(b.procs, 1))
	})...)
	row("emulated", each(fleetBoard.emulated)...)
	row("complete", each(func(b fleetBoard) string {
		if b.partial != "" {
			return "no (" + strings.TrimPrefix(results.PartialText(b.partial), "partial: ") + ")"
		}
		return "yes"
	})...)
	row("throttled", each(func(b fleetBoard) string { return orUnknown(b.config["throttled"]) })...)
	row("under-voltage", each(func(b fleetBoard) string { return orUnknown(b.config["under-voltage"]) })...)
	row("temperature before → after", each(func(b fleetBoard) string {
		after := "unknown"
		if b.env.After != nil {
			after = orUnknown(b.env.After.Temperature)
		}
		return orUnknown(b.env.Before.Temperature) + " → " + after
	})...)
	strategies := fleetStrategies(boards)
	for _, f := range suite.Fleet {
		row("**"+f.Title+"**", make([]string, len(boards))...)
		for _, s := range strategies {
			row(s, each(func(b fleetBoard) string { return b.cell(figureName(f, s, b.env.Before.Cores), f.Headline.Unit) })...)
		}
	}
	fmt.Fprintf(w, "\nMedians over each run's repetitions, ± the 95%% confidence interval as %% of the median "+
		"(none below 6 repetitions); — where the run has no such benchmark. Each run's report.md has every figure. "+
		"An emulated run measures the emulator, not a board.\n")
}
