package deferral_test

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestStagingCallsInline: Recorder.Set, Add, Remove, Remove2 and Destroy stay within the
// compiler's inlining budget (their out-of-line paths are calls through parameters, which the
// budget charges less). One node over it turns each staged command back into a call, which no
// other test would notice: the counts would, much later. It asks the go command that builds
// the tests (go build -gcflags=-m on this package, replayed from the build cache when cached)
// and is skipped where there is none, where it builds for another GOARCH (test binaries run
// under qemu-user), or where the package's source is not at hand.
func TestStagingCallsInline(t *testing.T) {
	if _, err := os.Stat("recorder.go"); err != nil {
		t.Skip("the package's source is not in the working directory (a test binary copied to a board)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	arch, err := exec.Command(goBin, "env", "GOARCH").Output()
	if err != nil || strings.TrimSpace(string(arch)) != runtime.GOARCH {
		t.Skipf("go env GOARCH is not %s (or the go command does not run here)", runtime.GOARCH)
	}
	out, err := exec.Command(goBin, "build", "-gcflags=-m", ".").CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	} else if err != nil {
		t.Skipf("go build does not run here: %v", err)
	}
	for _, m := range []string{"Set", "Add", "Remove", "Remove2", "Destroy"} {
		if !strings.Contains(string(out), ": can inline (*Recorder)."+m+"\n") {
			t.Errorf("(*Recorder).%s is not inlinable any more (go build -gcflags=-m=2 ./deferral says why): every %s staged is a call again", m, m)
		}
	}
}
