//go:build !linux

package counts

// Probe reports that hardware counters are read on Linux only.
func Probe() error {
	return &Unavailable{Reason: NotLinux, Detail: "perf_event_open is Linux's: no hardware counters on this system"}
}
