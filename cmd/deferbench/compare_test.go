package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBench writes a bench.txt of lines (benchmark lines without the Benchmark prefix, each
// repeated 6 times with a little noise) into a new directory under t's temp dir, after the
// config lines, and returns the directory.
func writeBench(t *testing.T, config []string, lines ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range config {
		fmt.Fprintln(&b, c)
	}
	for i := range 6 {
		for _, l := range lines {
			name, ns, _ := strings.Cut(l, " ")
			fmt.Fprintf(&b, "Benchmark%s 1000 %s%d ns/op\n", name, ns, i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cli runs deferbench with args and returns its stdout, stderr and exit status.
func cli(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = exitCode(runContext(context.Background(), args, &o, &e), &e)
	return o.String(), e.String(), code
}

func TestCompareBadInputs(t *testing.T) {
	good := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	readme := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(readme, []byte("# deferbench\n\nNot results.\n"), 0o644)
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "/nonexistent/old", good}, "deferbench: compare: /nonexistent/old: no such file: give a bench.txt or a results directory\n"},
		{[]string{"compare", good, readme}, "deferbench: compare: " + readme + " is not a Go benchmark results file\n"},
		{[]string{"compare", empty, good}, "deferbench: compare: " + empty + " has no bench.txt: give a bench.txt or a results directory\n"},
		{[]string{"compare", good, good, "-bogus"}, "deferbench: compare: unknown flag -bogus (valid: -alpha, -ignore-procs)\n"},
		{[]string{"compare", good, good, "-alpha", "2"}, "deferbench: compare: -alpha 2: want a value in (0, 1)\n"},
		{[]string{"compare", good, "-ignore-procs"}, "deferbench: compare: want two arguments OLD NEW, got 1\n"},
		{[]string{"plot", empty}, "deferbench: plot: " + empty + " has no bench.txt: give a bench.txt or a results directory\n"},
		{[]string{"plot", readme}, "deferbench: plot: " + readme + " is not a Go benchmark results file\n"},
	} {
		out, errOut, code := cli(c.args...)
		if code != 2 || errOut != c.want || out != "" {
			t.Errorf("deferbench %q: exit %d, stderr %q, stdout %q; want exit 2, stderr %q, no output", c.args, code, errOut, out, c.want)
		}
	}
}

// TestCompareFlagsAfterArgs: flags after OLD NEW count as if they came first.
func TestCompareFlagsAfterArgs(t *testing.T) {
	old := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10")
	new := writeBench(t, nil, "Stage/strategy=a/cmd=typed-8 10")
	for _, args := range [][]string{
		{"compare", "-ignore-procs", old, new},
		{"compare", old, new, "-ignore-procs"},
		{"compare", old, "-ignore-procs", new},
		{"compare", old, new, "-ignore-procs", "-alpha=0.1"},
	} {
		out, errOut, code := cli(args...)
		if code != 0 || !strings.Contains(out, "Stage/strategy=a/cmd=typed ") {
			t.Errorf("deferbench %q: exit %d, stderr %q; want the matched row:\n%s", args, code, errOut, out)
		}
	}
	if _, errOut, code := cli("compare", old, new); code != 2 || !strings.Contains(errOut, "try -ignore-procs") {
		t.Errorf("no common benchmark: exit %d, stderr %q; want exit 2 and a hint at -ignore-procs", code, errOut)
	}
	if out, _, code := cli("compare", old, new, "-h"); code != 0 || !strings.Contains(out, "usage: deferbench compare") {
		t.Errorf("compare OLD NEW -h: exit %d, output %q; want the help", code, out)
	}
}

// TestCompareNotes: a benchmark in only one file and a partial input are each noted in one
// line on stderr; the table still compares what both have.
func TestCompareNotes(t *testing.T) {
	old := writeBench(t, nil, "A-2 10", "OnlyOld-2 10")
	new := writeBench(t, []string{"partial: 2 of 3 benchmarks finished (interrupted)"}, "A-2 10", "OnlyNew-2 10", "OnlyNew2-2 10")
	out, errOut, code := cli("compare", old, new)
	if code != 0 || !strings.Contains(out, "A-2") || strings.Contains(out, "Only") {
		t.Errorf("exit %d; want 0 and only the common row:\n%s", code, out)
	}
	for _, want := range []string{
		"deferbench: compare: note: " + new + ": partial: 2 of 3 benchmarks finished (interrupted)\n",
		"deferbench: compare: note: 1 benchmark only in " + old + ", not compared: OnlyOld-2\n",
		"deferbench: compare: note: 2 benchmarks only in " + new + ", not compared: OnlyNew-2, OnlyNew2-2\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "\n"); n != 3 {
		t.Errorf("stderr has %d lines, want 3:\n%s", n, errOut)
	}
}

// TestCompareIgnoreProcsKeepsApart: -ignore-procs never pools one file's GOMAXPROCS variants
// of a benchmark into one row.
func TestCompareIgnoreProcsKeepsApart(t *testing.T) {
	old := writeBench(t, nil, "Contention/strategy=a/producers=2 10", "Contention/strategy=a/producers=2-4 20", "Stage/strategy=a/cmd=typed-4 30")
	new := writeBench(t, nil, "Contention/strategy=a/producers=2 10", "Contention/strategy=a/producers=2-8 20", "Stage/strategy=a/cmd=typed-8 30")
	out, errOut, code := cli("compare", "-ignore-procs", old, new)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Contention/strategy=a/producers=2 ", "Stage/strategy=a/cmd=typed "} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output has %q %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	for _, s := range []string{"n=12", "n=6+12", "n=12+6"} {
		if strings.Contains(out, s) {
			t.Errorf("output pools GOMAXPROCS variants (%s):\n%s", s, out)
		}
	}
	for _, want := range []string{"-ignore-procs: 1 benchmark run at several GOMAXPROCS, kept apart", "only in " + old + ", not compared: Contention/strategy=a/producers=2-4"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestPlotCommand: plot takes a results directory or its bench.txt, writes DIR/plots, and
// reports the number of files it wrote.
func TestPlotCommand(t *testing.T) {
	dir := writeBench(t, nil, "Stage/strategy=a/cmd=typed-2 10", "Frame/strategy=a/entities=1000-2 100", "Frame/strategy=a/entities=10000-2 900")
	for _, arg := range []string{dir, filepath.Join(dir, "bench.txt")} {
		os.RemoveAll(filepath.Join(dir, "plots"))
		_, errOut, code := cli("plot", arg)
		files, _ := os.ReadDir(filepath.Join(dir, "plots"))
		want := fmt.Sprintf("deferbench: %d plot files (%d charts as SVG and PNG) in %s\n", len(files), len(files)/2, filepath.Join(dir, "plots"))
		if code != 0 || errOut != want || len(files) != 6 {
			t.Errorf("plot %s: exit %d, stderr %q, %d files; want 0, %q, 6 files (Stage, Frame, Frame-scaling)", arg, code, errOut, len(files), want)
		}
	}
}
