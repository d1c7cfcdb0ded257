package envinfo

import (
	"bufio"
	"strconv"
	"strings"
)

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
