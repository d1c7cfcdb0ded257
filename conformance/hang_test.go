package conformance

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/deferbench/deferbench/conformance/internal/reference"
)

// hangEnv selects the strategy of TestHangHelper: "block" (Commit never returns) or "spin"
// (Commit spins on the CPU forever), in the rows of hangRows; unset, the helper does nothing.
const hangEnv = "DEFERBENCH_CONFORMANCE_HANG"

// hangRows are the rows whose strategy hangs in TestHangHelper: two in the middle of the
// suite, two at its end; on both storages, eight subtests.
var hangRows = []string{"FIFOWithinRecorder", "DestroyTwice", "TypedAllocation", "BatchPerEntity"}

// hangs reports whether the subtest name (a row, a variant, a storage) is one of hangRows'.
func hangs(name string) bool {
	for _, r := range hangRows {
		if strings.HasPrefix(name, r) {
			return true
		}
	}
	return false
}

// TestHangHelper is run by TestHangingRowsReported in a child process: the whole suite, with
// the watchdog's real bound (Timeout), against the reference strategy, whose Commit blocks or
// spins in the rows of hangRows.
func TestHangHelper(t *testing.T) {
	mode := os.Getenv(hangEnv)
	if mode == "" {
		t.Skip("the child process of TestHangingRowsReported; runs with " + hangEnv + " set")
	}
	bug := map[string]reference.Bug{"block": reference.HangCommit, "spin": reference.SpinCommit}[mode]
	good, bad := reference.Factory(reference.Ordered, reference.NoBug), reference.Factory(reference.Ordered, bug)
	seed := suiteSeed()
	for _, c := range onStorages(t, checks(good(nil).Capabilities())) {
		f := good
		if hangs(c.name) {
			f = bad
		}
		t.Run(c.name, func(t *testing.T) { runCheck(t, f, c, seed, Timeout) })
	}
}

// TestHangingRowsReported runs the suite in a child process under go test's -timeout 5m with
// a strategy whose Commit blocks forever in eight subtests, and again with one that spins:
// the child must end by itself (not killed by the test binary's timeout), each of the eight
// fails within 30 s with a message naming it, and every other subtest passes. Not under
// -short: each blocking row waits out the watchdog's bound (Timeout, 20 s).
func TestHangingRowsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite twice with eight rows waiting out the watchdog (about 3 minutes); not under -short")
	}
	all := onStorages(t, checks(reference.Factory(reference.Ordered, reference.NoBug)(nil).Capabilities()))
	nhang := 0
	for _, c := range all {
		if hangs(c.name) {
			nhang++
		}
	}
	if nhang != 8 {
		t.Fatalf("hangRows select %d subtests, want 8 (rows renamed?)", nhang)
	}
	var wg sync.WaitGroup
	for _, mode := range []string{"block", "spin"} {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHangHelper$", "-test.v", "-test.timeout=5m")
			cmd.Env = append(os.Environ(), hangEnv+"="+mode)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			text := out.String()
			if strings.Contains(text, "panic: test timed out") {
				t.Errorf("%s: the child was killed by go test's -timeout 5m, want it to end by itself:\n%s", mode, tail(text))
				return
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("%s: child's exit: %v, want exit status 1 (failed rows):\n%s", mode, err, tail(text))
			}
			for _, c := range all {
				name := "TestHangHelper/" + c.name
				if !hangs(c.name) {
					if !strings.Contains(text, "--- PASS: "+name+" (") {
						t.Errorf("%s: subtest %s: not reported as passing, want every row that does not block to pass", mode, c.name)
					}
					continue
				}
				m := regexp.MustCompile(`--- FAIL: ` + regexp.QuoteMeta(name) + ` \(([0-9.]+)s\)`).FindStringSubmatch(text)
				if m == nil {
					t.Errorf("%s: blocking subtest %s: not reported as failing", mode, c.name)
					continue
				}
				if s, _ := strconv.ParseFloat(m[1], 64); s > 30 {
					t.Errorf("%s: blocking subtest %s failed after %ss, want within 30 s", mode, c.name, m[1])
				}
				if !strings.Contains(text, c.name+": did not finish within") {
					t.Errorf("%s: blocking subtest %s: no message naming it and saying it did not finish", mode, c.name)
				}
			}
			t.Logf("%s: %d subtests, %d blocking, all reported", mode, len(all), nhang)
		})
	}
	wg.Wait()
}

// tail returns the last 4 KiB of s.
func tail(s string) string {
	if len(s) > 4096 {
		return fmt.Sprintf("…%s", s[len(s)-4096:])
	}
	return s
}
