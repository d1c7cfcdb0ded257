// Package boundexec runs an external command bounded together with every process it starts:
// a time limit, a limit on the output kept, and a grace period after which whatever is left
// of the command's process group is killed and its output pipes are closed.
//
// os/exec alone bounds only the process it started. A command that is a shell script (a
// wrapper that calls the real tool through sudo, say) leaves children that inherit its
// standard output; when the timeout kills the script, reading its output still waits for
// those children, however long they run. Here the command runs in a process group of its own
// (on Unix), the whole group is signalled, and reading stops [Options.Grace] after the
// command exits or its time is up, so Run returns within Timeout + Grace (plus the time to
// reap) whatever the command's children do.
package boundexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Defaults for the zero fields of [Options].
const (
	DefaultGrace     = 500 * time.Millisecond
	DefaultMaxOutput = 4 << 20 // bytes, per stream
)

// ErrTimeout reports that the command ran past [Options.Timeout] and was killed with its
// process group.
var ErrTimeout = errors.New("timed out")

// ErrOutputLimit reports that the command wrote more than [Options.MaxOutput] bytes to a
// captured stream; it was killed with its process group and the first MaxOutput bytes are
// kept.
var ErrOutputLimit = errors.New("output limit exceeded")

// ErrOutputHeld reports that the command exited but processes it started kept its output
// open past [Options.Grace]; they were killed and the output read until then is kept.
var ErrOutputHeld = errors.New("exited, but processes it started kept its output open")

// Options bound one command. The zero value has no time limit of its own (the context's
// only), [DefaultGrace] and [DefaultMaxOutput].
type Options struct {
	// Timeout limits the command's run; 0 means only the context does.
	Timeout time.Duration
	// Grace is how long Run waits, after the time is up or the context is done, between
	// asking the process group to stop (SIGTERM) and killing it (SIGKILL), and, after the
	// command exits, for processes it started to close its output. 0 means DefaultGrace.
	Grace time.Duration
	// MaxOutput limits the bytes kept of each captured stream; a command that writes more
	// is stopped with ErrOutputLimit. 0 means DefaultMaxOutput.
	MaxOutput int
	// Dir is the command's working directory; "" means the caller's.
	Dir string
	// Stdout and Stderr, when not nil, receive the streams instead of [Result] (uncapped:
	// the writer decides what to keep).
	Stdout, Stderr io.Writer
	// Env holds NAME=value variables the command runs with besides the caller's
	// environment (nil: the caller's alone).
	Env []string
	// Combined captures standard error into Result.Stdout, interleaved as written (as
	// exec.Cmd.CombinedOutput does); Stderr is then ignored.
	Combined bool
}

// Result is what a command wrote to the streams Run captured, at most MaxOutput bytes each.
type Result struct {
	Stdout, Stderr []byte
}

// Error is the error Run returns: the command line and why it failed. Err is ErrTimeout,
// ErrOutputLimit, ErrOutputHeld, the context's error, an *exec.ExitError, ErrStopped, or
// the error of starting the command; errors.Is and errors.As see through it.
type Error struct {
	Cmd    string // the command line, space-separated
	Err    error
	Stderr string // the last lines of captured standard error, if any
}

func (e *Error) Error() string {
	s := "run " + e.Cmd + ": " + e.Err.Error()
	if e.Stderr != "" {
		s += ": " + e.Stderr
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs name with args, bounded by ctx and opt, and returns what it wrote. It returns
// within opt.Timeout (or ctx's deadline) plus about twice opt.Grace, with no process of the
// command's group left running (on Unix); the error is nil only if the command exited with
// status 0 and closed its output. Once KillAll has begun, Run starts nothing and its error
// wraps ErrStopped; a command Run started is killed by KillAll with its process group. Run
// is safe for concurrent use.
func Run(ctx context.Context, opt Options, name string, args ...string) (Result, error) {
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	if opt.MaxOutput <= 0 {
		opt.MaxOutput = DefaultMaxOutput
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if opt.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, opt.Timeout)
	}
	defer cancel()

	cmd := exec.CommandContext(runCtx, name, args...)
	if opt.Env != nil {
		cmd.Env = append(os.Environ(), opt.Env...)
	}
	cmd.Dir = opt.Dir
	cmd.WaitDelay = opt.Grace
	g := &group{cmd: cmd}
	g.prepare()
	cmd.Cancel = g.stop

	var out, errOut *capped
	if opt.Stdout != nil && !opt.Combined {
		cmd.Stdout = opt.Stdout
	} else {
		out = &capped{max: opt.MaxOutput, g: g}
		cmd.Stdout = out
	}
	switch {
	case opt.Combined:
		cmd.Stderr = out
	case opt.Stderr != nil:
		cmd.Stderr = opt.Stderr
	default:
		errOut = &capped{max: opt.MaxOutput, g: g}
		cmd.Stderr = errOut
	}

	untrack, err := start(g) // KillAll reaches it from the moment it runs
	if err == nil {
		err = cmd.Wait()
		g.kill() // whatever the command left behind
		untrack()
	}
	var res Result
	if out != nil {
		res.Stdout = out.bytes()
	}
	if errOut != nil {
		res.Stderr = errOut.bytes()
	}
	if err == nil {
		return res, nil
	}
	switch {
	case out.exceeded() || errOut.exceeded():
		err = ErrOutputLimit
	case ctx.Err() != nil:
		err = ctx.Err()
	case runCtx.Err() != nil:
		err = fmt.Errorf("%w after %v", ErrTimeout, opt.Timeout)
	case errors.Is(err, exec.ErrWaitDelay):
		err = fmt.Errorf("%w for %v", ErrOutputHeld, opt.Grace)
	}
	return res, &Error{Cmd: strings.Join(append([]string{name}, args...), " "), Err: err, Stderr: lastLines(res.Stderr, 3)}
}

// capped keeps the first max bytes written to it; a write past max stops the command's
// process group and fails, which ends exec's copy of the stream.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over bool
	g    *group
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return 0, ErrOutputLimit
	}
	if room := c.max - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:room])
		c.over = true
		c.g.kill()
		return room, ErrOutputLimit
	}
	return c.buf.Write(p)
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

func (c *capped) exceeded() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.over
}

// lastLines is the last n non-empty lines of b, joined with " | ".
func lastLines(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	ls := strings.Split(s, "\n")
	return strings.Join(ls[max(0, len(ls)-n):], " | ")
}
