package envinfo

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

func TestCaptureFromFixtures(t *testing.T) {
	tests := []struct {
		root string
		want Env // only the fields read from the root are compared
	}{
		{"pi4-throttled", Env{
			Hostname: "pi4", Kernel: "6.6.51+rpt-rpi-v8", CPUModel: "Cortex-A72",
			Model: "Raspberry Pi 4 Model B Rev 1.4", PageSize: "4096", LSEAtomics: "no",
			Governor: "ondemand",
			Policies: []Policy{{Name: "policy0", CPUs: "0 1 2 3", Governor: "ondemand",
				CurFreq: "600 MHz", MinFreq: "600 MHz", MaxFreq: "1800 MHz", HWMaxFreq: "1800 MHz"}},
			ARMClock: "600 MHz", Temperature: "81.3 C", ThermalZone: "cpu-thermal",
			Throttle: Throttle{Raw: "0x50005",
				Now:       ThrottleFlags{UnderVoltage: "yes", FreqCapped: "no", Throttled: "yes", SoftTempLimit: "no"},
				SinceBoot: ThrottleFlags{UnderVoltage: "yes", FreqCapped: "no", Throttled: "yes", SoftTempLimit: "no"}},
			LoadAvg: "0.52 0.31 0.12", Emulated: Unknown,
		}},
		{"pi5", Env{
			Hostname: "pi5", Kernel: "6.6.51+rpt-rpi-2712", CPUModel: "Cortex-A76",
			Model: "Raspberry Pi 5 Model B Rev 1.0", PageSize: "16384", LSEAtomics: "yes",
			Governor: "performance",
			Policies: []Policy{{Name: "policy0", CPUs: "0 1 2 3", Governor: "performance",
				CurFreq: "2400 MHz", MinFreq: "1500 MHz", MaxFreq: "2400 MHz", HWMaxFreq: "2400 MHz"}},
			ARMClock: "2400 MHz", Temperature: "52.6 C", ThermalZone: "cpu-thermal",
			Throttle: Throttle{Raw: "0x0",
				Now:       ThrottleFlags{UnderVoltage: "no", FreqCapped: "no", Throttled: "no", SoftTempLimit: "no"},
				SinceBoot: ThrottleFlags{UnderVoltage: "no", FreqCapped: "no", Throttled: "no", SoftTempLimit: "no"}},
			LoadAvg: "0.03 0.08 0.02", Emulated: Unknown,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			got := CaptureFrom(filepath.Join("testdata", tt.root))
			got.CapturedAt, got.GoVersion, got.GOOS, got.GOARCH, got.Cores, got.GOMAXPROCS = "", "", "", "", 0, 0
			gj, _ := json.MarshalIndent(got, "", "  ")
			wj, _ := json.MarshalIndent(tt.want, "", "  ")
			if string(gj) != string(wj) {
				t.Errorf("CaptureFrom(%q):\ngot  %s\nwant %s", tt.root, gj, wj)
			}
		})
	}
}

// runner answers vcgencmd calls from a map keyed by the joined arguments.
func runner(answers map[string]string) Runner {
	return func(name string, args ...string) (string, error) {
		out, ok := answers[strings.Join(append([]string{name}, args...), " ")]
		if !ok {
			return "", errors.New("not found")
		}
		return out, nil
	}
}

func TestThrottleDecoding(t *testing.T) {
	y, n, u := "yes", "no", Unknown
	tests := []struct {
		out            string
		raw            string
		now, sinceBoot ThrottleFlags
	}{
		{"throttled=0x0\n", "0x0", ThrottleFlags{n, n, n, n}, ThrottleFlags{n, n, n, n}},
		{"throttled=0x50005\n", "0x50005", ThrottleFlags{y, n, y, n}, ThrottleFlags{y, n, y, n}},
		{"throttled=0x50000\n", "0x50000", ThrottleFlags{n, n, n, n}, ThrottleFlags{y, n, y, n}},
		{"throttled=0x1\n", "0x1", ThrottleFlags{y, n, n, n}, ThrottleFlags{n, n, n, n}},
		{"throttled=0x2\n", "0x2", ThrottleFlags{n, y, n, n}, ThrottleFlags{n, n, n, n}},
		{"throttled=0x8\n", "0x8", ThrottleFlags{n, n, n, y}, ThrottleFlags{n, n, n, n}},
		{"throttled=0x20000\n", "0x20000", ThrottleFlags{n, n, n, n}, ThrottleFlags{n, y, n, n}},
		{"throttled=0x80008\n", "0x80008", ThrottleFlags{n, n, n, y}, ThrottleFlags{n, n, n, y}},
		{"throttled=0xF000F\n", "0xf000f", ThrottleFlags{y, y, y, y}, ThrottleFlags{y, y, y, y}},
		{"error=1 error_msg=\"Command not registered\"\n", u, ThrottleFlags{u, u, u, u}, ThrottleFlags{u, u, u, u}},
		{"throttled=garbage\n", u, ThrottleFlags{u, u, u, u}, ThrottleFlags{u, u, u, u}},
	}
	for _, tt := range tests {
		e := Source{Root: t.TempDir(), Run: runner(map[string]string{"vcgencmd get_throttled": tt.out})}.Capture()
		if e.Throttle.Raw != tt.raw || e.Throttle.Now != tt.now || e.Throttle.SinceBoot != tt.sinceBoot {
			t.Errorf("get_throttled %q: got %+v, want raw %s now %+v since boot %+v",
				tt.out, e.Throttle, tt.raw, tt.now, tt.sinceBoot)
		}
		if e.ARMClock != Unknown {
			t.Errorf("get_throttled %q: ARMClock = %q without measure_clock, want %q", tt.out, e.ARMClock, Unknown)
		}
	}
}

func withThrottle(raw string) Env {
	var e Env
	e.Throttle.Raw = raw
	return e
}

func TestThrottled(t *testing.T) {
	tests := []struct {
		before, after           string
		throttled, underVoltage bool
	}{
		{"0x0", "0x0", false, false},
		{"0x0", "0x50000", true, true},       // both occurred during the run
		{"0x50000", "0x50000", false, false}, // happened before the run, not during it
		{"0x50000", "0x50005", true, true},   // active at the end
		{"0x4", "0x40000", true, false},      // active at the start
		{"0x10000", "0x30000", true, false},  // frequency capping appeared during the run
		{"0x0", "0x80000", true, false},      // soft temperature limit during the run
		{"0x0", "0x10000", false, true},      // only under-voltage
		{Unknown, "0x50005", false, false},
		{"0x50005", Unknown, false, false},
		{Unknown, Unknown, false, false},
	}
	for _, tt := range tests {
		th, uv := Throttled(withThrottle(tt.before), withThrottle(tt.after))
		if th != tt.throttled || uv != tt.underVoltage {
			t.Errorf("Throttled(%s, %s) = %v, %v; want %v, %v", tt.before, tt.after, th, uv, tt.throttled, tt.underVoltage)
		}
	}
}

func configMap(lines [][2]string) map[string]string {
	m := map[string]string{}
	for _, kv := range lines {
		m[kv[0]] = kv[1]
	}
	return m
}

func TestConfigLines(t *testing.T) {
	pi4 := CaptureFrom(filepath.Join("testdata", "pi4-throttled"))
	lines := pi4.ConfigLines()
	var keys []string
	for _, kv := range lines {
		keys = append(keys, kv[0])
		if kv[1] == "" || strings.ContainsAny(kv[1], "\n\r") || strings.TrimSpace(kv[1]) != kv[1] {
			t.Errorf("config %s = %q: want a non-empty single-line trimmed value", kv[0], kv[1])
		}
	}
	if !slices.Equal(keys, ConfigKeys) {
		t.Errorf("ConfigLines keys = %v, want %v", keys, ConfigKeys)
	}
	want := map[string]string{
		"host-model": "Raspberry Pi 4 Model B Rev 1.4", "kernel": "6.6.51+rpt-rpi-v8", "governor": "ondemand",
		"lse-atomics": "no", "page-size": "4096", "throttled": "yes", "under-voltage": "yes",
		"emulated": Unknown,
	}
	if got := configMap(lines); !mapsEqual(got, want) {
		t.Errorf("pi4 ConfigLines = %v, want %v", got, want)
	}
	pi5 := configMap(CaptureFrom(filepath.Join("testdata", "pi5")).ConfigLines())
	if pi5["lse-atomics"] != "yes" || pi5["throttled"] != "no" || pi5["under-voltage"] != "no" || pi5["page-size"] != "16384" {
		t.Errorf("pi5 ConfigLines = %v, want lse-atomics yes, throttled no, under-voltage no, page-size 16384", pi5)
	}
	empty := configMap(CaptureFrom(t.TempDir()).ConfigLines())
	for _, k := range ConfigKeys {
		if empty[k] != Unknown {
			t.Errorf("empty root: config %s = %q, want %q", k, empty[k], Unknown)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRunConfigLines(t *testing.T) {
	tests := []struct {
		before, after          string
		throttled, underVoltag string
	}{
		{"0x50000", "0x50000", "no", "no"}, // the snapshot alone would say yes
		{"0x0", "0x50000", "yes", "yes"},
		{"0x0", "0x20002", "yes", "no"},
		{Unknown, "0x0", Unknown, Unknown},
	}
	for _, tt := range tests {
		m := configMap(RunConfigLines(withThrottle(tt.before), withThrottle(tt.after)))
		if m["throttled"] != tt.throttled || m["under-voltage"] != tt.underVoltag {
			t.Errorf("RunConfigLines(%s, %s): throttled %q under-voltage %q; want %q %q",
				tt.before, tt.after, m["throttled"], m["under-voltage"], tt.throttled, tt.underVoltag)
		}
	}
}

func TestCaptureFromEmptyRootIsUnknown(t *testing.T) {
	e := CaptureFrom(t.TempDir())
	for name, v := range map[string]string{
		"Hostname": e.Hostname, "Kernel": e.Kernel, "CPUModel": e.CPUModel, "Model": e.Model,
		"PageSize": e.PageSize, "LSEAtomics": e.LSEAtomics, "Governor": e.Governor, "ARMClock": e.ARMClock,
		"Temperature": e.Temperature, "ThermalZone": e.ThermalZone, "Throttle.Raw": e.Throttle.Raw,
		"Throttle.Now.UnderVoltage": e.Throttle.Now.UnderVoltage, "LoadAvg": e.LoadAvg,
	} {
		if v != Unknown {
			t.Errorf("empty root: %s = %q, want %q", name, v, Unknown)
		}
	}
	if len(e.Policies) != 0 {
		t.Errorf("empty root: Policies = %v, want none", e.Policies)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	if !strings.Contains(string(b), `"cpufreq_policies":[]`) {
		t.Errorf("json = %s, want an empty cpufreq_policies list, not null", b)
	}
}

func TestParseCPUInfo(t *testing.T) {
	tests := []struct {
		name, cpuinfo, model, lse string
	}{
		{"x86", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2 avx2\n", "AMD EPYC 7B13", NotApplicable},
		{"pi4 32-bit", "processor\t: 0\nmodel name\t: ARMv7 Processor rev 3 (v7l)\nFeatures\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae evtstrm crc32\nCPU implementer\t: 0x41\nCPU part\t: 0xd08\n", "ARMv7 Processor rev 3 (v7l)", "no"},
		{"unlisted part", "processor\t: 0\nFeatures\t: fp asimd atomics\nCPU implementer\t: 0x61\nCPU part\t: 0x022\n", "implementer 0x61 part 0x022", "yes"},
		{"atomics as substring only", "Features\t: fp asimd atomicsx\nCPU implementer\t: 0x41\nCPU part\t: 0xd03\n", "Cortex-A53", "no"},
		{"garbage", "nothing useful here\n", Unknown, Unknown},
	}
	for _, tt := range tests {
		model, lse := parseCPUInfo(tt.cpuinfo)
		if model != tt.model || lse != tt.lse {
			t.Errorf("%s: parseCPUInfo = %q, %q; want %q, %q", tt.name, model, lse, tt.model, tt.lse)
		}
	}
}

func TestGovernorPerPolicy(t *testing.T) {
	root := t.TempDir()
	for policy, gov := range map[string]string{"policy0": "schedutil", "policy4": "performance"} {
		dir := filepath.Join(root, "sys/devices/system/cpu/cpufreq", policy)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "scaling_governor"), []byte(gov+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := CaptureFrom(root)
	if want := "policy0=schedutil,policy4=performance"; e.Governor != want {
		t.Errorf("Governor = %q, want %q", e.Governor, want)
	}
	if len(e.Policies) != 2 || e.Policies[1].CurFreq != Unknown || e.Policies[1].CPUs != Unknown {
		t.Errorf("Policies = %+v, want 2 with unknown frequencies and cpus", e.Policies)
	}
}

func TestMeasureClock(t *testing.T) {
	for out, want := range map[string]string{
		"frequency(48)=1500345728\n": "1500 MHz",
		"frequency(0)=0\n":           Unknown,
		"garbage\n":                  Unknown,
	} {
		e := Source{Root: t.TempDir(), Run: runner(map[string]string{"vcgencmd measure_clock arm": out})}.Capture()
		if e.ARMClock != want {
			t.Errorf("measure_clock %q: ARMClock = %q, want %q", out, e.ARMClock, want)
		}
	}
}

// TestCaptureHost checks that on a machine that is not a Pi the Pi-only
// fields say unknown rather than a guess.
func TestCaptureHost(t *testing.T) {
	if _, err := os.Stat("/proc/device-tree/model"); err == nil {
		t.Skip("this machine has a device tree; the Pi-only fields are known here")
	}
	e := Capture()
	for name, v := range map[string]string{
		"Model": e.Model, "ARMClock": e.ARMClock, "Throttle.Raw": e.Throttle.Raw,
		"Throttle.Now.Throttled": e.Throttle.Now.Throttled, "Throttle.SinceBoot.UnderVoltage": e.Throttle.SinceBoot.UnderVoltage,
	} {
		if v != Unknown {
			t.Errorf("Capture: %s = %q on a machine without a device tree, want %q", name, v, Unknown)
		}
	}
	if e.Cores < 1 || e.GOMAXPROCS < 1 || e.GoVersion == "" || e.GOARCH == "" {
		t.Errorf("Capture: Go fields not filled: %+v", e)
	}
	if th, uv := Throttled(e, Capture()); th || uv {
		t.Errorf("Throttled without get_throttled = %v, %v; want false, false", th, uv)
	}
	m := configMap(e.ConfigLines())
	if m["host-model"] != Unknown || m["throttled"] != Unknown {
		t.Errorf("ConfigLines on a non-Pi = %v, want host-model and throttled %q", m, Unknown)
	}
}

func TestReplayRunnerMissing(t *testing.T) {
	if _, err := ReplayRunner(t.TempDir())("vcgencmd", "get_throttled"); err == nil {
		t.Error("ReplayRunner on a root without cmd/vcgencmd: want an error, got nil")
	}
}

// TestLSEAtomicsLive checks the live capture against the CPU: on arm64 it is
// the runtime's view of AT_HWCAP (golang.org/x/sys/cpu), yes or no, never n/a,
// and on a machine that is not emulated it agrees with /proc/cpuinfo Features;
// elsewhere it is not "yes".
func TestLSEAtomicsLive(t *testing.T) {
	e := Capture()
	switch runtime.GOARCH {
	case "arm64":
		if want := yesNo(cpu.ARM64.HasATOMICS); e.LSEAtomics != want {
			t.Errorf("LSEAtomics on arm64 = %q, want %q (ARM64.HasATOMICS)", e.LSEAtomics, want)
		}
		if b, err := os.ReadFile("/proc/cpuinfo"); err == nil && e.Emulated == "no" {
			if _, lse := parseCPUInfo(string(b)); (lse == "yes" || lse == "no") && lse != e.LSEAtomics {
				t.Errorf("LSEAtomics on arm64 = %q, but /proc/cpuinfo Features say %q", e.LSEAtomics, lse)
			}
		}
	default:
		if e.LSEAtomics == "yes" {
			t.Errorf("LSEAtomics on %s = yes, want no, n/a or unknown", runtime.GOARCH)
		}
	}
}

// TestDetectEmulation covers the two signs of a user-mode emulator: the process's command
// name (qemu-aarch64-static runs the binary in its own process) and a /proc/cpuinfo of
// another architecture family than the binary's (qemu-user passes the host's through).
func TestDetectEmulation(t *testing.T) {
	x86 := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme sse sse2\n"
	arm := "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd atomics\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n"
	qemu := "Name:\tqemu-aarch64-st\nUmask:\t0022\nState:\tR (running)\n"
	native := "Name:\tdeferbench\nUmask:\t0022\n"
	for _, tt := range []struct {
		goarch, cpuinfo, status, want string
	}{
		{"arm64", x86, qemu, "yes"},
		{"arm64", x86, native, "yes"}, // binfmt under another name: cpuinfo still tells
		{"arm", x86, "", "yes"},
		{"amd64", arm, "", "yes"},
		{"", x86, qemu, "yes"}, // a replayed capture: the command name alone
		{"arm64", arm, native, "no"},
		{"amd64", x86, native, "no"},
		{"386", x86, "", "no"},
		{"arm64", "", native, Unknown},
		{"", x86, native, Unknown},
		{"riscv64", x86, native, Unknown},
	} {
		if got := DetectEmulation(tt.goarch, tt.cpuinfo, tt.status); got != tt.want {
			t.Errorf("DetectEmulation(%q, %.20q…, %.20q…) = %q, want %q", tt.goarch, tt.cpuinfo, tt.status, got, tt.want)
		}
	}
	// A live capture on this machine says yes or no, never unknown, where /proc is readable.
	if _, err := os.Stat("/proc/cpuinfo"); err == nil && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
		if e := Capture(); e.Emulated == Unknown {
			t.Errorf("Capture().Emulated = %q on %s with /proc/cpuinfo", e.Emulated, runtime.GOARCH)
		}
	}
}
