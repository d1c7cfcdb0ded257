package conformance

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Timeout is how long one subtest may run before its watchdog fails it (rows take
// milliseconds; the slowest about 2 s under -race on a loaded 2-core machine). A strategy
// whose Commit, Discard, Flush, Publish or recorder does not return fails the row with a
// message naming it and the goroutine stacks; the row's goroutine is left behind (Go cannot
// stop a goroutine) and the suite goes on with the next row. Near the test binary's deadline
// (go test -timeout) a row gets less: an eighth of the time left before a reserve of
// [DeadlineReserve], so that however many rows block, the binary reports every row before go
// test kills it; a row started inside the reserve fails at once, saying so.
var Timeout = 20 * time.Second

// DeadlineReserve is the time before the test binary's deadline that no row's watchdog
// reaches into: what the rest of the binary needs to report.
var DeadlineReserve = 15 * time.Second

// stackLimit bounds the goroutine dump of a row that did not finish, in bytes.
const stackLimit = 64 << 10

// expiries counts the rows whose watchdog fired in this process; each left a goroutine that
// may spin, holding a P, so the watchdog raises GOMAXPROCS by one for each (at most
// maxExtraProcs) and the rows after it keep the Ps they had.
var expiries struct {
	sync.Mutex
	n int
}

const maxExtraProcs = 16

// rowTimeout returns how long a row started now may run in t: Timeout, or less near t's
// deadline; ok is false when the row starts inside the deadline's reserve.
func rowTimeout(t testing.TB, timeout time.Duration) (d time.Duration, ok bool) {
	dt, has := t.(interface{ Deadline() (time.Time, bool) })
	if !has {
		return timeout, true
	}
	deadline, set := dt.Deadline()
	if !set {
		return timeout, true
	}
	left := time.Until(deadline) - DeadlineReserve
	if left <= 0 {
		return 0, false
	}
	return min(timeout, left/8), true
}

// runCheck runs c on its own goroutine with a fresh fixture and waits for it, at most
// timeout (see Timeout). It reports a panic of the strategy as a failure, not a crash.
func runCheck(t testing.TB, f Factory, c check, seed uint64, timeout time.Duration) {
	t.Helper()
	watch(t, c.name, timeout, func(ct *checkT) *fixture {
		x := newFixture(ct, f, seed, c.storage)
		x.v = c.v
		return x
	}, c.fn)
}

// watch runs fn on its own goroutine with the fixture mk makes and waits for it, at most
// timeout (see Timeout), failing t with the goroutine stacks, and the row's name, when it
// does not finish. A panic is a failure, not a crash.
func watch(t testing.TB, name string, timeout time.Duration, mk func(ct *checkT) *fixture, fn func(x *fixture)) {
	t.Helper()
	d, ok := rowTimeout(t, timeout)
	if !ok {
		t.Errorf("%s: not run: the test binary's deadline is less than %v away (earlier rows blocked; raise go test -timeout or fix them)", name, DeadlineReserve)
		return
	}
	ct := &checkT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		x := mk(ct)
		defer x.finish()
		defer x.recoverPanic("check")
		fn(x)
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		ct.expire()
		buf := make([]byte, stackLimit)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%s: did not finish within %v (a commit, discard, flush, publish or recorder blocked or spins?); its goroutine is left running and the suite goes on; goroutines (first %d KiB):\n%s", name, d, stackLimit>>10, buf)
		spareProc()
	}
}

// leftBehind returns how many Ps the watchdog added for goroutines that expired rows left
// running.
func leftBehind() int {
	expiries.Lock()
	defer expiries.Unlock()
	return expiries.n
}

// spareProc gives the process one more P for the goroutine a fired watchdog left behind.
func spareProc() {
	expiries.Lock()
	defer expiries.Unlock()
	if expiries.n < maxExtraProcs {
		expiries.n++
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	}
}

// checkT is the testing.TB a check runs with: it forwards to the subtest's TB until the
// watchdog expires it, then drops everything, so a hung check that wakes up later cannot
// report into a finished test. FailNow ends the check's goroutine.
type checkT struct {
	testing.TB
	mu      sync.Mutex
	expired bool
}

func (c *checkT) live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.expired
}

func (c *checkT) expire() {
	c.mu.Lock()
	c.expired = true
	c.mu.Unlock()
}

func (c *checkT) Errorf(format string, args ...any) {
	c.TB.Helper()
	if c.live() {
		c.TB.Errorf(format, args...)
	}
}

func (c *checkT) Error(args ...any) {
	c.TB.Helper()
	if c.live() {
		c.TB.Error(args...)
	}
}

func (c *checkT) Fail() {
	if c.live() {
		c.TB.Fail()
	}
}

func (c *checkT) FailNow() {
	c.Fail()
	runtime.Goexit()
}

func (c *checkT) Fatalf(format string, args ...any) {
	c.TB.Helper()
	c.Errorf(format, args...)
	runtime.Goexit()
}

func (c *checkT) Fatal(args ...any) {
	c.TB.Helper()
	c.Error(args...)
	runtime.Goexit()
}

func (c *checkT) Logf(format string, args ...any) {
	c.TB.Helper()
	if c.live() {
		c.TB.Logf(format, args...)
	}
}

func (c *checkT) Log(args ...any) {
	c.TB.Helper()
	if c.live() {
		c.TB.Log(args...)
	}
}

func (c *checkT) Skipf(format string, args ...any) {
	c.TB.Helper()
	c.Fatalf("skip is not allowed in the conformance suite (nothing is silently skipped): "+format, args...)
}

func (c *checkT) Skip(args ...any) {
	c.TB.Helper()
	c.Fatalf("skip is not allowed in the conformance suite: %s", fmt.Sprint(args...))
}

func (c *checkT) SkipNow() { c.Skip() }
