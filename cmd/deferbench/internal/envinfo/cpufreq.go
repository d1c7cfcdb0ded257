package envinfo

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

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
