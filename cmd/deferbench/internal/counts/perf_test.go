//go:build linux

package counts

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

var spinSink atomic.Uint64

// spin does n units of work that the compiler cannot drop.
func spin(n int) {
	x := uint64(n)
	for i := range n * 1000 {
		x = x*6364136223846793005 + uint64(i)
	}
	spinSink.Add(x)
}

// openSoftware opens the software events or skips when perf_event_open itself is refused
// (a seccomp profile in a container): the code path under test needs the system call.
func openSoftware(t *testing.T, process bool) *Counters {
	t.Helper()
	c, err := Open(SoftwareEvents, process)
	var u *Unavailable
	if errors.As(err, &u) && (u.Reason == NoSyscall || u.Reason == Paranoid) {
		t.Skipf("perf_event_open refused here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Events) != len(SoftwareEvents) {
		t.Fatalf("opened %d events, want %d", len(c.Events), len(SoftwareEvents))
	}
	return c
}

// TestSoftwareCountersThread reads task-clock on the calling thread around work of two sizes:
// it must be positive and grow with the work.
func TestSoftwareCountersThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := openSoftware(t, false)
	defer c.Close()
	read := func(n int) float64 {
		v0, err := c.Read()
		if err != nil {
			t.Fatal(err)
		}
		spin(n)
		v1, err := c.Read()
		if err != nil {
			t.Fatal(err)
		}
		return v1[0] - v0[0]
	}
	small, large := read(2000), read(20000)
	t.Logf("task-clock: %.0f ns for 2M steps, %.0f ns for 20M", small, large)
	if small <= 0 {
		t.Fatalf("task-clock over 2M steps: %v ns, want > 0", small)
	}
	if large < 3*small {
		t.Errorf("task-clock: %v ns for 10× the work of %v ns, want at least 3×", large, small)
	}
}

// TestSoftwareCountersProcess counts every thread of the process while the work runs on
// other goroutines, and counts the page faults of fresh memory touched there.
func TestSoftwareCountersProcess(t *testing.T) {
	var wg sync.WaitGroup
	work := func(n int, touch int) {
		for range 2 {
			wg.Go(func() {
				spin(n)
				b := make([]byte, touch)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				runtime.KeepAlive(b)
			})
		}
		wg.Wait()
	}
	work(10, 1<<20) // start the threads before the counters open
	c := openSoftware(t, true)
	defer c.Close()
	v0, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	work(20000, 64<<20)
	v1, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	clock, faults := v1[0]-v0[0], v1[1]-v0[1]
	t.Logf("process: task-clock %.0f ns, page faults %.0f", clock, faults)
	if clock < 1e6 {
		t.Errorf("task-clock over two goroutines of 20M steps: %v ns, want ≥ 1 ms", clock)
	}
	if faults < 1 {
		t.Errorf("page faults touching 2 × 64 MiB of fresh memory: %v, want > 0", faults)
	}
}

// TestMeasureOpsSoftware runs the per-op path with software events: task-clock per op is
// positive and about proportional to the work per op.
func TestMeasureOpsSoftware(t *testing.T) {
	per := func(k int) float64 {
		p, err := MeasureOps(SoftwareEvents, false, 20, 220, func(n int) error {
			spin(n * k)
			return nil
		})
		var u *Unavailable
		if errors.As(err, &u) && (u.Reason == NoSyscall || u.Reason == Paranoid) {
			t.Skipf("perf_event_open refused here: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p[IPCUnit]; ok {
			t.Errorf("IPC without cycles and instructions: %v", p)
		}
		return p[TaskClockUnit]
	}
	one, four := per(10), per(40)
	if one <= 0 {
		t.Fatalf("task-clock-ns/op = %v, want > 0", one)
	}
	if four < 2*one {
		t.Errorf("task-clock-ns/op: %v for 4× the work of %v, want at least 2×", four, one)
	}
}

// TestProbeHardware: Probe either succeeds (a machine with a PMU: cycles and instructions
// then count) or says why not with a reason env.json can record.
func TestProbeHardware(t *testing.T) {
	err := Probe()
	if err == nil {
		p, err := MeasureOps(HardwareEvents, false, 10, 110, func(n int) error { spin(n); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if p[HWInstrUnit] <= 0 || p[CyclesUnit] <= 0 || p[IPCUnit] <= 0 {
			t.Errorf("hardware counters per op: %v, want positive instructions, cycles and IPC", p)
		}
		return
	}
	var u *Unavailable
	if !errors.As(err, &u) || u.Reason == "" || u.Detail == "" {
		t.Fatalf("Probe: %v (%T), want nil or an *Unavailable with a reason", err, err)
	}
	t.Logf("hardware counters: %s: %s", u.Reason, u.Detail)
}

// TestProbeNoPMU: with the PMU list pointed at a directory holding only the kernel's own
// sources, a hardware event that fails to open is reported as NoPMU.
func TestProbeNoPMU(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"software", "tracepoint", "breakpoint"} {
		if err := mkdir(dir, n); err != nil {
			t.Fatal(err)
		}
	}
	old := pmuDir
	pmuDir = dir
	defer func() { pmuDir = old }()
	u := unavailable(Cycles, errNoEnt)
	if u.Reason != NoPMU {
		t.Errorf("reason %q, want %q (%s)", u.Reason, NoPMU, u.Detail)
	}
	if err := mkdir(dir, "cpu"); err != nil {
		t.Fatal(err)
	}
	if u := unavailable(Cycles, errAccess); u.Reason != Paranoid {
		t.Errorf("with a cpu PMU and EACCES: reason %q, want %q", u.Reason, Paranoid)
	}
}
