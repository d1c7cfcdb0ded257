package envinfo_test

import (
	"fmt"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/envinfo"
)

// A Pi 4 recorded while under-voltage made the firmware throttle it: sysfs still
// reports the 1800 MHz maximum, the firmware clock shows the real 600 MHz.
func ExampleCaptureFrom() {
	e := envinfo.CaptureFrom("testdata/pi4-throttled")
	fmt.Println(e.Model, "/", e.CPUModel, "/ LSE atomics:", e.LSEAtomics)
	fmt.Println("sysfs max", e.Policies[0].MaxFreq, "/ firmware", e.ARMClock, "/", e.Temperature)
	fmt.Println("get_throttled", e.Throttle.Raw, "/ under-voltage now:", e.Throttle.Now.UnderVoltage,
		"/ throttled since boot:", e.Throttle.SinceBoot.Throttled)
	for _, kv := range e.ConfigLines() {
		fmt.Printf("%s: %s\n", kv[0], kv[1])
	}
	// Output:
	// Raspberry Pi 4 Model B Rev 1.4 / Cortex-A72 / LSE atomics: no
	// sysfs max 1800 MHz / firmware 600 MHz / 81.3 C
	// get_throttled 0x50005 / under-voltage now: yes / throttled since boot: yes
	// host-model: Raspberry Pi 4 Model B Rev 1.4
	// kernel: 6.6.51+rpt-rpi-v8
	// governor: ondemand
	// lse-atomics: no
	// page-size: 4096
	// throttled: yes
	// under-voltage: yes
	// emulated: unknown
}

// Throttled judges a run by the captures before and after it: a since-boot
// flag that was already set before the run does not mark the run.
func ExampleThrottled() {
	before := envinfo.Source{Run: replay("throttled=0x50000")}.Capture() // under-voltage earlier
	after := envinfo.Source{Run: replay("throttled=0x70000")}.Capture()  // frequency capped during the run
	throttled, underVoltage := envinfo.Throttled(before, after)
	fmt.Println("throttled:", throttled, "under-voltage:", underVoltage)
	// Output:
	// throttled: true under-voltage: false
}

// replay is a Runner that answers every vcgencmd call with out.
func replay(out string) envinfo.Runner {
	return func(string, ...string) (string, error) { return out, nil }
}
