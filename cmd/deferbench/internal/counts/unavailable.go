package counts

// Reason classifies why counters are unavailable.
type Reason string

// The reasons of an Unavailable.
const (
	NoPMU       Reason = "no-pmu"      // the kernel exposes no CPU PMU (a VM, a container)
	Paranoid    Reason = "paranoid"    // kernel.perf_event_paranoid forbids it
	NoSyscall   Reason = "no-syscall"  // perf_event_open is missing or blocked (seccomp)
	Unsupported Reason = "unsupported" // the PMU does not offer a required event
	OtherReason Reason = "open-failed" // anything else; Err says what
	NotLinux    Reason = "not-linux"   // perf_event_open is Linux's
)

// Unavailable is the error Open and Probe return when counters cannot be read. Detail is
// one line for env.json, e.g. "no PMU under /sys/bus/event_source/devices (breakpoint msr
// software tracepoint uprobe): hardware counters are not exposed to this machine".
type Unavailable struct {
	Reason Reason
	Detail string
	Err    error // the system call's error, when there was one
}

func (u *Unavailable) Error() string { return "hardware counters unavailable: " + u.Detail }

func (u *Unavailable) Unwrap() error { return u.Err }

// Event is one perf_event_open counter.
type Event struct {
	Name   string // perf's name: "cycles", "task-clock"
	Unit   string // the per-op unit its count is reported in
	Type   uint32 // PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE
	Config uint64 // PERF_COUNT_HW_* or PERF_COUNT_SW_*
	// Optional events are left out when the PMU does not offer them; a required one that
	// cannot be opened makes Open fail.
	Optional bool
}

// PerOp is a counted row from counters: per event unit, the count per op, and IPC when both
// cycles and instructions were counted.
type PerOp map[string]float64
