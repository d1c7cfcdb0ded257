package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliWithin runs cli(args) and fails t when it has not returned within a minute: an input
// that blocks a reader must fail the test, not hang it. The bound is loose on purpose: under
// -race on a loaded 2-core machine, reading the 64 MiB that the oversized-pipe case feeds
// took just over 10 s.
func cliWithin(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	type result struct {
		o, e string
		c    int
	}
	done := make(chan result, 1)
	go func() { o, e, c := cli(args...); done <- result{o, e, c} }()
	select {
	case r := <-done:
		return r.o, r.e, r.c
	case <-time.After(time.Minute):
		t.Fatalf("deferbench %q still running after a minute", args)
	}
	return "", "", 0
}

// TestNonRegularInputs: report, plot and fleet (which write beside their input or read a
// results directory) refuse a named pipe, compare a character device (/dev/zero,
// /dev/urandom, a terminal on standard input), and all of them a results directory whose
// bench.txt or env.json is a named pipe, with exit 2 and one line naming the path and what it
// is, instead of blocking forever on the open or reading a device until the size limit.
func TestNonRegularInputs(t *testing.T) {
	good := writeBench(t, []string{"goos: linux"}, "Stage/strategy=a/cmd=typed-2 10")
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	pipeRun := filepath.Join(dir, "piperun")
	os.Mkdir(pipeRun, 0o755)
	syscall.Mkfifo(filepath.Join(pipeRun, "bench.txt"), 0o644)
	// A results directory whose env.json is a pipe: report reads it after bench.txt.
	envRun := writeBench(t, []string{"goos: linux"}, "Stage/strategy=a/cmd=typed-2 10")
	syscall.Mkfifo(filepath.Join(envRun, "env.json"), 0o644)
	cases := []struct {
		args []string
		path string // named in the message
		what string
	}{
		{[]string{"compare", good, pipeRun}, filepath.Join(pipeRun, "bench.txt"), "a named pipe (FIFO)"},
		{[]string{"report", fifo}, fifo, "a named pipe (FIFO)"},
		{[]string{"report", pipeRun}, filepath.Join(pipeRun, "bench.txt"), "a named pipe (FIFO)"},
		{[]string{"plot", fifo}, fifo, "a named pipe (FIFO)"},
		{[]string{"report", envRun}, filepath.Join(envRun, "env.json"), "a named pipe (FIFO)"},
		{[]string{"fleet", pipeRun, good}, filepath.Join(pipeRun, "bench.txt"), "a named pipe (FIFO)"},
	}
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err == nil {
			cases = append(cases, struct {
				args       []string
				path, what string
			}{[]string{"compare", good, dev}, dev, "a character device"})
		}
	}
	if null, err := os.Open(os.DevNull); err == nil {
		defer null.Close()
		defer func(orig *os.File) { os.Stdin = orig }(os.Stdin)
		os.Stdin = null // a terminal is a character device too
		cases = append(cases, struct {
			args       []string
			path, what string
		}{[]string{"compare", "-", good}, "standard input", "a character device"})
	}
	for _, c := range cases {
		out, errOut, code := cliWithin(t, c.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.path) || !strings.Contains(errOut, c.what) {
			t.Errorf("deferbench %q: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s as %s", c.args, code, out, errOut, c.path, c.what)
		}
	}
}

// TestNoBenchmarkInputs: an empty bench.txt and one of configuration lines only (a run killed
// before its first benchmark finished) are one-line usage errors that say which.
func TestNoBenchmarkInputs(t *testing.T) {
	good := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	killed := filepath.Join(dir, "killed")
	os.Mkdir(killed, 0o755)
	os.WriteFile(filepath.Join(killed, "bench.txt"), []byte("goos: linux\ngoarch: amd64\npartial: true (run in progress)\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", empty, good}, "the file is empty"},
		{[]string{"compare", good, killed}, "only configuration lines (3;"},
		{[]string{"report", killed}, "only configuration lines (3;"},
		{[]string{"plot", empty}, "the file is empty"},
	} {
		out, errOut, code := cli(c.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("deferbench %q: exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestCompareWindowsFiles: a bench.txt with CRLF line endings and a UTF-8 byte order mark
// (a Windows editor) compares with the same file saved plainly as the same rows, with no
// configuration difference.
func TestCompareWindowsFiles(t *testing.T) {
	plain := writeBench(t, []string{"goos: linux", "goarch: amd64"}, "Stage/strategy=a/cmd=typed-2 10", "Stage/strategy=b/cmd=typed-2 20")
	data, err := os.ReadFile(filepath.Join(plain, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	win := filepath.Join(t.TempDir(), "win.txt")
	os.WriteFile(win, append([]byte{0xEF, 0xBB, 0xBF}, strings.ReplaceAll(string(data), "\n", "\r\n")...), 0o644)
	out, errOut, code := cli("compare", "-format", "csv", plain, win)
	if code != 0 || noSummary(errOut) != "" {
		t.Fatalf("compare plain win: exit %d, stderr %q", code, errOut)
	}
	if strings.Contains(out, "\r") || strings.Count(out, "\n") != 3 {
		t.Errorf("compare plain win: want a header and 2 rows without \\r, got %q", out)
	}
}

// TestCompareExplainsNoCI: a median shown as ±∞ (too few samples for a confidence interval)
// is explained under the table, with the fix; a comparison where every median has an
// interval has no such line.
func TestCompareExplainsNoCI(t *testing.T) {
	few := filepath.Join(t.TempDir(), "few.txt")
	os.WriteFile(few, []byte("BenchmarkX-2 10 5 ns/op\nBenchmarkX-2 10 6 ns/op\nBenchmarkX-2 10 7 ns/op\n"), 0o644)
	many := writeBench(t, nil, "X-2 10")
	for _, format := range []string{"text", "markdown"} {
		out, errOut, code := cli("compare", "-format", format, many, few)
		if code != 0 {
			t.Fatalf("compare -format %s: exit %d: %s", format, code, errOut)
		}
		if !strings.Contains(out, "±∞") || !strings.Contains(out, "±∞: no 95% confidence interval") || !strings.Contains(out, "(down to 3); raise -count") {
			t.Errorf("compare -format %s with 3 samples: the ±∞ is not explained:\n%s", format, out)
		}
		out, _, _ = cli("compare", "-format", format, many, many)
		if strings.Contains(out, "±∞") {
			t.Errorf("compare -format %s with 6 samples: unexpected ±∞:\n%s", format, out)
		}
	}
}

// TestDoubleDashEndsFlags: after "--", an argument that starts with "-" is a file, also for
// the commands that take flags after their arguments.
func TestDoubleDashEndsFlags(t *testing.T) {
	run := writeBench(t, nil, "X-2 10")
	dir := t.TempDir()
	dash := filepath.Join(dir, "-old.txt")
	data, _ := os.ReadFile(filepath.Join(run, "bench.txt"))
	os.WriteFile(dash, data, 0o644)
	t.Chdir(dir)
	for _, args := range [][]string{
		{"compare", "--", "-old.txt", run},
		{"compare", run, "--", "-old.txt"},
		{"compare", "-format", "csv", "--", "-old.txt", run},
	} {
		out, errOut, code := cli(args...)
		if code != 0 || !strings.Contains(out, "X-2") {
			t.Errorf("deferbench %q: exit %d, stderr %q; want the comparison", args, code, errOut)
		}
	}
}

// TestReportRefusesLooseFile: report on a results file that is not a results directory's
// bench.txt refuses, instead of writing summary.json, report.md and plots/ beside it (over a
// project's own report.md, say).
func TestReportRefusesLooseFile(t *testing.T) {
	run := writeBench(t, nil, "X/strategy=a-2 10")
	dir := t.TempDir()
	loose := filepath.Join(dir, "old.txt")
	data, _ := os.ReadFile(filepath.Join(run, "bench.txt"))
	os.WriteFile(loose, data, 0o644)
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("mine"), 0o644)
	_, errOut, code := cli("report", loose)
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, loose) {
		t.Errorf("report %s: exit %d, stderr %q; want exit 2 and one line naming it", loose, code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("report %s wrote beside it: %v", loose, entries)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "report.md")); string(b) != "mine" {
		t.Errorf("report %s rewrote the report.md beside it", loose)
	}
	if _, errOut, code := cli("report", filepath.Join(run, "bench.txt")); code != 0 {
		t.Errorf("report DIR/bench.txt: exit %d, %s; want 0", code, errOut)
	}
}

// TestCompareNothingInCommon: two runs of unrelated benchmarks are a usage error that does
// not suggest -ignore-procs, which would not help; runs that differ only in the -N suffix do.
func TestCompareNothingInCommon(t *testing.T) {
	a := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	b := writeBench(t, nil, "Frame/strategy=a/entities=10-2 10")
	c := writeBench(t, nil, "Stage/strategy=a/cmd=typed-4 10")
	if _, errOut, code := cli("compare", a, b); code != 2 || strings.Contains(errOut, "-ignore-procs") || !strings.Contains(errOut, "give two runs of the same benchmarks") {
		t.Errorf("compare of unrelated runs: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := cli("compare", a, c); code != 2 || !strings.Contains(errOut, "try -ignore-procs") {
		t.Errorf("compare of runs at -2 and -4: exit %d, stderr %q", code, errOut)
	}
}

// TestPlotsNotWritable: plot and report on a results directory whose plots/ cannot be written
// (here a file of that name; a read-only folder is the same error) exit 2 with one line
// naming DIR/plots and the fix; report says what it did rebuild instead of claiming plots/.
func TestPlotsNotWritable(t *testing.T) {
	run := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	plots := filepath.Join(run, "plots")
	os.WriteFile(plots, []byte("mine"), 0o644)
	for _, cmd := range []string{"plot", "report"} {
		out, errOut, code := cli(cmd, run)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, plots+": cannot write the charts into it (not a directory)") {
			t.Errorf("%s with plots/ a file: exit %d, stderr %q; want exit 2 and one line naming %s", cmd, code, errOut, plots)
		}
		if b, _ := os.ReadFile(plots); string(b) != "mine" {
			t.Errorf("%s replaced the file plots", cmd)
		}
	}
	if _, err := os.Stat(filepath.Join(run, "report.md")); err != nil {
		t.Errorf("report without plots wrote no report.md: %v", err)
	}
}

// fullWriter fails every write, as stdout on a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestCompareOutputFails: a comparison whose output cannot be written (a full disk under a
// CI step summary) exits 1 in every format, not 0 with the output lost.
func TestCompareOutputFails(t *testing.T) {
	run := writeBench(t, nil, "X/strategy=a-2 10")
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		var errOut strings.Builder
		code := exitCode(runContext(context.Background(), []string{"compare", "-format", format, run, run}, fullWriter{}, &errOut), &errOut)
		if code != 1 || !strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("compare -format %s to a full disk: exit %d, stderr %q; want exit 1 naming the error", format, code, errOut.String())
		}
	}
}

// TestABNotDeferbench: ab with an executable that is not deferbench (it exits 0 and writes
// no results) is a usage error naming the side and the file it did not write, not exit 1
// with "open …/bench.txt: no such file or directory".
func TestABNotDeferbench(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake")
	os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	out := filepath.Join(dir, "out")
	_, errOut, code := cli("ab", "-rounds", "1", "-out", out, fake, fake)
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	last := lines[len(lines)-1]
	side := strings.Contains(last, "ab: BASE: ") || strings.Contains(last, "ab: HEAD: ") // whichever the round ran first
	if code != 2 || !side || !strings.Contains(last, fake+" run exited 0 but wrote no ") || !strings.Contains(last, "give a deferbench binary") {
		t.Errorf("ab with a fake binary: exit %d, last line %q; want exit 2 naming the side and the missing bench.txt", code, last)
	}
}

// TestCompareUnknownIgnoreKey: an -ignore key that neither run has (a typo) is noted with
// the nearest known key, when one is close, and the keys the runs do have, instead of
// changing nothing silently.
func TestCompareUnknownIgnoreKey(t *testing.T) {
	a := writeBench(t, []string{"goos: linux", "cpu: x"}, "X-2 10")
	_, errOut, code := cli("compare", "-ignore", "gos,cpu,machine", a, a)
	if code != 0 || !strings.Contains(errOut, "note: -ignore gos: neither run has such a config key, so it changes nothing; did you mean goos? (keys: machine, *, deferbench, goos, cpu)") {
		t.Errorf("compare -ignore gos: exit %d, stderr %q; want a note naming gos, goos and the keys", code, errOut)
	}
	_, errOut, _ = cli("compare", "-ignore", "machines,kernal-version", a, a)
	if !strings.Contains(errOut, "note: -ignore machines,kernal-version: neither run has such a config key, so it changes nothing; did you mean machine? (keys: ") {
		t.Errorf("compare -ignore machines: stderr %q; want a note naming machine and no guess for kernal-version", errOut)
	}
	if _, errOut, _ := cli("compare", "-ignore", "goos,machine,*", a, a); strings.Contains(errOut, "-ignore") {
		t.Errorf("compare -ignore of known keys: unexpected note %q", errOut)
	}
}

// TestCompareGateMBs: a gate on MB/s (what go test -bench writes for b.SetBytes) is
// accepted although the reader tidies the unit to B/s, and it fails when the throughput
// drops: lower is worse for a rate.
func TestCompareGateMBs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mbs float64) string {
		var b strings.Builder
		for i := range 8 {
			fmt.Fprintf(&b, "BenchmarkX-2 100 %g ns/op %g MB/s\n", 1000/mbs, mbs+float64(i)/10)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	fast, slow := write("fast.txt", 100), write("slow.txt", 50)
	if _, errOut, code := cli("compare", "-fail", "MB/s>5%", fast, slow); code != 1 || !strings.Contains(errOut, "gate failed: 1 metric") {
		t.Errorf("compare -fail MB/s>5%% with the throughput halved: exit %d, stderr %q; want the gate to fail", code, errOut)
	}
	if _, errOut, code := cli("compare", "-fail", "MB/s>5%", slow, fast); code != 0 {
		t.Errorf("compare -fail MB/s>5%% with the throughput doubled: exit %d, stderr %q; want a pass", code, errOut)
	}
}

// TestCompareLabelsDot: "compare . ../old" names the columns by the folders, not "." and "..".
func TestCompareLabelsDot(t *testing.T) {
	run := writeBench(t, nil, "X/strategy=a-2 10")
	t.Chdir(run)
	out, errOut, code := cli("compare", ".", ".")
	if code != 0 || strings.Contains(out, "old:. ") || !strings.Contains(out, "old:run") {
		t.Errorf("compare . .: exit %d, stderr %q, want the columns named by the folder:\n%s", code, errOut, out)
	}
}

// TestOutputFails: help, list and env whose output cannot be written exit 1, not 0.
func TestOutputFails(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "compare"}, {"list"}, {"compare", "-h"}} {
		var errOut strings.Builder
		code := exitCode(runContext(context.Background(), args, fullWriter{}, &errOut), &errOut)
		if code != 1 || !strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("deferbench %q to a full disk: exit %d, stderr %q; want exit 1 naming the error", args, code, errOut.String())
		}
	}
}

// TestCompareUTestPAtMostOne: the U test's p-value is at most 1, also with ties between the
// samples (benchmath's exact test gave 1.013 for 6 samples against 5 of them).
func TestCompareUTestPAtMostOne(t *testing.T) {
	dir := t.TempDir()
	vals := []string{"97.836051", "86.097110", "19.912874", "68.757507", "14.658374", "65.705326"}
	write := func(name string, vs []string) string {
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "BenchmarkX-2 100 %s ns/op\n", v)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	six, five := write("six.txt", vals), write("five.txt", vals[:5])
	out, errOut, code := cli("compare", "-format", "csv", six, five)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv: %v, %d rows:\n%s", err, len(rows), out)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	p, err := strconv.ParseFloat(rows[1][col["p"]], 64)
	if err != nil || p < 0 || p > 1 {
		t.Errorf("p = %q; want a probability in [0, 1]", rows[1][col["p"]])
	}
}
