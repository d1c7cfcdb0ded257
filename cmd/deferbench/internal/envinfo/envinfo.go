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
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
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

// armParts names ARM Ltd (implementer 0x41) cores by /proc/cpuinfo "CPU part".
var armParts = map[string]string{
	"0xc07": "Cortex-A7", "0xc08": "Cortex-A8", "0xc09": "Cortex-A9", "0xc0f": "Cortex-A15",
	"0xd03": "Cortex-A53", "0xd04": "Cortex-A35", "0xd05": "Cortex-A55", "0xd07": "Cortex-A57",
	"0xd08": "Cortex-A72", "0xd09": "Cortex-A73", "0xd0a": "Cortex-A75", "0xd0b": "Cortex-A76",
	"0xd0c": "Neoverse-N1", "0xd0d": "Cortex-A77", "0xd41": "Cortex-A78", "0xd44": "Cortex-X1",
	"0xd46": "Cortex-A510", "0xd47": "Cortex-A710", "0xd48": "Cortex-X2", "0xd49": "Neoverse-N2",
	"0xd4b": "Cortex-A78C", "0xd40": "Neoverse-V1", "0xd4f": "Neoverse-V2",
}

// parseCPUInfo returns the CPU model and the LSE atomics verdict from the
// first processor block of /proc/cpuinfo.
func parseCPUInfo(s string) (model, lse string) {
	kv := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := kv[k]; !seen {
			kv[k] = v
		}
	}
	model = Unknown
	switch {
	case kv["model name"] != "":
		model = kv["model name"]
	case kv["CPU part"] != "":
		impl, part := strings.ToLower(kv["CPU implementer"]), strings.ToLower(kv["CPU part"])
		if name, ok := armParts[part]; ok && impl == "0x41" {
			model = name
		} else {
			model = "implementer " + impl + " part " + part
		}
	}
	feat, isARM := kv["Features"]
	switch {
	case isARM:
		lse = "no"
		for _, f := range strings.Fields(feat) {
			if f == "atomics" {
				lse = "yes"
			}
		}
	case kv["flags"] != "" || kv["vendor_id"] != "":
		lse = NotApplicable
	default:
		lse = Unknown
	}
	return model, lse
}

func parsePageSize(smaps string) string {
	for line := range strings.Lines(smaps) {
		rest, ok := strings.CutPrefix(line, "KernelPageSize:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return Unknown
		}
		n, err := strconv.Atoi(f[0])
		if err != nil || n <= 0 {
			return Unknown
		}
		return strconv.Itoa(n * 1024)
	}
	return Unknown
}

func readPolicies(root string, rd func(string) (string, bool)) []Policy {
	dirs, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/cpu/cpufreq/policy*"))
	sort.Slice(dirs, func(i, j int) bool { return policyNum(dirs[i]) < policyNum(dirs[j]) })
	policies := []Policy{}
	for _, d := range dirs {
		name := filepath.Base(d)
		rel := filepath.Join("sys/devices/system/cpu/cpufreq", name)
		khz := func(f string) string {
			s, ok := rd(filepath.Join(rel, f))
			if !ok {
				return Unknown
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n <= 0 {
				return Unknown
			}
			return strconv.FormatInt((n+500)/1000, 10) + " MHz"
		}
		cpus, ok := rd(filepath.Join(rel, "related_cpus"))
		if !ok {
			cpus, ok = rd(filepath.Join(rel, "affected_cpus"))
		}
		policies = append(policies, Policy{
			Name:      name,
			CPUs:      orUnknown(cpus, ok),
			Governor:  orUnknown(rd(filepath.Join(rel, "scaling_governor"))),
			CurFreq:   khz("scaling_cur_freq"),
			MinFreq:   khz("scaling_min_freq"),
			MaxFreq:   khz("scaling_max_freq"),
			HWMaxFreq: khz("cpuinfo_max_freq"),
		})
	}
	return policies
}

func policyNum(dir string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "policy"))
	if err != nil {
		return 1 << 30
	}
	return n
}

func summarizeGovernor(ps []Policy) string {
	if len(ps) == 0 {
		return Unknown
	}
	same := true
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Name + "=" + p.Governor
		same = same && p.Governor == ps[0].Governor
	}
	if same {
		return ps[0].Governor
	}
	return strings.Join(parts, ",")
}

// readTemperature returns the temperature of the first thermal zone (in
// zone order) whose type names the CPU or SoC, and that type.
func readTemperature(root string, rd func(string) (string, bool)) (temp, zone string) {
	dirs, _ := filepath.Glob(filepath.Join(root, "sys/class/thermal/thermal_zone*"))
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dirs[i]), "thermal_zone"))
		b, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dirs[j]), "thermal_zone"))
		return a < b
	})
	for _, d := range dirs {
		rel := filepath.Join("sys/class/thermal", filepath.Base(d))
		typ, ok := rd(filepath.Join(rel, "type"))
		if !ok {
			continue
		}
		lt := strings.ToLower(typ)
		if !strings.Contains(lt, "cpu") && !strings.Contains(lt, "soc") && lt != "x86_pkg_temp" {
			continue
		}
		s, ok := rd(filepath.Join(rel, "temp"))
		if !ok {
			return Unknown, typ
		}
		milli, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Unknown, typ
		}
		return strconv.FormatFloat(float64(milli)/1000, 'f', 1, 64) + " C", typ
	}
	return Unknown, Unknown
}

// parseClock decodes "frequency(48)=1500345728" (Hz) into "1500 MHz".
func parseClock(out string) string {
	_, v, ok := strings.Cut(strings.TrimSpace(out), "=")
	if !ok {
		return Unknown
	}
	hz, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || hz <= 0 {
		return Unknown
	}
	return strconv.FormatInt((hz+500_000)/1_000_000, 10) + " MHz"
}

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

// DetectEmulation says whether a process built for goarch runs under a user-mode emulator:
// "yes" when status (/proc/self/status) names an emulator as the process's command
// (qemu-user runs the binary inside its own process, qemu-aarch64-static say) or when cpuinfo
// (/proc/cpuinfo, which qemu-user passes through from the host) describes a CPU of another
// architecture family than goarch (x86 "vendor_id"/"flags" for an arm64 or arm binary, ARM
// "CPU implementer" for an x86 one); "no" when cpuinfo's family matches goarch and status
// names no emulator; [Unknown] when neither source says. goarch "" skips the architecture
// check (a replayed capture of another machine).
func DetectEmulation(goarch, cpuinfo, status string) string {
	for _, line := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "Name" {
			name := strings.TrimSpace(v)
			if strings.HasPrefix(name, "qemu-") || strings.HasPrefix(name, "box64") || strings.HasPrefix(name, "box86") {
				return "yes"
			}
		}
	}
	host := cpuFamily(cpuinfo)
	want := archFamily(goarch)
	switch {
	case host == "" || want == "":
		return Unknown
	case host != want:
		return "yes"
	}
	return "no"
}

// cpuFamily is the architecture family /proc/cpuinfo describes: "x86", "arm" or "" when it
// does not say.
func cpuFamily(cpuinfo string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, _, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "vendor_id", "flags":
			return "x86"
		case "CPU implementer", "CPU architecture", "Features":
			return "arm"
		}
	}
	return ""
}

// archFamily is the family of a GOARCH value: "x86" for amd64 and 386, "arm" for arm64 and
// arm, "" for the others (their /proc/cpuinfo is not checked).
func archFamily(goarch string) string {
	switch goarch {
	case "amd64", "386":
		return "x86"
	case "arm64", "arm":
		return "arm"
	}
	return ""
}
