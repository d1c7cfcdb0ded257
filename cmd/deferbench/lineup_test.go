package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestLineUp is the promise docs/library.md makes to a user benchmarking a strategy of their
// own: a go test -bench of conformance.BenchmarkStage, BenchmarkStageApply and
// BenchmarkContention lines up with a deferbench run of the same scenarios, row for row and
// unit for unit, through deferbench compare and through stock benchstat with the documented
// flags (TestLineUpDocumented checks that the document gives the flags used here).
//
// testdata/lineup is the user's package: it runs the conformance benchmarks for the baseline
// (nil), cmdbuffer, and "mine" (cmdbuffer under another name). The test runs deferbench run
// -quick (Stage, StageApply, Contention; baseline and cmdbuffer) at this GOMAXPROCS, and
// go test -bench of the package twice, selecting the same variants: once for the baseline and
// cmdbuffer, whose names are the run's (deferbench compare -ignore '*' RUN FILE must compare
// every benchmark and unit of both, and nothing else), once for mine (benchstat -table ""
// -col /strategy RUN/bench.txt FILE must give every row of the run a mine column in every
// unit, and no row of its own).
func TestLineUp(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	procs := strconv.Itoa(runtime.GOMAXPROCS(0))

	out := filepath.Join(dir, "run")
	var stderr bytes.Buffer
	// conformance.BenchmarkStageApply measures slots storage, the ecs.NewWorld default: the run
	// leaves out its storage=archetypes rows (-storages slots).
	if err := run([]string{"run", "-quick", "-count", "1", "-benchtime", "5ms", "-procs", procs, "-storages", "slots",
		"-scenarios", "Stage,StageApply,Contention", "-strategies", "baseline,cmdbuffer", "-out", out}, io.Discard, &stderr); err != nil {
		t.Fatalf("deferbench run: %v\n%s", err, stderr.String())
	}
	runRows := readRows(t, filepath.Join(out, "bench.txt"))

	// The run's -quick variants: every cmd and mix, producers 1, 2 and 4.
	const variants = `/^(cmd=.*|mix=.*|producers=[124])$`
	goTest := func(strategies, file string) string {
		t.Helper()
		path := filepath.Join(dir, file)
		cmd := exec.Command(gobin, "test", "-run", "^$", "-bench", "/^strategy=("+strategies+")$"+variants,
			"-benchtime", "5ms", "-count", "1", "-cpu", procs, "./testdata/lineup")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("go test -bench: %v\n%s%s", err, b, errb.String())
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	// deferbench compare: the same strategies through go test and through the run.
	same := goTest("baseline|cmdbuffer", "same.txt")
	if got := readRows(t, same); !slices.Equal(got, runRows) {
		t.Errorf("go test rows differ from the run's:\n%s", diffRows(runRows, got))
	}
	var cmpOut, cmpErr bytes.Buffer
	// One machine: the run's cpu and goarch lines are go test's, so no -ignore is needed. Under
	// qemu-user (a board's test binary) go test runs natively, another machine.
	cmpArgs := []string{"compare", "-format", "json", out, same}
	host, err := exec.Command(gobin, "env", "GOARCH").Output()
	emulated := err != nil || strings.TrimSpace(string(host)) != runtime.GOARCH
	if emulated {
		cmpArgs = append([]string{"compare", "-ignore", "*"}, cmpArgs[1:]...)
	}
	if err := run(cmpArgs, &cmpOut, &cmpErr); err != nil {
		t.Fatalf("deferbench compare: %v\n%s", err, cmpErr.String())
	}
	var c struct {
		Rows []struct{ Name, Unit string }
	}
	if err := json.Unmarshal(cmpOut.Bytes(), &c); err != nil {
		t.Fatalf("compare -format json: %v\n%s", err, cmpOut.String())
	}
	var compared []string
	for _, r := range c.Rows {
		compared = append(compared, r.Name+" "+r.Unit)
	}
	slices.Sort(compared)
	if want := origUnits(runRows); !slices.Equal(compared, want) {
		t.Errorf("deferbench compare -ignore '*' compared rows other than the run's:\n%s", diffRows(want, compared))
	}
	if !emulated && strings.Contains(cmpErr.String(), "across machines") {
		t.Errorf("deferbench compare took one machine's go test and run for two machines:\n%s", cmpErr.String())
	}
	if strings.Contains(cmpErr.String(), " only in ") {
		t.Errorf("deferbench compare: benchmarks in one file only:\n%s", cmpErr.String())
	}

	// Stock benchstat: a strategy of the user's, as a column beside the run's.
	mine := goTest("mine", "mine.txt")
	cmd := exec.Command(gobin, "run", "golang.org/x/perf/cmd/benchstat", "-format", "csv", "-table", "", "-col", "/strategy",
		filepath.Join(out, "bench.txt"), mine)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	csvOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, errb.String())
	}
	cells, err := benchstatCells(csvOut)
	if err != nil {
		t.Fatalf("benchstat -format csv: %v\n%s", err, csvOut)
	}
	var want []string // the run's cmdbuffer rows, as benchstat names them: without /strategy
	for _, r := range runRows {
		if name, unit, ok := strings.Cut(r, " "); ok && strings.Contains(name, "/strategy=cmdbuffer/") {
			want = append(want, strings.Replace(name, "/strategy=cmdbuffer", "", 1)+" "+unit)
		}
	}
	for _, col := range []string{"baseline", "cmdbuffer", "mine"} {
		got := cells[col]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("benchstat -table \"\" -col /strategy: column %s:\n%s", col, diffRows(want, got))
		}
	}
	if len(cells) != 3 {
		t.Errorf("benchstat columns %v, want baseline, cmdbuffer and mine", slices.Sorted(maps.Keys(cells)))
	}
}

// TestLineUpDocumented: docs/library.md gives the user the commands and flags TestLineUp runs:
// the same GOMAXPROCS for deferbench run -procs and go test -cpu, benchstat -table ” -col
// /strategy, and deferbench compare -ignore '*'.
func TestLineUpDocumented(t *testing.T) {
	const doc = "../../docs/library.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{
		"deferbench run -procs 2 -scenarios Stage,StageApply,Contention",
		"go test -run '^$' -bench . -cpu 2 -count 10 ./yourpkg > mine.txt",
		"benchstat -table '' -col /strategy results/<dir>/bench.txt mine.txt",
		"deferbench compare -ignore '*' results/<dir> mine.txt",
		"conformance.BenchmarkStage(b, Factory)",
		"conformance.BenchmarkStageApply(b, Factory)",
		"conformance.BenchmarkContention(b, Factory)",
	} {
		if !strings.Contains(string(b), c) {
			t.Errorf("%s lacks %q, the command TestLineUp checks", doc, c)
		}
	}
}

// readRows returns "name unit" for every value of every result in a benchmark file, sorted,
// with benchfmt's units (sec/op for ns/op), repetitions counted once.
func readRows(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var rows []string
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, v := range res.Values {
			if k := string(res.Name) + " " + v.Unit; !seen[k] {
				seen[k] = true
				rows = append(rows, k)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no benchmark results", path)
	}
	slices.Sort(rows)
	return rows
}

// origUnits turns readRows' sec/op into ns/op, the unit deferbench compare names.
func origUnits(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.TrimSuffix(r, " sec/op")
		if out[i] != r {
			out[i] += " ns/op"
		}
	}
	slices.Sort(out)
	return out
}

// benchstatCells reads benchstat's CSV: for each column label (a strategy), "row unit" for
// every row whose cell has a value, the geomean rows left out.
func benchstatCells(b []byte) (map[string][]string, error) {
	cells := map[string][]string{}
	for _, table := range regexp.MustCompile(`\n\s*\n`).Split(strings.TrimSpace(string(b)), -1) {
		cr := csv.NewReader(strings.NewReader(table))
		cr.FieldsPerRecord = -1
		recs, err := cr.ReadAll()
		if err != nil {
			return nil, err
		}
		if len(recs) < 3 {
			return nil, errors.New("a table of fewer than 3 lines")
		}
		labels, units := recs[0], recs[1]
		label := ""
		for i := 1; i < len(units) && i < len(labels); i++ {
			if labels[i] != "" {
				label = labels[i]
			}
			if units[i] == "" || units[i] == "CI" || units[i] == "vs base" || units[i] == "P" {
				continue
			}
			for _, rec := range recs[2:] {
				if len(rec) > i && rec[0] != "geomean" && rec[i] != "" {
					cells[label] = append(cells[label], rec[0]+" "+units[i])
				}
			}
		}
	}
	return cells, nil
}

// diffRows lists the rows only in want (-) and only in got (+).
func diffRows(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			b.WriteString("- " + w + "\n")
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			b.WriteString("+ " + g + "\n")
		}
	}
	return b.String()
}
