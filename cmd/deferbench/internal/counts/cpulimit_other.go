//go:build !linux

package counts

import "time"

// limitCPU does nothing where there is no prlimit: only the wall-time bound holds.
func limitCPU(pid int, d time.Duration) {}

// overCPU reports false: no processor-time limit is set here.
func overCPU(ps interface {
	Sys() any
	UserTime() time.Duration
	SystemTime() time.Duration
}, limit time.Duration) bool {
	return false
}
