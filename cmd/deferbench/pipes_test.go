package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/input"
)

// benchLines is a results file of n samples of BenchmarkX at about ns ns/op.
func benchLines(n, ns int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "BenchmarkX-2 1000 %d ns/op\n", ns+i%3)
	}
	return b.String()
}

// fdPipe is a pipe whose read end is open in this process as /dev/fd/N, as a shell's
// process substitution <(cmd) gives one: write writes data after delay and closes the write
// end (a writer that finished). The read end is closed when the test ends, so that a writer
// still blocked on a full pipe fails instead of staying blocked.
func fdPipe(t *testing.T, delay time.Duration, data string) string {
	t.Helper()
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd here")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() {
		defer w.Close()
		time.Sleep(delay)
		w.WriteString(data)
	}()
	return fmt.Sprintf("/dev/fd/%d", r.Fd())
}

// TestComparePipes: compare reads process substitution (/dev/fd/N, also one whose writer
// starts writing late) and standard input as "-", as benchstat does, naming the columns by
// the paths and "stdin"; "-" for both sides is a usage error.
func TestComparePipes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "old.txt")
	os.WriteFile(file, []byte(benchLines(6, 100)), 0o644)

	old := fdPipe(t, 0, benchLines(6, 100))
	new := fdPipe(t, 300*time.Millisecond, benchLines(6, 200))
	out, errOut, code := cliWithin(t, "compare", old, new)
	if code != 0 || noSummary(errOut) != "" || !strings.Contains(out, old) || !strings.Contains(out, new) || !strings.Contains(out, "+9") {
		t.Errorf("compare <(…) <(…): exit %d, stderr %q; want the comparison with the columns named by the pipes:\n%s", code, errOut, out)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		defer w.Close()
		w.WriteString(benchLines(6, 200))
	}()
	defer func(orig *os.File) { os.Stdin = orig }(os.Stdin)
	os.Stdin = r
	out, errOut, code = cliWithin(t, "compare", file, "-")
	if code != 0 || noSummary(errOut) != "" || !strings.Contains(out, "stdin") || !strings.Contains(out, "+9") {
		t.Errorf("go test | compare old.txt -: exit %d, stderr %q; want the comparison with a stdin column:\n%s", code, errOut, out)
	}

	if _, errOut, code := cliWithin(t, "compare", "-", "-"); code != 2 || !strings.Contains(errOut, "given for both OLD and NEW") {
		t.Errorf("compare - -: exit %d, stderr %q; want a usage error", code, errOut)
	}
}

// TestCompareSlowPipe: a pipe that gives nothing for a while (a benchmark run before its
// first result) is noted once on stderr and then read to its end, not cut short.
func TestCompareSlowPipe(t *testing.T) {
	defer func(d time.Duration) { input.WaitNotice = d }(input.WaitNotice)
	input.WaitNotice = 100 * time.Millisecond
	old := fdPipe(t, 0, benchLines(6, 100))
	slow := fdPipe(t, 500*time.Millisecond, benchLines(6, 100))
	out, errOut, code := cliWithin(t, "compare", old, slow)
	want := "deferbench: compare: waiting for " + slow + ": nothing read yet after 100ms; reading until its writer closes it (interrupt to stop)\n"
	if code != 0 || noSummary(errOut) != want || !strings.Contains(out, "X-2") {
		t.Errorf("compare with a pipe silent for 0.5s: exit %d, stderr %q; want the comparison and the notice %q", code, errOut, want)
	}
}

// TestCompareFIFO: a named pipe given before its writer has opened it is opened without
// blocking, noted as waiting for a writer, and read once one writes (here 0.5s late); one
// whose writer closes it without writing is an empty input (exit 2), not a wait for ever.
func TestCompareFIFO(t *testing.T) {
	defer func(d time.Duration) { input.WaitNotice = d }(input.WaitNotice)
	input.WaitNotice = 100 * time.Millisecond
	good := writeBench(t, nil, "X-2 10")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	write := func(data string) {
		time.Sleep(500 * time.Millisecond)
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until compare has it open
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteString(data)
		f.Close()
	}
	go write(benchLines(6, 100))
	out, errOut, code := cliWithin(t, "compare", fifo, good)
	want := "deferbench: compare: waiting for a program to open the named pipe " + fifo + " for writing (interrupt to stop)\n"
	if code != 0 || noSummary(errOut) != want || !strings.Contains(out, "X-2") {
		t.Errorf("compare FIFO with a late writer: exit %d, stderr %q; want the comparison and the notice %q:\n%s", code, errOut, want, out)
	}

	go write("")
	out, errOut, code = cliWithin(t, "compare", good, fifo)
	if code != 2 || out != "" || !strings.HasSuffix(errOut, fifo+": not a Go benchmark results file, no benchmark lines: nothing was written to it (did the command writing it fail?): give a bench.txt with results, or a results directory\n") {
		t.Errorf("compare FIFO whose writer wrote nothing: exit %d, stderr %q; want exit 2 saying nothing was written", code, errOut)
	}
}

// TestCompareOversizedPipe: a pipe that gives more than 64 MiB (a runaway writer) is refused
// once the limit is passed, naming the input, instead of being read until memory runs out.
func TestCompareOversizedPipe(t *testing.T) {
	good := writeBench(t, nil, "X-2 10")
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd here")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		line := []byte(benchLines(1, 100))
		chunk := []byte(strings.Repeat(string(line), (1<<20)/len(line)))
		for { // until compare stops reading and the read end is closed
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	out, errOut, code := cliWithin(t, "compare", good, fmt.Sprintf("/dev/fd/%d", r.Fd()))
	r.Close()
	<-done
	if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "results file too large: more than 64 MiB") {
		t.Errorf("compare of an endless pipe: exit %d, stderr %q; want exit 2 and one line saying it is over 64 MiB", code, errOut)
	}
}
