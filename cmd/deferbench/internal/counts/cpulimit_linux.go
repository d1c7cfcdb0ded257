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

// overCPU reports whether the process ended by a signal after using at least limit of
// processor time (what limitCPU's limit does).
func overCPU(ps interface {
	Sys() any
	UserTime() time.Duration
	SystemTime() time.Duration
}, limit time.Duration) bool {
	if ps == nil {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	limit = max(time.Second, limit.Truncate(time.Second))
	return ok && ws.Signaled() && ps.UserTime()+ps.SystemTime() >= limit-100*time.Millisecond
}
