// Package racetest lets a test leave the race detector's pass of make test when its work runs
// on one goroutine, where the detector has nothing to find but slows the work 10 to 15 times
// (drawing the report's plots, rebuilding a whole report from a reference run, the
// conformance suite's memory rows). make test runs the packages whose tests depend on this
// one, directly or through the conformance package, a second time without -race, and such a
// test runs there.
package racetest

import "testing"

// Enabled reports whether the test binary was built with -race.
const Enabled = enabled

// SkipSingleGoroutine skips t when the race detector is on; why says what t's work is (one
// goroutine's), for the skip message.
func SkipSingleGoroutine(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skipf("under -race: %s, where the race detector finds nothing and is 10-15x slower; make test runs it again without -race", why)
	}
}
