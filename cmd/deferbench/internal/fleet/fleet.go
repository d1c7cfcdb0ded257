// Package fleet draws the fleet table: one markdown table of several boards' headline figures
// (suite.Fleet), a column per results directory of deferbench run and a row per figure, with
// the machine each ran on.
package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
	"golang.org/x/perf/benchfmt"
)

// Board is what the fleet table shows of one results directory.
type Board struct {
	label   string            // the directory's base name
	config  map[string]string // bench.txt's file-level config
	env     results.Env       // env.json
	sums    map[[2]string]results.Summary
	names   []string     // benchmark names in bench.txt order
	procs   int          // the GOMAXPROCS the figures are taken at
	partial string       // why the run is incomplete, "" when complete
	counts  []counts.Row // the count rows, per ISA (counts.RowsFromResults)
}

// ReadBoard reads dir's bench.txt and env.json; errors are one line naming dir. check, if
// not nil, is given the results before they are used and may refuse them (with a
// usage.Error): the command's checks that a bench.txt is one run of one machine.
func ReadBoard(dir string, check func(cmd string, rs []*benchfmt.Result) error) (Board, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return Board{}, usage.Errorf("fleet: %s is not a results directory: give the folders deferbench run wrote", dir)
	}
	rs, err := results.ReadResults(filepath.Join(dir, "bench.txt"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Board{}, usage.Errorf("fleet: %s has no bench.txt: give the folders deferbench run wrote", dir)
	case errors.Is(err, results.ErrMalformed), errors.Is(err, results.ErrBadValue), errors.Is(err, results.ErrTooLarge):
		return Board{}, usage.Errorf("fleet: %v", err)
	case errors.Is(err, results.ErrNotResults):
		return Board{}, usage.Errorf("fleet: %s/bench.txt holds no Go benchmark results", dir)
	case errors.As(err, new(*fs.PathError)):
		return Board{}, usage.Errorf("fleet: %s: cannot read it: give the folders deferbench run wrote", err)
	case err != nil:
		return Board{}, fmt.Errorf("fleet: %w", err)
	}
	if check != nil {
		if err := check("fleet", rs); err != nil {
			return Board{}, err
		}
	}
	raw, err := results.ReadFileLimited(filepath.Join(dir, "env.json"), results.MaxJSONBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Board{}, usage.Errorf("fleet: %s has no env.json: give the folders deferbench run wrote", dir)
	} else if errors.Is(err, results.ErrNotRegular) || errors.Is(err, results.ErrTooLarge) {
		return Board{}, usage.Errorf("fleet: %v: give the folders deferbench run wrote", err)
	} else if err != nil {
		return Board{}, fmt.Errorf("fleet: %w", err)
	}
	b := Board{label: filepath.Base(filepath.Clean(dir)), config: map[string]string{}, sums: map[[2]string]results.Summary{}}
	if err := json.Unmarshal(raw, &b.env); err != nil {
		return Board{}, usage.Errorf("fleet: %s/env.json is not deferbench's env.json (%v)", dir, err)
	}
	if b.env.Before.Cores <= 0 {
		// null, {} or another tool's JSON decode without error into a board of 0 cores.
		return Board{}, usage.Errorf("fleet: %s/env.json is not deferbench's env.json (no cores in before): give the folders deferbench run wrote", dir)
	}
	for _, c := range results.FileConfig(rs) { // the run's machine, not a modelled Pi's
		b.config[c.Key] = c.Value
	}
	b.counts = counts.RowsFromResults(rs)
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
func (b Board) name(base string) string {
	if b.procs <= 1 {
		return base
	}
	return base + "-" + strconv.Itoa(b.procs)
}

// cell is the median ± CI of benchmark base (at b's GOMAXPROCS) in unit, or "—".
func (b Board) cell(base, unit string) string {
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
func (b Board) emulated() string {
	if v := b.config["emulated"]; v != "" {
		return v
	}
	if strings.HasSuffix(b.label, "-emulated") || strings.Contains(b.label, "-emulated-") {
		return "yes"
	}
	return "not recorded"
}

// strategies lists the strategies of the boards' results of the fleet's scenarios
// (suite.Fleet), in the order they first appear.
func strategies(boards []Board) []string {
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

// Write writes the markdown table: a column per board, a row per figure.
func Write(w io.Writer, boards []Board) {
	row := func(head string, cells ...string) {
		fmt.Fprintf(w, "| %s |", head)
		for _, c := range cells {
			fmt.Fprintf(w, " %s |", strings.ReplaceAll(c, "|", `\|`))
		}
		fmt.Fprintln(w)
	}
	each := func(f func(b Board) string) []string {
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
	fmt.Fprintf(w, Marker+"\n\n")
	row("", each(func(b Board) string { return b.label })...)
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---:|", len(boards)))
	row("host", each(func(b Board) string { return orUnknown(b.env.Before.Hostname) })...)
	row("model", each(func(b Board) string { return orUnknown(b.config["host-model"]) })...)
	row("goarch", each(func(b Board) string { return orUnknown(b.config["goarch"]) })...)
	row("cores (GOMAXPROCS of the figures)", each(func(b Board) string {
		return fmt.Sprintf("%d (%d)", b.env.Before.Cores, max(b.procs, 1))
	})...)
	row("emulated", each(Board.emulated)...)
	row("complete", each(func(b Board) string {
		if b.partial != "" {
			return "no (" + strings.TrimPrefix(results.PartialText(b.partial), "partial: ") + ")"
		}
		return "yes"
	})...)
	row("throttled", each(func(b Board) string { return orUnknown(b.config["throttled"]) })...)
	row("under-voltage", each(func(b Board) string { return orUnknown(b.config["under-voltage"]) })...)
	row("temperature before → after", each(func(b Board) string {
		after := "unknown"
		if b.env.After != nil {
			after = orUnknown(b.env.After.Temperature)
		}
		return orUnknown(b.env.Before.Temperature) + " → " + after
	})...)
	sts := strategies(boards)
	for _, f := range suite.Fleet {
		row("**"+f.Title+"**", make([]string, len(boards))...)
		for _, s := range sts {
			row(s, each(func(b Board) string { return b.cell(figureName(f, s, b.env.Before.Cores), f.Headline.Unit) })...)
		}
	}
	fmt.Fprintf(w, "\nMedians over each run's repetitions, ± the 95%% confidence interval as %% of the median "+
		"(none below 6 repetitions); — where the run has no such benchmark. Each run's report.md has every figure. "+
		"An emulated run measures the emulator, not a board.\n")
	writeInstructions(w, boards)
}

// instrColumn is one column of the instructions table: a run's instr/op on one ISA (a Pi
// model's, or the host's under cachegrind), or its hardware instructions counter.
type instrColumn struct {
	label string
	isa   string // the row's ISA: "" for the host's count or the counter
	unit  string
	b     Board
	model string // for a counter column: the ISA of the Pi model of the same board, if any
}

// writeInstructions writes, when any run has instruction counts, a table of instructions per
// op of the counted rows of the fleet's scenarios: a column per run and ISA (the Pi models
// counted under qemu-user, the host's under cachegrind) and per run with the PMU's counter
// (hw-instr/op, read on a board), so that a Pi model's count sits beside a board's counter
// for the same row; a counter's cell says its ratio to the model of the same board (Pi 4:
// arm64 without LSE; Pi 5: with LSE; arm: Pi 32-bit) where a run has one.
func writeInstructions(w io.Writer, boards []Board) {
	var cols []instrColumn
	models := map[string]bool{}
	for _, b := range boards {
		seen := map[[2]string]bool{}
		for _, r := range b.counts {
			for _, m := range r.Measures {
				if m.Unit != counts.InstrUnit && m.Unit != counts.HWInstrUnit || seen[[2]string{r.ISA, m.Unit}] {
					continue
				}
				seen[[2]string{r.ISA, m.Unit}] = true
				c := instrColumn{isa: r.ISA, unit: m.Unit, b: b}
				switch {
				case m.Unit == counts.HWInstrUnit:
					c.label = b.label + ": hw-instr/op"
					c.model = modelOf(b.config)
				case r.ISA != "":
					i, _ := counts.LookupISA(r.ISA)
					c.label = b.label + ": " + orName(i.Label, r.ISA) + " model"
					models[r.ISA] = true
				default:
					c.label = b.label + ": instr/op (cachegrind)"
				}
				cols = append(cols, c)
			}
		}
	}
	if len(cols) == 0 {
		return
	}
	scen := map[string]bool{"Stage": true}
	for _, f := range suite.Fleet {
		scen[f.Scenario.Name] = true
	}
	var names []string
	have := map[string]bool{}
	get := map[string]map[string]float64{} // column index/name → median
	key := func(i int) string { return strconv.Itoa(i) }
	for i, c := range cols {
		get[key(i)] = map[string]float64{}
		for _, r := range c.b.counts {
			if r.ISA != c.isa || !scen[results.ParseName(r.Name).Scenario] {
				continue
			}
			if m, ok := r.Get(c.unit); ok {
				get[key(i)][r.Name] = m.Median
				if !have[r.Name] {
					have[r.Name] = true
					names = append(names, r.Name)
				}
			}
		}
	}
	// A model's count by ISA and name, for the counters' ratios.
	model := map[string]map[string]float64{}
	for i, c := range cols {
		if c.unit == counts.InstrUnit && c.isa != "" && model[c.isa] == nil {
			model[c.isa] = get[key(i)]
		}
	}
	fmt.Fprintf(w, "\n## Instructions per op\n\n")
	fmt.Fprintf(w, "| row |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", c.label)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(cols)))
	for _, n := range names {
		fmt.Fprintf(w, "| %s |", n)
		for i, c := range cols {
			v, ok := get[key(i)][n]
			switch {
			case !ok:
				fmt.Fprintf(w, " — |")
			case c.model != "" && model[c.model][n] > 0:
				fmt.Fprintf(w, " %s (model %.3f×) |", results.Sig3(v, false), model[c.model][n]/v)
			default:
				fmt.Fprintf(w, " %s |", results.Sig3(v, false))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nA Pi model's column is counted under qemu-user (deferbench run -measure instructions -isa pi4,pi5,pi4-32): "+
		"the instructions the board executes for the same binary, not its time. hw-instr/op is the board's own PMU counter "+
		"(user space, the benchmark's threads, read beside a timed run); where a run has a model of the same board "+
		"(goarch and lse-atomics), its cell gives model ÷ counter: near 1 says the model counts what the board runs. "+
		"The counter also counts what the model leaves out (the runtime's clock-paced functions), so expect it a little higher.\n")
}

// modelOf returns the Pi model ISA of a board's configuration (counts.BoardModel).
func modelOf(cfg map[string]string) string {
	return counts.BoardModel(cfg["goarch"], cfg["lse-atomics"])
}

func orName(label, name string) string {
	if label == "" {
		return name
	}
	return label
}

// Marker is the first line of the fleet table: fleet -out replaces only a file that starts
// with it (results.CheckOutFile).
const Marker = "# deferbench fleet"

// WriteFile writes the table of boards to path atomically. A path whose folder does not exist,
// that is a directory, or that cannot be written (a read-only folder) is a usage.Error.
func WriteFile(path string, boards []Board) error {
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return usage.Errorf("fleet: -out %s: folder %s does not exist", path, filepath.Dir(path))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usage.Errorf("fleet: -out %s is a directory: give a file name, e.g. %s", path, filepath.Join(path, "fleet.md"))
	}
	if err := results.CheckOutFile(path, Marker); err != nil {
		return usage.Errorf("fleet: -out %v", err)
	}
	var buf bytes.Buffer
	Write(&buf, boards)
	if err := results.WriteFileAtomic(path, buf.Bytes()); err != nil {
		return usage.Errorf("fleet: -out %s: %v: give a writable path", path, err) // as compare -full
	}
	return nil
}

// ReadBoards reads the results directories dirs, in order (ReadBoard, with check). One
// directory given twice (by two names, or through a link) is a usage.Error: its board would
// stand in the table twice as two machines.
func ReadBoards(dirs []string, check func(cmd string, rs []*benchfmt.Result) error) ([]Board, error) {
	boards := make([]Board, 0, len(dirs))
	for i, dir := range dirs {
		if fi, err := os.Stat(dir); err == nil {
			for _, prev := range dirs[:i] {
				if pi, err := os.Stat(prev); err == nil && os.SameFile(fi, pi) {
					return nil, usage.Errorf("fleet: %s and %s are the same results directory: give each board's results once", prev, dir)
				}
			}
		}
		b, err := ReadBoard(dir, check)
		if err != nil {
			return nil, err
		}
		boards = append(boards, b)
	}
	return boards, nil
}
