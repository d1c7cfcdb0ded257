package envinfo

import (
	"encoding/binary"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBrandName feeds brandName the CPUID leaves of a padded brand string and checks go
// test's trimming: leading spaces go, trailing padding stays, the first NUL ends it.
func TestBrandName(t *testing.T) {
	leaves := func(brand string) func(uint32) (uint32, uint32, uint32, uint32) {
		b := make([]byte, 48)
		copy(b, brand)
		return func(eax uint32) (uint32, uint32, uint32, uint32) {
			if eax == 0x80000000 {
				return 0x80000008, 0, 0, 0
			}
			w := b[(eax-0x80000002)*16:]
			return binary.LittleEndian.Uint32(w), binary.LittleEndian.Uint32(w[4:]), binary.LittleEndian.Uint32(w[8:]), binary.LittleEndian.Uint32(w[12:])
		}
	}
	for _, c := range []struct{ brand, want string }{
		{"Oxide Virtual Turin-like Processor              ", "Oxide Virtual Turin-like Processor              "},
		{"       Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"[:41]},
		{"AMD EPYC 7B13", "AMD EPYC 7B13"},
		{"Intel(R) Xeon(R) CPU @ 2.20GHz\x00junk", "Intel(R) Xeon(R) CPU @ 2.20GHz"},
	} {
		if got := brandName(leaves(c.brand)); got != c.want {
			t.Errorf("brandName(%q) = %q, want %q", c.brand, got, c.want)
		}
	}
	noBrand := func(uint32) (uint32, uint32, uint32, uint32) { return 0x80000001, 0, 0, 0 }
	if got := brandName(noBrand); got != "" {
		t.Errorf("brandName without leaves 0x80000002-4 = %q, want \"\"", got)
	}
}

// TestGoCPUInfoName checks the /proc/cpuinfo fallback go test uses where CPUID gives no name.
func TestGoCPUInfoName(t *testing.T) {
	for _, c := range []struct{ cpuinfo, want string }{
		{"processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2999.998\n", "AMD EPYC @ 2999.998MHz"},
		{"model name\t: Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz\ncpu MHz\t\t: 800.000\n", "Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz"},
		{"model name\t: ARMv7 Processor rev 3 (v7l)\n", "ARMv7 Processor rev 3 (v7l)"},
		{"processor\t: 0\nBogoMIPS\t: 108.00\nCPU part\t: 0xd0b\n", ""},
	} {
		if got := goCPUInfoName([]byte(c.cpuinfo)); got != c.want {
			t.Errorf("goCPUInfoName(%q) = %q, want %q", c.cpuinfo, got, c.want)
		}
	}
}

// BenchmarkCPULine does nothing: TestGoCPUNameMatchesGoTest runs it in a child to read the
// cpu line the testing package prints.
func BenchmarkCPULine(b *testing.B) {
	for b.Loop() {
	}
}

// TestGoCPUNameMatchesGoTest runs this test binary's BenchmarkCPULine in a child and checks
// that its "cpu:" line, printed by the testing package, is GoCPUName's value (or absent where
// GoCPUName is "").
func TestGoCPUNameMatchesGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child benchmark")
	}
	out, err := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkCPULine$", "-test.benchtime=1x").CombinedOutput()
	if err != nil {
		t.Skipf("cannot run the test binary as a child here: %v: %s", err, out)
	}
	var line string
	var found bool
	for l := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "cpu: "); ok {
			line, found = v, true
		}
	}
	if want := GoCPUName(); line != want || found != (want != "") {
		t.Errorf("go test's cpu line %q (present %v), GoCPUName %q", line, found, want)
	}
}
