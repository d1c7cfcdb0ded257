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
