package envinfo

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
)

// GoCPUName returns the CPU name `go test` prints on its "cpu:" line on this machine, so that
// a deferbench run and a go test run of the same machine carry the same cpu key and compare
// as one machine. It follows the Go toolchain's rule (internal/sysinfo): on x86 the processor's
// brand string from CPUID, leading spaces trimmed and cut at the first NUL, trailing padding
// kept; otherwise, or where the CPU has no brand string, /proc/cpuinfo's "model name",
// followed by " @ <cpu MHz>MHz" when the file gives a clock and the name names none; "" where
// neither exists (an arm64 board: go test then prints no cpu line either).
func GoCPUName() string {
	if name := brandString(); name != "" {
		return name
	}
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 512) // go test reads this much: CPU 0's block
	n, _ := io.ReadFull(f, buf)
	return goCPUInfoName(buf[:n])
}

// goCPUInfoName is GoCPUName's reading of the start of /proc/cpuinfo.
func goCPUInfoName(buf []byte) string {
	var model, mhz string
	sc := bufio.NewScanner(bytes.NewReader(buf))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ": ")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "Model Name", "model name":
			model = value
		case "CPU MHz", "cpu MHz":
			mhz = value
		}
	}
	switch {
	case model == "":
		return ""
	case mhz == "" || strings.Contains(model, "GHz") || strings.Contains(model, "MHz"):
		return model
	}
	return model + " @ " + mhz + "MHz"
}

// brandName is the x86 brand string read from CPUID leaves 0x80000002–4, with
// the toolchain's trimming; "" when the CPU has none.
func brandName(leaf func(eax uint32) (a, b, c, d uint32)) string {
	if top, _, _, _ := leaf(0x80000000); top < 0x80000004 {
		return ""
	}
	data := make([]byte, 0, 48)
	for l := uint32(0x80000002); l <= 0x80000004; l++ {
		a, b, c, d := leaf(l)
		for _, r := range [4]uint32{a, b, c, d} {
			data = append(data, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		}
	}
	data = bytes.TrimLeft(data, " ")
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	return string(data)
}

// BenchCPU is the value of bench.txt's cpu line for a run captured in e: e.GoCPU, the name
// go test prints, or e.CPUModel where go test prints none.
func (e Env) BenchCPU() string {
	if e.GoCPU != "" {
		return e.GoCPU
	}
	return e.CPUModel
}
