package rundir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/conformance/bench"
)

// TestSuiteReportsAStalledBenchmark: a run of three benchmarks whose middle one blocks
// forever finishes with the two others' results, says "stalled" naming it on the terminal, in
// bench.txt's partial marker and in report.md, and returns an error wrapping ErrStalled.
func TestSuiteReportsAStalledBenchmark(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	quick := func(b bench.B) error {
		for range b.N() {
		}
		return nil
	}
	cases := []harness.Case{
		{Name: "Stage/strategy=cmdbuffer/n=1", Scenario: "Stage", Strategy: "cmdbuffer", Procs: 1, Run: quick},
		{Name: "Stage/strategy=versioned/n=1", Scenario: "Stage", Strategy: "versioned", Procs: 1, Run: func(b bench.B) error {
			<-release
			return nil
		}},
		{Name: "Stage/strategy=handrolled/n=1", Scenario: "Stage", Strategy: "handrolled", Procs: 1, Run: quick},
	}
	out := filepath.Join(t.TempDir(), "run")
	rd, err := results.OpenRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	opt := harness.Options{Cases: cases, Count: 1, Benchtime: harness.Benchtime{N: 10}, StallAfter: 300 * time.Millisecond}
	err = Suite(context.Background(), Config{Options: opt, Dir: rd, Started: time.Now(), Stdout: &strings.Builder{}, Stderr: &stderr})
	if !errors.Is(err, harness.ErrStalled) {
		t.Fatalf("Suite: %v; want an error wrapping ErrStalled", err)
	}
	if !strings.Contains(stderr.String(), "Stage/strategy=versioned/n=1 stalled: no progress for") {
		t.Errorf("the terminal does not name the stalled benchmark:\n%s", stderr.String())
	}
	bt, err := os.ReadFile(filepath.Join(out, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BenchmarkStage/strategy=cmdbuffer/n=1 ", "BenchmarkStage/strategy=handrolled/n=1 ",
		"partial: 2 of 3 results finished", "stalled: Stage/strategy=versioned/n=1 made no progress for"} {
		if !strings.Contains(string(bt), want) {
			t.Errorf("bench.txt lacks %q:\n%s", want, bt)
		}
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "stalled: Stage/strategy=versioned/n=1") {
		t.Errorf("report.md does not name the stalled benchmark")
	}
}
