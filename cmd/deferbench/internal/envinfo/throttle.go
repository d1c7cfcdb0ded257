package envinfo

import (
	"errors"
	"strconv"
	"strings"
)

// parseThrottledRaw extracts "0x50005" from "throttled=0x50005".
func parseThrottledRaw(out string) string {
	k, v, ok := strings.Cut(strings.TrimSpace(out), "=")
	if !ok || strings.TrimSpace(k) != "throttled" {
		return Unknown
	}
	v = strings.ToLower(strings.TrimSpace(v))
	if _, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 32); err != nil || !strings.HasPrefix(v, "0x") {
		return Unknown
	}
	return v
}

// decodeThrottle decodes a get_throttled value bit by bit; [Unknown] in
// gives [Unknown] flags.
func decodeThrottle(raw string) (now, sinceBoot ThrottleFlags) {
	bits, err := throttleBits(raw)
	if err != nil {
		u := ThrottleFlags{Unknown, Unknown, Unknown, Unknown}
		return u, u
	}
	flags := func(b uint64) ThrottleFlags {
		return ThrottleFlags{
			UnderVoltage:  yesNo(b&bitUnderVoltage != 0),
			FreqCapped:    yesNo(b&bitFreqCapped != 0),
			Throttled:     yesNo(b&bitThrottled != 0),
			SoftTempLimit: yesNo(b&bitSoftTempLimit != 0),
		}
	}
	return flags(bits), flags(bits >> sinceBootShift)
}

var errNoThrottle = errors.New("get_throttled unknown")

func throttleBits(raw string) (uint64, error) {
	if raw == Unknown || !strings.HasPrefix(raw, "0x") {
		return 0, errNoThrottle
	}
	return strconv.ParseUint(strings.TrimPrefix(raw, "0x"), 16, 32)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// throttleMask covers the conditions that slow the CPU: frequency capped,
// throttled, soft temperature limit.
const throttleMask = bitFreqCapped | bitThrottled | bitSoftTempLimit

// Throttled reports whether the firmware throttled the CPU (frequency
// capped, throttled or soft temperature limit) or saw under-voltage during
// a run that e captured before and after: a condition counts when it was
// active at either capture, or when its since-boot bit was clear before and
// set after. Both are false when either capture lacks get_throttled (not a
// Pi, or no vcgencmd); [Env.Throttle] then says [Unknown].
func Throttled(before, after Env) (throttled, underVoltage bool) {
	b, err1 := throttleBits(before.Throttle.Raw)
	a, err2 := throttleBits(after.Throttle.Raw)
	if err1 != nil || err2 != nil {
		return false, false
	}
	appeared := (a >> sinceBootShift) &^ (b >> sinceBootShift)
	hit := a | b | appeared
	return hit&throttleMask != 0, hit&bitUnderVoltage != 0
}
