//go:build !linux

package counts

func notLinux() error {
	return &Unavailable{Reason: NotLinux, Detail: "perf_event_open is Linux's: no hardware counters on this system"}
}

// Probe reports that counters are read on Linux only.
func Probe() error { return notLinux() }

// EventSet reports that counters are read on Linux only.
func EventSet(name string) ([]Event, error) { return nil, notLinux() }

// MeasureOps reports that counters are read on Linux only.
func MeasureOps(events []Event, process bool, low, high int, run func(n int) error) (PerOp, error) {
	return nil, notLinux()
}
