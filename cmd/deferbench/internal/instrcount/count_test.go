package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for instrcount: -count runs its children as
// os.Executable() WORKLOAD N, which the test binary serves here.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 {
		if _, ok := workloads[os.Args[1]]; ok {
			main()
			return
		}
	}
	os.Exit(m.Run())
}

// TestCountArgs: bad counts and unknown workloads are one line on stderr and exit status 2,
// before anything is counted.
func TestCountArgs(t *testing.T) {
	for _, args := range [][]string{
		{"-n1", "0", "append16"},
		{"-n1", "800", "-n2", "400", "append16"},
		{"no-such-workload"},
		{"-bogus"},
	} {
		var out, errb bytes.Buffer
		if code := countMain(args, &out, &errb); code != 2 {
			t.Errorf("countMain(%q) = %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if !strings.Contains(errb.String(), "instrcount") && !strings.Contains(errb.String(), "flag") {
			t.Errorf("countMain(%q): stderr %q names neither instrcount nor the flag", args, errb.String())
		}
	}
}

// TestCountUnderCachegrind: -count prints the header and one line per workload, in the order
// named, with the count tier's driver (skipped without valgrind, and with -short). 40,000
// iterations apart: at 4,000 the runtime's background work, which varies by tens of
// thousands of instructions between two processes on a loaded machine, once made append16
// read -1.6 instr/op.
func TestCountUnderCachegrind(t *testing.T) {
	if testing.Short() {
		t.Skip("counts under valgrind: seconds per workload")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
	var out, errb bytes.Buffer
	if code := countMain([]string{"-n1", "40000", "-n2", "80000", "append16", "append72"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := regexp.MustCompile(`^workload +instr/op\nappend16 +[0-9]+\.[0-9]\nappend72 +[0-9]+\.[0-9]\n$`)
	if !want.MatchString(out.String()) {
		t.Errorf("output %q; want a header and lines for append16 and append72", out.String())
	}
}
