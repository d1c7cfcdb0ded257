package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportRefusesDirectoriesItDidNotWrite: report DIR on plain go test output, or beside a
// report.md, details.md or summary.json another tool wrote, exits 2 naming the file and changes nothing;
// it used to overwrite both and write a report with an empty strategy column.
func TestReportRefusesDirectoriesItDidNotWrite(t *testing.T) {
	goTest := "goos: linux\ngoarch: amd64\npkg: example.com/x\nBenchmarkFoo-2   \t 1000\t 1234 ns/op\nBenchmarkFoo-2   \t 1000\t 1240 ns/op\nPASS\n"
	ref, _ := filepath.Glob("../../results/*-*-*/bench.txt")
	if len(ref) == 0 {
		t.Skip("no reference run under results/")
	}
	ours, err := os.ReadFile(ref[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, bench, report, summary, details, want string
	}{
		{"go test output", goTest, "", "", "", "not written by deferbench run"},
		{"someone else's report.md", string(ours), "# My project\n\nnotes\n", "", "", "report.md was not written by deferbench"},
		{"someone else's summary.json", string(ours), "", `{"total": 3}`, "", "summary.json was not written by deferbench"},
		{"someone else's details.md", string(ours), "", "", "# Details of my project\n", "details.md was not written by deferbench"},
		{"a summary.json that is not JSON", string(ours), "", "{bad", "", "summary.json is not valid JSON"},
		// A line without a strategy, or with a name the report's tables and legends cannot show
		// as it is: refused, naming the line (a report read "cmdbuffer ≈  ≈ hybrid" before).
		{"a line without strategy=", strings.Replace(string(ours), "Stage/strategy=cmdbuffer/cmd=typed", "Stage/cmd=typed", 1), "", "", "", "has no strategy= key: correct or delete that line"},
		// Two machines' runs joined into one file: their samples would share one median.
		{"two machines joined", string(ours) + strings.Replace(string(ours), "cpu: ", "cpu: Other ", 1), "", "", "", "holds results of more than one machine"},
		// A run's file joined with itself: every sample would count twice (n=20 for 10
		// repetitions) and narrow the intervals.
		{"a file joined with itself", string(ours) + string(ours), "", "", "", "value for value (a file joined with itself?)"},
		{"a run's results pasted twice", pastedTwice(string(ours)), "", "", "", "value for value (a file joined with itself?)"},
		{"a strategy name with markdown", strings.Replace(string(ours), "strategy=versioned", "strategy=v|e*r", 1), "", "", "", `strategy "v|e*r" is not a plain name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"bench.txt": c.bench, "report.md": c.report, "summary.json": c.summary, "details.md": c.details}
			for f, body := range files {
				if body != "" {
					if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			_, stderr, code := cli("report", dir)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, c.want)
			}
			for f, body := range files {
				got, err := os.ReadFile(filepath.Join(dir, f))
				if body == "" && err == nil {
					t.Errorf("%s written", f)
				}
				if body != "" && string(got) != body {
					t.Errorf("%s changed", f)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "plots")); err == nil {
				t.Errorf("plots/ written")
			}
		})
	}
}

// TestReportRebuildsCutSummary: a summary.json of deferbench's cut short (a copy or a full
// disk) is rebuilt: report said it was "not written by deferbench" though its first line
// says it was.
func TestReportRebuildsCutSummary(t *testing.T) {
	out := tinyRun(t)
	sum := filepath.Join(out, "summary.json")
	b, _ := os.ReadFile(sum)
	os.WriteFile(sum, b[:len(b)/2], 0o644)
	if _, stderr, code := cli("report", out); code != 0 {
		t.Fatalf("report with a cut summary.json: exit %d, stderr %q", code, stderr)
	}
	if b2, _ := os.ReadFile(sum); string(b2) != string(b) {
		t.Errorf("summary.json not rebuilt whole")
	}
}

// pastedTwice is bench with its first 20 result lines after its header pasted again after
// them: the same machine, a block of repeated samples.
func pastedTwice(bench string) string {
	lines := strings.SplitAfter(bench, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Benchmark") {
			block := strings.Join(lines[i:i+20], "")
			return strings.Join(lines[:i+20], "") + block + strings.Join(lines[i+20:], "")
		}
	}
	return bench
}
