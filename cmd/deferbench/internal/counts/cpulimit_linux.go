package counts

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// limitCPU sets process pid's RLIMIT_CPU to d (whole seconds, at least 1): the kernel sends
// SIGXCPU when the process has used that much processor time and SIGKILL a second later.
// Failing to set it leaves only the wall-time bound.
func limitCPU(pid int, d time.Duration) {
	s := uint64(max(1, (d+time.Second-1)/time.Second))
	_ = unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: s, Max: s + 1}, nil)
}

// overCPU reports whether the process ended by limitCPU's limit: by SIGXCPU, which the kernel
// sends at the soft limit, or by a signal after using at least limit of processor time (the
// SIGKILL at the hard limit). The times in the wait status can read a little under the limit
// the kernel enforced, so SIGXCPU alone is enough.
func overCPU(ps interface {
	Sys() any
	UserTime() time.Duration
	SystemTime() time.Duration
}, limit time.Duration) bool {
	if ps == nil {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	if ws.Signal() == syscall.SIGXCPU { // the kernel's signal for a process over RLIMIT_CPU
		return true
	}
	limit = max(time.Second, limit.Truncate(time.Second))
	return ps.UserTime()+ps.SystemTime() >= limit-100*time.Millisecond // SIGKILL, a second later
}
