//go:build linux

package counts

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The counters the count tier reads. Cycles and instructions are required of a PMU; branch
// and cache misses are read where it offers them.
var (
	Cycles       = Event{Name: "cycles", Unit: CyclesUnit, Type: unix.PERF_TYPE_HARDWARE, Config: unix.PERF_COUNT_HW_CPU_CYCLES}
	Instructions = Event{Name: "instructions", Unit: HWInstrUnit, Type: unix.PERF_TYPE_HARDWARE, Config: unix.PERF_COUNT_HW_INSTRUCTIONS}
	BranchMisses = Event{Name: "branch-misses", Unit: BranchMissUnit, Type: unix.PERF_TYPE_HARDWARE, Config: unix.PERF_COUNT_HW_BRANCH_MISSES, Optional: true}
	CacheMisses  = Event{Name: "cache-misses", Unit: CacheMissUnit, Type: unix.PERF_TYPE_HARDWARE, Config: unix.PERF_COUNT_HW_CACHE_MISSES, Optional: true}
	TaskClock    = Event{Name: "task-clock", Unit: TaskClockUnit, Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_TASK_CLOCK}
	PageFaults   = Event{Name: "page-faults", Unit: PageFaultUnit, Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_PAGE_FAULTS}

	// HardwareEvents are the PMU's counters. Not yet run on a board with a PMU: the code
	// path is the one SoftwareEvents exercise in the tests.
	HardwareEvents = []Event{Cycles, Instructions, BranchMisses, CacheMisses}
	// SoftwareEvents are the kernel's own counters, present wherever perf_event_open is.
	SoftwareEvents = []Event{TaskClock, PageFaults}
)

// EventSet returns the events of a set by name: HardwareSet or SoftwareSet.
func EventSet(name string) ([]Event, error) {
	switch name {
	case HardwareSet:
		return HardwareEvents, nil
	case SoftwareSet:
		return SoftwareEvents, nil
	}
	return nil, fmt.Errorf("event set %q: want %s or %s", name, HardwareSet, SoftwareSet)
}

// pmuDir is where the kernel lists its event sources; a PMU appears as cpu (or cpu_core,
// cpu_atom on hybrid x86, armv8_* on ARM) beside software, tracepoint, breakpoint.
var pmuDir = "/sys/bus/event_source/devices"

// paranoidPath holds kernel.perf_event_paranoid.
var paranoidPath = "/proc/sys/kernel/perf_event_paranoid"

// Probe reports whether hardware counters can be read here: nil, or an *Unavailable with the
// reason (no PMU exposed, perf_event_paranoid refusing, the cycles counter failing to open).
func Probe() error {
	c, err := Open(HardwareEvents[:2], false)
	if err != nil {
		return err
	}
	return c.Close()
}

// Counters are open perf_event_open counters, one per event and thread, summed per event.
// They are not safe for concurrent use.
type Counters struct {
	Events []Event // the events that opened, in the order asked
	fds    [][]int // per event, per thread
}

// Values is one reading: per event (in the order of Counters.Events) the count, scaled by
// time enabled over time running when the kernel multiplexed the counter.
type Values []float64

// Open opens counters for events, counting user space only, on the calling thread (process
// false: the caller must hold it with runtime.LockOSThread while counting) or on every thread
// of the process that exists at the call (process true: threads started later are not
// counted; Go keeps its threads, so warm the work up first). The counters start at 0 and
// count at once. Optional events the PMU lacks are left out of Counters.Events. Where
// counters cannot be opened at all the error is an *Unavailable.
func Open(events []Event, process bool) (*Counters, error) {
	tids := []int{0}
	if process {
		var err error
		if tids, err = threads(); err != nil {
			return nil, err
		}
	}
	c := &Counters{}
	for _, e := range events {
		var fds []int
		var err error
		for _, tid := range tids {
			var fd int
			if fd, err = openOne(e, tid); err != nil {
				break
			}
			fds = append(fds, fd)
		}
		if err != nil {
			for _, fd := range fds {
				unix.Close(fd)
			}
			if errors.Is(err, unix.ESRCH) && process {
				continue // a thread exited meanwhile: nothing of it to count
			}
			if e.Optional && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EINVAL)) {
				continue
			}
			c.Close()
			return nil, unavailable(e, err)
		}
		c.Events = append(c.Events, e)
		c.fds = append(c.fds, fds)
	}
	return c, nil
}

func openOne(e Event, tid int) (int, error) {
	attr := unix.PerfEventAttr{
		Type:        e.Type,
		Size:        uint32(binary.Size(unix.PerfEventAttr{})),
		Config:      e.Config,
		Read_format: unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING,
		Bits:        unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
	}
	return unix.PerfEventOpen(&attr, tid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
}

// unavailable explains why event e failed to open with err.
func unavailable(e Event, err error) *Unavailable {
	u := &Unavailable{Err: err, Reason: OtherReason}
	switch {
	case e.Type == unix.PERF_TYPE_HARDWARE && !hasPMU():
		u.Reason = NoPMU
		u.Detail = fmt.Sprintf("no CPU PMU under %s (%s): this machine (a VM or container, most likely) exposes no hardware counters", pmuDir, pmuList())
	case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
		u.Reason = Paranoid
		u.Detail = fmt.Sprintf("perf_event_open(%s): %v with kernel.perf_event_paranoid=%s; sysctl kernel.perf_event_paranoid=2 (or lower) allows counting one's own threads", e.Name, err, paranoidLevel())
	case errors.Is(err, unix.ENOSYS):
		u.Reason = NoSyscall
		u.Detail = fmt.Sprintf("perf_event_open(%s): %v: the system call is missing or blocked (a seccomp profile?)", e.Name, err)
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP):
		u.Reason = Unsupported
		u.Detail = fmt.Sprintf("perf_event_open(%s): %v: the PMU does not count %s", e.Name, err, e.Name)
	default:
		u.Detail = fmt.Sprintf("perf_event_open(%s): %v", e.Name, err)
	}
	return u
}

// hasPMU reports whether the kernel lists an event source other than its own (software,
// tracepoint, breakpoint, kprobe, uprobe, msr): a CPU's PMU.
func hasPMU() bool {
	for _, n := range strings.Fields(pmuList()) {
		switch n {
		case "software", "tracepoint", "breakpoint", "kprobe", "uprobe", "msr", "power":
		default:
			return true
		}
	}
	return false
}

func pmuList() string {
	ents, err := os.ReadDir(pmuDir)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	var ns []string
	for _, e := range ents {
		ns = append(ns, e.Name())
	}
	return strings.Join(ns, " ")
}

func paranoidLevel() string {
	b, err := os.ReadFile(paranoidPath)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// threads lists the thread ids of this process.
func threads() ([]int, error) {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(os.Getpid()), "task"))
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// Read returns the counts so far.
func (c *Counters) Read() (Values, error) {
	v := make(Values, len(c.Events))
	var buf [24]byte
	for i, fds := range c.fds {
		for _, fd := range fds {
			n, err := unix.Read(fd, buf[:])
			if err != nil || n != len(buf) {
				return nil, fmt.Errorf("read %s counter: %d bytes, %v", c.Events[i].Name, n, err)
			}
			val := binary.NativeEndian.Uint64(buf[0:])
			enabled := binary.NativeEndian.Uint64(buf[8:])
			running := binary.NativeEndian.Uint64(buf[16:])
			x := float64(val)
			if running > 0 && running < enabled {
				x *= float64(enabled) / float64(running)
			}
			v[i] += x
		}
	}
	return v, nil
}

// Close closes the counters.
func (c *Counters) Close() error {
	var first error
	for _, fds := range c.fds {
		for _, fd := range fds {
			if err := unix.Close(fd); err != nil && first == nil {
				first = err
			}
		}
	}
	c.fds = nil
	return first
}

// measureRounds is how many times MeasureOps counts each iteration count.
const measureRounds = 3

// MeasureOps counts run(n) at low and high iterations with counters on events and returns the
// counts per op, (C(high) − C(low)) / (high − low), each C the least of measureRounds counts.
// run is called once at low first, untimed,
// to warm up (and to start the threads it needs); then the counters open, on the calling
// thread (process false; MeasureOps locks it for the duration) or every thread of the process
// (process true). An *Unavailable says why counters cannot be read.
func MeasureOps(events []Event, process bool, low, high int, run func(n int) error) (PerOp, error) {
	if low < 1 || high <= low {
		return nil, fmt.Errorf("iteration counts %d and %d: want 1 ≤ low < high", low, high)
	}
	if !process {
		// Counting the calling thread only: the work must stay on it. Counting the process
		// the caller stays unlocked: a locked thread that waits for the benchmark's goroutine
		// hands its P to another thread, which the runtime may start after the counters
		// opened, so that the work went uncounted (task-clock per op read about −0.3 ns
		// instead of 12 ns in about one run in four).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	if err := run(low); err != nil {
		return nil, err
	}
	c, err := Open(events, process)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	// Each count is taken measureRounds times and the least kept: what disturbs a count
	// (another process's cache traffic, a page fault, a runtime thread waking) only adds to it.
	var deltas [2]Values
	for range measureRounds {
		for i, n := range []int{low, high} {
			v0, err := c.Read()
			if err != nil {
				return nil, err
			}
			if err := run(n); err != nil {
				return nil, err
			}
			v1, err := c.Read()
			if err != nil {
				return nil, err
			}
			for j := range v1 {
				v1[j] -= v0[j]
			}
			if deltas[i] == nil {
				deltas[i] = v1
				continue
			}
			for j := range v1 {
				deltas[i][j] = min(deltas[i][j], v1[j])
			}
		}
	}
	out := PerOp{}
	for j, e := range c.Events {
		x := (deltas[1][j] - deltas[0][j]) / float64(high-low)
		out[e.Unit] = x
	}
	if cy, ok := out[CyclesUnit]; ok && cy > 0 {
		if in, ok := out[HWInstrUnit]; ok {
			out[IPCUnit] = in / cy
		}
	}
	return out, nil
}
