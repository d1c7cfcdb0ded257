//go:build unix

package boundexec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Each case would run for 30 s (the children's sleep) if reading its output waited for the
// children, and for its whole sleep if a signal the children ignore were all Run sent. The
// bound asserted is the documented one, Timeout + 2×Grace, with 3 s of slack for a
// loaded machine: far below 30 s, so a regression fails.
const (
	timeout = time.Second
	grace   = 300 * time.Millisecond
	slack   = 3 * time.Second
	sleep   = "30"
)

func TestRunBounded(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tests := []struct {
		name    string
		script  string // $PIDS is a file each background child appends its pid to
		max     int
		timeout time.Duration // 0: timeout
		wantErr error
		wantOut string // a prefix of stdout
	}{
		// A child holding stdout while the script waits for it (a wrapper over sudo).
		{"held-stdout/script-waits", `sleep ` + sleep + ` & echo $! >>"$PIDS"; echo partial; wait`, 0, 0, ErrTimeout, "partial"},
		// The script exits at once; its child keeps stdout open.
		{"held-stdout/script-exits", `sleep ` + sleep + ` & echo $! >>"$PIDS"; echo answer`, 0, time.Minute, ErrOutputHeld, "answer"},
		// A grandchild in a subshell holds stderr only.
		{"held-stderr/grandchild", `( sleep ` + sleep + ` & echo $! >>"$PIDS" ) >&2; echo done`, 0, time.Minute, ErrOutputHeld, "done"},
		// SIGTERM ignored by the script and (inherited) by its child.
		{"ignores-term/child", `trap '' TERM; sleep ` + sleep + ` & echo $! >>"$PIDS"; wait`, 0, 0, ErrTimeout, ""},
		// SIGTERM ignored by a busy script that holds its own output.
		{"ignores-term/leader", `trap '' TERM; echo $$ >>"$PIDS"; while :; do sleep 0.05; done`, 0, 0, ErrTimeout, ""},
		// Output floods: from the script itself, from a background child, and on stderr.
		{"flood/leader", `yes flood`, 1 << 16, 0, ErrOutputLimit, "flood\nflood"},
		{"flood/child", `yes flood & echo $! >>"$PIDS"; wait`, 1 << 16, 0, ErrOutputLimit, "flood\nflood"},
		{"flood/stderr", `yes flood >&2`, 1 << 16, 0, ErrOutputLimit, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			t.Setenv("PIDS", pids)
			limit, bound := tt.timeout, grace+slack // exits at once: Grace bounds the wait
			if limit == 0 {
				limit, bound = timeout, timeout+2*grace+slack
			}
			start := time.Now()
			res, err := Run(context.Background(), Options{Timeout: limit, Grace: grace, MaxOutput: tt.max}, "sh", "-c", tt.script)
			took := time.Since(start)
			t.Logf("returned in %v: %v", took.Round(time.Millisecond), err)
			if took > bound {
				t.Errorf("Run took %v, want under %v", took, bound)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Run error = %v, want %v", err, tt.wantErr)
			}
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(e.Cmd, "sh -c") {
				t.Errorf("Run error = %#v, want an *Error naming the command", err)
			}
			if !strings.HasPrefix(string(res.Stdout), tt.wantOut) {
				t.Errorf("stdout = %.40q, want it to start with %q", res.Stdout, tt.wantOut)
			}
			if tt.max > 0 && (len(res.Stdout) > tt.max || len(res.Stderr) > tt.max) {
				t.Errorf("kept %d and %d bytes, want at most %d each", len(res.Stdout), len(res.Stderr), tt.max)
			}
			wantGone(t, pids)
		})
	}
}

// wantGone checks that every process whose pid is in the file has exited (or is a zombie
// waiting for init to reap it).
func wantGone(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		deadline := time.Now().Add(2 * time.Second)
		for running(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d the command started is still running", pid)
				_ = syscallKill(pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

func TestRunOK(t *testing.T) {
	res, err := Run(context.Background(), Options{Timeout: 5 * time.Second}, "sh", "-c", `echo out; echo err >&2`)
	if err != nil || string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" {
		t.Errorf("Run = %q, %q, %v; want out, err, nil", res.Stdout, res.Stderr, err)
	}
	res, err = Run(context.Background(), Options{Combined: true}, "sh", "-c", `echo out; echo err >&2`)
	if err != nil || string(res.Stdout) != "out\nerr\n" {
		t.Errorf("Run combined = %q, %v; want out and err, nil", res.Stdout, err)
	}
}

func TestRunErrors(t *testing.T) {
	_, err := Run(context.Background(), Options{}, "sh", "-c", `echo why >&2; exit 3`)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(err.Error(), "why") {
		t.Errorf("exit 3: error %v, want an *exec.ExitError with status 3 and the stderr line", err)
	}
	_, err = Run(context.Background(), Options{}, filepath.Join(t.TempDir(), "absent"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent command: error %v, want os.ErrNotExist", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = Run(ctx, Options{Grace: grace}, "sh", "-c", `trap '' TERM; sleep `+sleep+` & wait`)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 100*time.Millisecond+2*grace+slack {
		t.Errorf("canceled: error %v after %v, want context.Canceled within %v", err, time.Since(start), 2*grace+slack)
	}
}
