//go:build unix

package envinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCaptureBoundsVcgencmd puts a vcgencmd on PATH that never answers in one of the ways a
// wrapper can (a child holding its output, SIGTERM ignored, output that never ends) and checks
// that Capture returns within the documented 2 s per call, well before the 30 s the children
// sleep, and reports the firmware fields as Unknown.
func TestCaptureBoundsVcgencmd(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tests := []struct{ name, script string }{
		// The wrapper waits for a child that holds stdout (sudo over a hung tool).
		{"held-stdout/wrapper-waits", "sleep 30 &\nwait"},
		// The wrapper answers and exits; a child it started keeps stdout open.
		{"held-stdout/wrapper-exits", "sleep 30 &\necho 'frequency(48)=1500000000'"},
		{"ignores-term", "trap '' TERM\nsleep 30 &\nwait"},
		{"flood", "yes 'frequency(48)=1500000000'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "vcgencmd"), []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			start := time.Now()
			e := Capture()
			took := time.Since(start)
			t.Logf("Capture took %v", took.Round(time.Millisecond))
			// One call timing out (2 s + 2×200 ms to stop its group) and the second skipped,
			// or two calls ending in 200 ms each; 3 s of slack for a loaded machine.
			if bound := 2*time.Second + 400*time.Millisecond + 3*time.Second; took > bound {
				t.Errorf("Capture took %v with a vcgencmd that never answers, want under %v", took, bound)
			}
			if e.ARMClock != Unknown || e.Throttle.Raw != Unknown {
				t.Errorf("ARMClock, Throttle.Raw = %q, %q; want %q for a vcgencmd that did not answer", e.ARMClock, e.Throttle.Raw, Unknown)
			}
		})
	}
}
