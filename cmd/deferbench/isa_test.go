package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/isabuild"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/runopts"
)

// TestRunCountOnARM: on an arm64 or arm machine (make test-arm runs it under qemu-user),
// counting the host's instructions stops at once with one line saying why and what to use
// instead (the PMU's counter, or -isa from an x86 machine), exit status 2, nothing written.
// Elsewhere the same words come from runopts.ARMHostCount for arm64 and arm.
func TestRunCountOnARM(t *testing.T) {
	for _, goarch := range []string{"arm64", "arm"} {
		msg := runopts.ARMHostCount(goarch)
		if msg == "" || !strings.Contains(msg, "instructions counter") || !strings.Contains(msg, "-isa pi4") || strings.Contains(msg, "\n") {
			t.Errorf("ARMHostCount(%s) = %q; want one line naming the PMU's counter and -isa", goarch, msg)
		}
	}
	if runopts.ARMHostCount("amd64") != "" {
		t.Errorf("ARMHostCount(amd64) refuses counting on amd64")
	}
	if runtime.GOARCH != "arm64" && runtime.GOARCH != "arm" {
		t.Skipf("the run itself is checked on arm64 and arm (make test-arm); this is %s", runtime.GOARCH)
	}
	out := filepath.Join(t.TempDir(), "r")
	var stderr bytes.Buffer
	err := runContext(context.Background(), []string{"run", "-measure", "instructions", "-scenarios", "Stage", "-out", out}, io.Discard, &stderr)
	if code := exitCode(err, &stderr); code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "instructions counter") {
		t.Errorf("status %d, stderr %q; want 2 and one line naming the PMU's instructions counter", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was created", out)
	}
}

// TestRunISAWithoutEmulator: -isa pi4 where qemu-user is missing is one line naming the
// package and the script that installs it, exit status 2, nothing written; -isa without
// -measure instructions and an unknown ISA are usage errors too.
func TestRunISAWithoutEmulator(t *testing.T) {
	if runtime.GOARCH == "arm64" || runtime.GOARCH == "arm" {
		t.Skip("the host's count is refused first on arm (TestRunCountOnARM)")
	}
	out := filepath.Join(t.TempDir(), "r")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-measure", "instructions", "-isa", "pi4"}, "qemu-user"},
		{[]string{"-isa", "pi5"}, "add -measure instructions"},
		{[]string{"-measure", "instructions", "-isa", "pi3"}, "valid: host, pi4, pi5, pi4-32"},
		{[]string{"-measure", "instructions,cachesim", "-isa", "pi4"}, "cachegrind's"},
	} {
		cmd := deferbenchCmd(append([]string{"run", "-scenarios", "Stage", "-out", out}, c.args...)...)
		cmd.Env = append(cmd.Env, "PATH="+t.TempDir())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); errors.Is(err, syscall.ENOEXEC) {
			t.Skipf("cannot run the test binary as a child process: %v", err)
		}
		if code := cmd.ProcessState.ExitCode(); code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and one line with %q", c.args, code, stderr.String(), c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was created", c.args, out)
		}
	}
}

// TestCountGateKeepsISAsApart: the count gate matches rows by ISA and name: a pi4 row is
// judged against pi4's, never against the host's or pi5's of the same name; a +2 % change on
// pi5 alone fails naming [pi5]; and a gate whose rows are all on one side only (another ISA)
// judges nothing: inconclusive, exit status 3.
func TestCountGateKeepsISAsApart(t *testing.T) {
	const name = "Stage/strategy=lazyguarded/cmd=typed"
	file := func(vals map[string]float64) string {
		var rs []counts.Row
		for isa, v := range vals {
			rs = append(rs, counts.Row{Name: name, ISA: isa, High: 2, Low: 1, Measures: []counts.Measure{{Unit: counts.InstrUnit, Samples: []float64{v, v}}}})
		}
		bf := results.NewBenchFile(filepath.Join(t.TempDir(), "bench.txt"))
		bf.Config = []results.Config{{Key: "goarch", Value: "amd64"}}
		for _, i := range counts.ISAs {
			isa := i.Name
			if i.Host() {
				isa = ""
			}
			for _, r := range rs {
				if r.ISA == isa {
					for _, res := range counts.Results([]counts.Row{r}, i.Config()) {
						bf.Add(res)
					}
				}
			}
		}
		bf.Finish("")
		return bf.Path
	}
	old := file(map[string]float64{"": 1593, "pi4": 1556, "pi5": 1552})
	cases := []struct {
		new  map[string]float64
		code int
		want string
	}{
		{map[string]float64{"": 1593, "pi4": 1556, "pi5": 1552}, 0, "3 pass (0 better), 0 fail"},
		{map[string]float64{"": 1593, "pi4": 1556, "pi5": 1583}, 1, "FAIL [pi5] " + name},
		{map[string]float64{"pi4-32": 2446}, 3, "nothing was judged"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		err := runContext(context.Background(), []string{"compare", "-ignore", "*", "-fail", "instr/op>0.5%", old, file(c.new)}, io.Discard, &stderr)
		if code := exitCode(err, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", c.new, code, stderr.String(), c.code, c.want)
		}
	}
}

// TestISAChildren: with isabuild.PrefixEnv naming children that are not there, -isa is one
// line naming the missing child and how to build it.
func TestISAChildren(t *testing.T) {
	pi4, _ := counts.LookupISA("pi4")
	t.Setenv(isabuild.PrefixEnv, filepath.Join(t.TempDir(), "deferbench"))
	_, _, err := isabuild.Children(context.Background(), []counts.ISA{counts.HostISA, pi4}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "deferbench-linux-arm64 does not exist") || !strings.Contains(err.Error(), "GOARCH=arm64") {
		t.Errorf("Children with a missing prebuilt child: %v", err)
	}
}

// TestTerminateRemovesCrossBuiltChildren: a count run on an emulated ISA stopped at once by
// SIGTERM while it cross-builds its count child leaves no directory of children in TMPDIR and
// no build running that could write one again.
func TestTerminateRemovesCrossBuiltChildren(t *testing.T) {
	if runtime.GOARCH == "arm64" || runtime.GOARCH == "arm" {
		t.Skip("the host's count is refused first on arm (TestRunCountOnARM)")
	}
	pi4, _ := counts.LookupISA("pi4")
	if _, err := counts.LookEmulator(pi4); err != nil {
		t.Skipf("no emulated count tier here (scripts/install-qemu-count.sh installs it): %v", err)
	}
	if _, ok := isabuild.SourceRoot("."); !ok {
		t.Skip("not in a deferbench checkout: the child would not be cross-built")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "r")
	cmd, lines := startRun(t, "-measure", "instructions", "-isa", "pi4", "-scenarios", "Stage", "-strategies", "baseline", "-out", out)
	if !waitLine(lines, "cross-building the count child", 2*time.Minute) {
		cmd.Process.Kill()
		t.Fatal("the run never started cross-building")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	for range lines {
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit status %d, want 143", code)
	}
	for _, wait := range []time.Duration{0, time.Second} {
		time.Sleep(wait) // a build left running would write its child in the meantime
		if left, _ := filepath.Glob(filepath.Join(tmp, "deferbench-isa-*")); len(left) > 0 {
			t.Errorf("%v after the exit, SIGTERM left %v behind", wait, left)
		}
	}
}
