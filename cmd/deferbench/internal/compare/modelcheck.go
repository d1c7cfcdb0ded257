package compare

import (
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// modelCheck is a Pi model's count (instr/op counted under qemu-user, package counts' ISAs)
// lined up with a board's own PMU counter (hw-instr/op, read beside a timed run on the board)
// for the rows both have: how a user checks the model against their board.
type modelCheck struct {
	isa          counts.ISA
	model, board string // the sides' paths, as given
	rows         []modelRow
}

// modelRow is one benchmark of a modelCheck: the model's median instructions per op and the
// board counter's.
type modelRow struct {
	name           string
	model, counter float64
}

// ratio is model ÷ counter.
func (r modelRow) ratio() float64 { return r.model / r.counter }

// lineUpModel returns the model check of two inputs when one side holds an emulated ISA's
// instr/op rows and the other a board's hw-instr/op rows of the board that ISA models (the
// board's goarch and lse-atomics config: counts.BoardModel), over every row both have (the
// model's rows are counted at GOMAXPROCS 1, so a board's row at another GOMAXPROCS, which
// carries a -N suffix, is not one of them); nil when the inputs are not such a pair or have
// no row in common.
func lineUpModel(oldPath string, old []*benchfmt.Result, newPath string, new []*benchfmt.Result) *modelCheck {
	if mc := lineUpModelOrdered(oldPath, old, newPath, new); mc != nil {
		return mc
	}
	return lineUpModelOrdered(newPath, new, oldPath, old)
}

func lineUpModelOrdered(modelPath string, model []*benchfmt.Result, boardPath string, board []*benchfmt.Result) *modelCheck {
	counter := map[string]map[string]float64{} // modelled ISA → row → counter median
	for _, r := range counts.RowsFromResults(board) {
		if m, ok := r.Get(counts.HWInstrUnit); ok && r.ISA == "" && m.Median > 0 {
			isa := boardModelOf(board, r.Name)
			if isa == "" {
				continue
			}
			if counter[isa] == nil {
				counter[isa] = map[string]float64{}
			}
			counter[isa][r.Name] = m.Median
		}
	}
	var found *modelCheck
	for _, r := range counts.RowsFromResults(model) {
		m, ok := r.Get(counts.InstrUnit)
		if !ok || r.ISA == "" {
			continue
		}
		c, ok := counter[r.ISA][r.Name]
		if !ok {
			continue
		}
		if found == nil {
			isa, _ := counts.LookupISA(r.ISA)
			found = &modelCheck{isa: isa, model: modelPath, board: boardPath}
		} else if found.isa.Name != r.ISA {
			continue // one model per check: the first ISA that has a row in common
		}
		found.rows = append(found.rows, modelRow{name: r.Name, model: m.Median, counter: c})
	}
	return found
}

// boardModelOf returns the modelled ISA (counts.BoardModel) of the first result named name
// in rs that carries the hw-instr/op unit, from its goarch and lse-atomics config lines.
func boardModelOf(rs []*benchfmt.Result, name string) string {
	for _, r := range rs {
		if string(r.Name) != name {
			continue
		}
		if _, ok := r.Value(counts.HWInstrUnit); !ok {
			continue
		}
		return counts.BoardModel(r.GetConfig("goarch"), r.GetConfig("lse-atomics"))
	}
	return ""
}

// write prints the check: one line naming the model and the board, a table of the rows
// (text aligned, or markdown), and the median ratio with how to read it.
func (mc *modelCheck) write(w io.Writer, format string) {
	ratios := make([]float64, len(mc.rows))
	for i, r := range mc.rows {
		ratios[i] = r.ratio()
	}
	slices.Sort(ratios)
	med := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		med = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
	}
	label := mc.isa.Label + " model"
	fmt.Fprintf(w, "%s (%s, counted under qemu-user: %s) beside the board's PMU counter (%s), %s:\n\n",
		label, mc.model, mc.isa.Model, mc.board, results.Plural(len(mc.rows), "row"))
	if format == "markdown" {
		fmt.Fprintf(w, "| row | %s instr/op | board hw-instr/op | model ÷ counter |\n|---|---:|---:|---:|\n", label)
		for _, r := range mc.rows {
			fmt.Fprintf(w, "| %s | %s | %s | %.3f× |\n", r.name, results.Sig3(r.model, false), results.Sig3(r.counter, false), r.ratio())
		}
	} else {
		wide := len("row")
		for _, r := range mc.rows {
			wide = max(wide, len(r.name))
		}
		head := [3]string{label + " instr/op", "board hw-instr/op", "model ÷ counter"}
		fmt.Fprintf(w, "%-*s  %s  %s  %s\n", wide, "row", head[0], head[1], head[2])
		for _, r := range mc.rows {
			fmt.Fprintf(w, "%-*s  %*s  %*s  %*s\n", wide, r.name, len(head[0]), results.Sig3(r.model, false),
				len(head[1]), results.Sig3(r.counter, false), utf8.RuneCountInString(head[2]), fmt.Sprintf("%.3f×", r.ratio()))
		}
	}
	fmt.Fprintf(w, "\nMedian model ÷ counter: %.3f× (from %.3f× to %.3f×). "+
		"The counter counts the benchmark's threads in user space, including what the model leaves out (the Go runtime's clock-paced functions), "+
		"so a ratio a little under 1 is expected; one far from 1 says the model does not count what this board runs "+
		"(another CPU model: check the board's lse-atomics line). The model says nothing of the board's time, caches or memory order.\n",
		med, ratios[0], ratios[len(ratios)-1])
}
