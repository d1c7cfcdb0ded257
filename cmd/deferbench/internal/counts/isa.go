package counts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// ISA is an instruction set the count tier counts on: the host's own (under cachegrind), or a
// Raspberry Pi's, counted from any machine by running a binary cross-built for it under
// qemu-user with the counting plugin (scripts/qemu/insncount.c). A guest's instruction stream
// does not depend on the host's CPU, so an emulated ISA counts the same on every host: it is
// the board's instructions, not its time, caches or memory order.
type ISA struct {
	// Name is what -isa takes: host, pi4, pi5, pi4-32.
	Name string
	// GOARCH and GOARM are what the count child is cross-built with ("" for the host).
	GOARCH, GOARM string
	// QEMU is the qemu-user program that runs it, CPU the -cpu model.
	QEMU, CPU string
	// Model says in words what is modelled, for the report and env.json.
	Model string
	// LSE is the lse-atomics config value: whether the modelled CPU has ARMv8.1's atomic
	// instructions, which Go's arm64 atomics use when the CPU reports them.
	LSE string
	// Label is the column heading in report.md.
	Label string
}

// HostISA is the host's own instruction set, counted under cachegrind.
var HostISA = ISA{Name: "host", Label: "host", Model: "this machine's CPU, under valgrind's cachegrind"}

// ISAs lists the instruction sets -isa takes, in the order reports show them.
var ISAs = []ISA{
	HostISA,
	{Name: "pi4", GOARCH: "arm64", QEMU: "qemu-aarch64", CPU: "cortex-a72", LSE: "no", Label: "Pi 4",
		Model: "Raspberry Pi 4: arm64 on a Cortex-A72 model (ARMv8.0, no LSE atomics: LDAXR/STLXR loops)"},
	{Name: "pi5", GOARCH: "arm64", QEMU: "qemu-aarch64", CPU: "cortex-a76", LSE: "yes", Label: "Pi 5",
		Model: "Raspberry Pi 5: arm64 on a Cortex-A76 model (ARMv8.2, LSE atomics: LDADDAL, CASAL, SWPAL)"},
	// qemu-arm has no Cortex-A72 model: its max CPU is an ARMv8-A core in AArch32, as a
	// Pi 4 runs 32-bit Pi OS (with the hardware divide, VFPv4 and NEON the Go runtime checks
	// for).
	{Name: "pi4-32", GOARCH: "arm", GOARM: "7", QEMU: "qemu-arm", CPU: "max", LSE: "n/a", Label: "Pi 32-bit",
		Model: "32-bit Raspberry Pi OS on a Pi 4: arm (GOARM=7) on qemu-arm's max CPU, ARMv8-A in AArch32 (qemu-arm has no Cortex-A72 model)"},
}

// ISANames is the -isa names, comma-separated, for messages.
func ISANames() string {
	var ns []string
	for _, i := range ISAs {
		ns = append(ns, i.Name)
	}
	return strings.Join(ns, ", ")
}

// ParseISAs parses a comma-separated -isa list into ISAs in the order of ISAs (host first),
// repeats dropped. An empty list, an empty name or an unknown one is an error naming the
// valid names.
func ParseISAs(s string) ([]ISA, error) {
	want := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("%q: empty name in the list (valid: %s)", s, ISANames())
		}
		if _, ok := LookupISA(f); !ok {
			return nil, fmt.Errorf("unknown instruction set %q (valid: %s)", f, ISANames())
		}
		want[f] = true
	}
	var out []ISA
	for _, i := range ISAs {
		if want[i.Name] {
			out = append(out, i)
		}
	}
	return out, nil
}

// LookupISA returns the ISA named name.
func LookupISA(name string) (ISA, bool) {
	for _, i := range ISAs {
		if i.Name == name {
			return i, true
		}
	}
	return ISA{}, false
}

// Host reports whether i is the host's own instruction set.
func (i ISA) Host() bool { return i.Name == HostISA.Name }

// ISAKey is the configuration key of bench.txt that names the emulated ISA a count row was
// counted on (isa: pi4); the host's rows have none. benchstat -col isa puts the ISAs side by
// side.
const ISAKey = results.ISAKey

// Config returns the configuration lines an emulated ISA's rows carry in bench.txt, in place
// of the host's: goarch (and goarm), cpu (the modelled CPU), isa, lse-atomics and emulated
// (how they were counted), so that compare keeps them apart from the host's rows, from a
// board's rows and from each other. The host ISA has none.
func (i ISA) Config() []benchfmt.Config {
	if i.Host() {
		return nil
	}
	c := func(k, v string) benchfmt.Config { return benchfmt.Config{Key: k, Value: []byte(v), File: true} }
	out := []benchfmt.Config{c("goarch", i.GOARCH)}
	if i.GOARM != "" {
		out = append(out, c("goarm", i.GOARM))
	}
	return append(out, c("cpu", i.CPU+" (qemu model)"), c(ISAKey, i.Name), c("lse-atomics", i.LSE),
		c("emulated", i.Emulated()))
}

// Emulated is the emulated config value of i's rows: instruction counts only.
func (i ISA) Emulated() string {
	return fmt.Sprintf("%s -cpu %s (instruction counts only)", i.QEMU, i.CPU)
}

// ISAOf returns the ISA name a result's configuration carries (ISAKey), or "" for the host.
func ISAOf(r *benchfmt.Result) string {
	for _, c := range r.Config {
		if c.Key == ISAKey {
			return string(c.Value)
		}
	}
	return ""
}

// ErrNoEmulator is wrapped by the errors that say the emulated count tier cannot run here: a
// qemu-user program or the counting plugin is missing. Their text is one line naming the
// package and the command.
var ErrNoEmulator = errors.New("emulated instruction counts unavailable")

// InstallQEMUCount is the script that installs what the emulated count tier needs.
const InstallQEMUCount = "scripts/install-qemu-count.sh"

// PluginEnv names the environment variable that gives the counting plugin's path; unset, it
// is DefaultPlugin's.
const PluginEnv = "DEFERBENCH_QEMU_PLUGIN"

// DefaultPlugin returns where scripts/install-qemu-count.sh builds the counting plugin:
// DEFERBENCH_CACHE, else $XDG_CACHE_HOME/deferbench or ~/.cache/deferbench, then
// qemu-count/libinsncount.so.
func DefaultPlugin() string {
	dir := os.Getenv("DEFERBENCH_CACHE")
	if dir == "" {
		if c, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(c, "deferbench")
		}
	}
	return filepath.Join(dir, "qemu-count", "libinsncount.so")
}

// Emulator is how an emulated ISA's child runs: qemu-user's program for the ISA, its CPU
// model and the counting plugin.
type Emulator struct {
	QEMU, CPU, Plugin string
}

// LookEmulator returns the Emulator for i: its qemu-user program on PATH, which must accept
// -plugin (Debian's dynamic qemu-user does; qemu-user-static does not), and the plugin
// (PluginEnv, else DefaultPlugin). What is missing is an error wrapping ErrNoEmulator whose
// text names the package and the command.
func LookEmulator(i ISA) (Emulator, error) {
	fix := "install Debian's qemu-user, gcc and qemu's plugin header and build the plugin: run " + InstallQEMUCount + " (as root)"
	q, err := exec.LookPath(i.QEMU)
	if err != nil {
		return Emulator{}, fmt.Errorf("%w: %s not found (Debian's qemu-user package; qemu-user-static does not load plugins): %s", ErrNoEmulator, i.QEMU, fix)
	}
	out, _ := exec.Command(q, "-h").Output()
	if !strings.Contains(string(out), "\n-plugin") {
		return Emulator{}, fmt.Errorf("%w: %s does not accept -plugin (a static build): %s", ErrNoEmulator, q, fix)
	}
	p := os.Getenv(PluginEnv)
	from := PluginEnv
	if p == "" {
		p, from = DefaultPlugin(), "its default place"
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return Emulator{}, fmt.Errorf("%w: no counting plugin at %s (%s): %s", ErrNoEmulator, p, from, fix)
	}
	return Emulator{QEMU: q, CPU: i.CPU, Plugin: p}, nil
}

// BoardModel returns the name of the emulated ISA that models a board of the given goarch
// and lse-atomics config values (a run's own config lines): pi4 for arm64 without LSE
// atomics, pi5 for arm64 with them, pi4-32 for arm; "" for any other machine (an x86 host,
// or an arm64 board whose lse-atomics is unknown).
func BoardModel(goarch, lse string) string {
	switch {
	case goarch == "arm64" && lse == "no":
		return "pi4"
	case goarch == "arm64" && lse == "yes":
		return "pi5"
	case goarch == "arm":
		return "pi4-32"
	}
	return ""
}
