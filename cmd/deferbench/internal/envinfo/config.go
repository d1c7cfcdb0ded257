package envinfo

import (
	"bytes"
	"fmt"
	"strings"
)

// ConfigKeys are the keys [Env.ConfigLines] writes, in order. They describe
// the machine, not the benchmark, so comparisons across machines ignore
// them (benchstat -ignore).
var ConfigKeys = []string{"host-model", "kernel", "governor", "lse-atomics", "page-size", "throttled", "under-voltage", "emulated"}

// ConfigLines returns key/value pairs for bench.txt's file-level config
// (benchfmt File: true), keys as in [ConfigKeys]. "throttled" and
// "under-voltage" describe this capture alone: "yes" when the condition is
// active or occurred since boot, "no", or [Unknown] without get_throttled.
// For a run, use [RunConfigLines], which judges the run by [Throttled].
func (e Env) ConfigLines() [][2]string {
	throttled, under := Unknown, Unknown
	if bits, err := throttleBits(e.Throttle.Raw); err == nil {
		hit := bits | bits>>sinceBootShift
		throttled, under = yesNo(hit&throttleMask != 0), yesNo(hit&bitUnderVoltage != 0)
	}
	return [][2]string{
		{"host-model", configValue(e.Model)},
		{"kernel", configValue(e.Kernel)},
		{"governor", configValue(e.Governor)},
		{"lse-atomics", configValue(e.LSEAtomics)},
		{"page-size", configValue(e.PageSize)},
		{"throttled", throttled},
		{"under-voltage", under},
		{"emulated", orUnknown(e.Emulated, e.Emulated != "")},
	}
}

// RunConfigLines returns after.ConfigLines() with "throttled" and
// "under-voltage" set by [Throttled](before, after): "yes" or "no" for the
// run, or [Unknown] when either capture lacks get_throttled.
func RunConfigLines(before, after Env) [][2]string {
	lines := after.ConfigLines()
	_, e1 := throttleBits(before.Throttle.Raw)
	_, e2 := throttleBits(after.Throttle.Raw)
	th, uv := Throttled(before, after)
	for i := range lines {
		switch lines[i][0] {
		case "throttled":
			lines[i][1] = yesNo(th)
		case "under-voltage":
			lines[i][1] = yesNo(uv)
		default:
			continue
		}
		if e1 != nil || e2 != nil {
			lines[i][1] = Unknown
		}
	}
	return lines
}

// configValue makes s safe for one benchmark config line: no newlines, no
// leading or trailing space.
func configValue(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return Unknown
	}
	return s
}

// String returns e as one human-readable line per field group; callers who
// want the full record marshal it as JSON.
func (e Env) String() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s/%s %s, %s, %d cores, model %s", e.Hostname, e.GOOS, e.GOARCH, e.GoVersion, e.CPUModel, e.Cores, e.Model)
	fmt.Fprintf(&b, ", governor %s, arm clock %s, temp %s, throttled %s", e.Governor, e.ARMClock, e.Temperature, e.Throttle.Raw)
	return b.String()
}
