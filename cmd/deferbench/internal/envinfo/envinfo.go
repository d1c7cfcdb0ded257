// Package envinfo captures the machine a benchmark runs on: CPU, cores, Go
// toolchain, kernel, and on a Raspberry Pi the board model, CPU frequency
// governor, sysfs and firmware clocks, SoC temperature, page size, the
// firmware's throttling flags, the load average and the CPU time counters
// that say how much of the machine other work took during a run ([CPUShareOf]).
//
// deferbench writes one capture before and one after a run into env.json and
// a few of its fields into bench.txt as file-level config lines
// ([Env.ConfigLines]), so that a result says which board, clock policy and
// CPU features produced it, and whether the firmware throttled the CPU while
// it ran ([Throttled]).
//
// Sources are read, never inferred: a field whose source is missing (no
// /proc/device-tree on a PC, no vcgencmd, no cpufreq directory in a VM) holds
// [Unknown]. Besides the standard library the package imports only
// golang.org/x/sys/cpu, for the live process's CPU features.
//
// Sources, relative to the capture root:
//
//	/proc/cpuinfo                     CPU model, ARM "Features" (atomics = LSE), its architecture (emulation)
//	/proc/self/status                 the process's command name (qemu-* under qemu-user: emulation)
//	golang.org/x/sys/cpu              arm64 only, live only: ARM64.HasATOMICS (the kernel's AT_HWCAP)
//	/proc/sys/kernel/osrelease        kernel (uname -r)
//	/proc/sys/kernel/hostname         hostname
//	/proc/device-tree/model           board model (NUL-terminated)
//	/proc/loadavg                     load average
//	/proc/stat                        the machine's CPU time: busy, idle, steal (the aggregate "cpu" line)
//	/proc/self/stat                   this process's CPU time (utime, stime, and of the children it waited for)
//	/proc/self/smaps                  page size (KernelPageSize)
//	/sys/devices/system/cpu/cpufreq/policy*/  governor and frequencies per policy
//	/sys/class/thermal/thermal_zone*/ SoC temperature (zone whose type names the CPU/SoC)
//	vcgencmd measure_clock arm        firmware ARM clock (shows firmware throttling; sysfs does not)
//	vcgencmd get_throttled            firmware throttling and under-voltage flags
package envinfo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/boundexec"
	"golang.org/x/sys/cpu"
)

// Unknown is the value of every string field whose source is missing or
// unreadable.
const Unknown = "unknown"

// NotApplicable is the value of a field that does not exist on this kind of
// machine, e.g. LSE atomics on a CPU that is not ARM.
const NotApplicable = "n/a"

// Env is one capture of the environment. String fields hold [Unknown] when
// their source is missing. The Go fields (GoVersion, GOOS, GOARCH, Cores,
// GOMAXPROCS) describe the running process, also under [CaptureFrom].
type Env struct {
	// CapturedAt is the capture time, RFC 3339 in UTC.
	CapturedAt string `json:"captured_at"`
	Hostname   string `json:"hostname"`
	// Kernel is the kernel release, as `uname -r` prints it.
	Kernel    string `json:"kernel"`
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	// CPUModel is /proc/cpuinfo's "model name", or on ARM the core named by
	// its implementer and part numbers (e.g. "Cortex-A76").
	CPUModel string `json:"cpu_model"`
	// GoCPU is the CPU name `go test` prints on its "cpu:" line here ([GoCPUName]); "" when
	// go test prints none, or in a capture that is not of the running machine
	// ([CaptureFrom]). bench.txt's cpu line is GoCPU, or CPUModel when GoCPU is "", so that
	// deferbench's results and go test's of one machine compare as one machine.
	GoCPU string `json:"go_cpu,omitempty"`
	// Cores is runtime.NumCPU: the logical CPUs this process may use.
	Cores      int `json:"cores"`
	GOMAXPROCS int `json:"gomaxprocs"`
	// Model is the board model from /proc/device-tree/model, e.g.
	// "Raspberry Pi 5 Model B Rev 1.0".
	Model string `json:"model"`
	// PageSize is the kernel page size in bytes (4096, or 16384 on a Pi 5
	// kernel), as a decimal string.
	PageSize string `json:"page_size"`
	// LSEAtomics says whether the CPU has the ARMv8.1 Large System
	// Extension atomics: "yes", "no", [NotApplicable] on a CPU that is not
	// ARM, or [Unknown]. Go's arm64 runtime uses them for atomics and
	// mutexes when the kernel's AT_HWCAP says so; a live arm64 capture
	// takes that bit from golang.org/x/sys/cpu (ARM64.HasATOMICS; under
	// qemu-user: the emulated CPU's), any other capture, a replayed one
	// included, reads "atomics" in /proc/cpuinfo Features.
	LSEAtomics string `json:"lse_atomics"`
	// Governor is the cpufreq governor: the one all policies share, or
	// "policy0=x,policy4=y" when they differ.
	Governor string `json:"governor"`
	// Policies lists the cpufreq policies (empty when there is no cpufreq).
	Policies []Policy `json:"cpufreq_policies"`
	// ARMClock is the firmware's `vcgencmd measure_clock arm`, e.g.
	// "1500 MHz".
	ARMClock string `json:"arm_clock"`
	// Temperature is the SoC temperature in degrees Celsius, e.g. "52.6 C".
	Temperature string `json:"temperature"`
	// ThermalZone is the type of the zone Temperature was read from.
	ThermalZone string `json:"thermal_zone"`
	// Throttle is `vcgencmd get_throttled`, decoded.
	Throttle Throttle `json:"throttle"`
	// LoadAvg is the 1, 5 and 15 minute load average, e.g. "0.14 0.22 0.09".
	LoadAvg string `json:"load_avg"`
	// CPUTime is the machine's and this process's CPU time so far; two captures give
	// the share of the machine that other work took between them ([CPUShareOf]). It is
	// nil where /proc/stat or /proc/self/stat is missing or unreadable (not Linux).
	CPUTime *CPUTime `json:"cpu_time,omitempty"`
	// Emulated says whether the process runs under a user-mode emulator (an arm64 or arm
	// binary on an x86 host through qemu-user, say): "yes", "no" or [Unknown]. Timings taken
	// under emulation say nothing about the emulated CPU. See [DetectEmulation].
	Emulated string `json:"emulated"`
}

// Policy is one cpufreq policy: a group of CPUs that share a clock.
// Frequencies are in MHz, e.g. "1800 MHz", or [Unknown].
type Policy struct {
	Name     string `json:"name"`
	CPUs     string `json:"cpus"`
	Governor string `json:"governor"`
	CurFreq  string `json:"cur_freq"`
	MinFreq  string `json:"min_freq"`
	MaxFreq  string `json:"max_freq"`
	// HWMaxFreq is cpuinfo_max_freq, the hardware limit.
	HWMaxFreq string `json:"hw_max_freq"`
}

// Throttle is the firmware's throttling state, decoded bit by bit from
// `vcgencmd get_throttled`: bits 0–3 describe now, bits 16–19 whether the
// same condition occurred since boot.
type Throttle struct {
	// Raw is the reported value, e.g. "0x50005", or [Unknown].
	Raw       string        `json:"raw"`
	Now       ThrottleFlags `json:"now"`
	SinceBoot ThrottleFlags `json:"since_boot"`
}

// ThrottleFlags are four firmware conditions, each "yes", "no" or [Unknown].
type ThrottleFlags struct {
	UnderVoltage  string `json:"under_voltage"`   // supply below ~4.63 V
	FreqCapped    string `json:"arm_freq_capped"` // ARM frequency capped
	Throttled     string `json:"throttled"`       // currently throttled
	SoftTempLimit string `json:"soft_temp_limit"` // soft temperature limit active
}

// Bits of `vcgencmd get_throttled`; the since-boot bit of a condition is its
// now bit shifted left by sinceBootShift.
const (
	bitUnderVoltage  = 1 << 0
	bitFreqCapped    = 1 << 1
	bitThrottled     = 1 << 2
	bitSoftTempLimit = 1 << 3
	sinceBootShift   = 16
)

// Runner runs an external command and returns its standard output. An
// error means the command is absent or failed; the fields it feeds are then
// [Unknown].
type Runner func(name string, args ...string) (string, error)

// Source says where a capture reads from.
type Source struct {
	// Root is the file-system root /proc and /sys are read under; "" means "/".
	Root string
	// Run runs vcgencmd; nil means vcgencmd is absent.
	Run Runner
	// GOARCH is the architecture the captured process was built for, checked against
	// /proc/cpuinfo for emulation; "" means runtime.GOARCH when Root is "/" and no check
	// otherwise (a replayed capture of another machine).
	GOARCH string
}

// Capture reads the environment of this machine. It never fails: what it
// cannot read is [Unknown]. It is safe for concurrent use and takes a few
// milliseconds (two vcgencmd calls on a Pi, each limited to 2 s together with
// the processes it starts, and the second skipped when the first timed out).
func Capture() Env {
	return Source{Root: "/", Run: ExecRunner}.Capture()
}

// CaptureFrom reads /proc and /sys under root instead of "/", and replays
// vcgencmd from files under root (see [ReplayRunner]); tests use it with
// recorded fixtures.
func CaptureFrom(root string) Env {
	return Source{Root: root, Run: ReplayRunner(root)}.Capture()
}

// ExecRunner runs name from PATH, bounded with every process it starts: 2 s, then
// 200 ms for them to close its output, and 64 KiB of output (see [boundexec.Run]).
// Its error wraps [boundexec.ErrTimeout] when the command ran out of time.
func ExecRunner(name string, args ...string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	opt := boundexec.Options{Timeout: 2 * time.Second, Grace: 200 * time.Millisecond, MaxOutput: 64 << 10}
	res, err := boundexec.Run(context.Background(), opt, path, args...)
	if err != nil {
		return "", fmt.Errorf("envinfo: %w", err)
	}
	return string(res.Stdout), nil
}

// ReplayRunner returns a [Runner] that answers `name args...` with the
// contents of root/cmd/<name>/<args joined by "_">.txt, e.g.
// root/cmd/vcgencmd/measure_clock_arm.txt; a missing file reads as an
// absent command.
func ReplayRunner(root string) Runner {
	return func(name string, args ...string) (string, error) {
		b, err := os.ReadFile(filepath.Join(root, "cmd", name, strings.Join(args, "_")+".txt"))
		if err != nil {
			return "", fmt.Errorf("envinfo: replay %s %s: %w", name, strings.Join(args, " "), err)
		}
		return string(b), nil
	}
}

// Capture reads the environment from s.
func (s Source) Capture() Env {
	root := s.Root
	if root == "" {
		root = "/"
	}
	rd := func(p string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(strings.TrimRight(string(b), "\x00\n")), true
	}
	e := Env{
		CapturedAt: time.Now().UTC().Format(time.RFC3339),
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	e.Hostname = orUnknown(rd("proc/sys/kernel/hostname"))
	e.Kernel = orUnknown(rd("proc/sys/kernel/osrelease"))
	e.Model = orUnknown(rd("proc/device-tree/model"))
	if cpuinfo, ok := rd("proc/cpuinfo"); ok {
		e.CPUModel, e.LSEAtomics = parseCPUInfo(cpuinfo)
	} else {
		e.CPUModel, e.LSEAtomics = Unknown, Unknown
	}
	if runtime.GOARCH == "arm64" && filepath.Clean(root) == "/" {
		e.LSEAtomics = yesNo(cpu.ARM64.HasATOMICS)
	}
	if filepath.Clean(root) == "/" {
		e.GoCPU = GoCPUName()
	}
	e.PageSize = Unknown
	if smaps, ok := rd("proc/self/smaps"); ok {
		e.PageSize = parsePageSize(smaps)
	}
	if e.PageSize == Unknown && filepath.Clean(root) == "/" {
		e.PageSize = strconv.Itoa(os.Getpagesize())
	}
	e.LoadAvg = Unknown
	if la, ok := rd("proc/loadavg"); ok {
		if f := strings.Fields(la); len(f) >= 3 {
			e.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	e.CPUTime = readCPUTime(rd)
	cpuinfo, _ := rd("proc/cpuinfo")
	status, _ := rd("proc/self/status")
	goarch := s.GOARCH
	if goarch == "" && filepath.Clean(root) == "/" {
		goarch = runtime.GOARCH
	}
	e.Emulated = DetectEmulation(goarch, cpuinfo, status)
	e.Policies = readPolicies(root, rd)
	e.Governor = summarizeGovernor(e.Policies)
	e.Temperature, e.ThermalZone = readTemperature(root, rd)

	e.ARMClock, e.Throttle.Raw = Unknown, Unknown
	if s.Run != nil {
		out, err := s.Run("vcgencmd", "measure_clock", "arm")
		if err == nil {
			e.ARMClock = parseClock(out)
		}
		// A firmware tool that did not answer in time will not answer the next question
		// either: skip it rather than wait out a second timeout.
		if !errors.Is(err, boundexec.ErrTimeout) {
			if out, err := s.Run("vcgencmd", "get_throttled"); err == nil {
				e.Throttle.Raw = parseThrottledRaw(out)
			}
		}
	}
	e.Throttle.Now, e.Throttle.SinceBoot = decodeThrottle(e.Throttle.Raw)
	return e
}

func orUnknown(s string, ok bool) string {
	if !ok || s == "" {
		return Unknown
	}
	return s
}
