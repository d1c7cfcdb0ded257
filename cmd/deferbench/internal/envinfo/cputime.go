package envinfo

import (
	"fmt"
	"strconv"
	"strings"
)

// CPUTime is one reading of cumulative CPU time counters, in clock ticks (USER_HZ, the unit
// of both /proc/stat and /proc/self/stat; only ratios of them are used, so the tick rate
// does not matter).
type CPUTime struct {
	// CPUs is the number of per-CPU lines in /proc/stat: the machine's online CPUs, which
	// may be more than the CPUs this process may use (Env.Cores).
	CPUs int `json:"cpus"`
	// Busy is the machine's non-idle time on all CPUs, steal excluded: user, nice, system,
	// irq and softirq (guest time is part of user and nice).
	Busy uint64 `json:"busy"`
	// Steal is the time a hypervisor ran something else while this virtual machine's
	// CPUs wanted to run; 0 on bare metal.
	Steal uint64 `json:"steal"`
	// Total is Busy, Steal, idle and iowait: all CPU time that passed on all CPUs.
	Total uint64 `json:"total"`
	// Self is this process's CPU time, all its threads together (utime + stime), plus that
	// of the child processes it waited for (cutime + cstime).
	Self uint64 `json:"self"`
}

// CPUShare is how the machine's CPU time between two captures was spent, each share a
// fraction (0 to 1) of the time of all its CPUs together.
type CPUShare struct {
	// CPUs is the number of CPUs the fractions are of (CPUTime.CPUs after the run).
	CPUs int `json:"cpus"`
	// Run is this process's share (with the children it waited for).
	Run float64 `json:"run_fraction"`
	// Other is the busy time this process did not account for: other processes, kernel
	// threads and interrupts. Timings taken meanwhile carry their noise.
	Other float64 `json:"other_cpu_fraction"`
	// Steal is the time the hypervisor gave this machine's CPUs to other guests: other
	// work too, invisible inside the guest.
	Steal float64 `json:"steal_fraction"`
}

// MinShareTicks is the least CPU time, in ticks on all CPUs together, between two captures
// for [CPUShareOf] to give a share: the counters advance in whole ticks, so a shorter window
// (under 1 s on 2 CPUs at the usual 100 ticks per second) would be mostly rounding.
const MinShareTicks = 200

// CPUShareOf returns how the machine's CPU time between the captures before and after was
// spent: by this process, by other work, by the hypervisor (steal). ok is false when either
// capture lacks [CPUTime] (not Linux), when a counter went backwards (a different boot or
// process), or when less than [MinShareTicks] of CPU time passed. The process's own time is
// measured by the scheduler and the machine's by ticks, so Other can be off by a few ticks;
// it is never negative.
func CPUShareOf(before, after Env) (s CPUShare, ok bool) {
	b, a := before.CPUTime, after.CPUTime
	if b == nil || a == nil || a.Total < b.Total || a.Busy < b.Busy || a.Steal < b.Steal || a.Self < b.Self {
		return CPUShare{}, false
	}
	total := a.Total - b.Total
	if total < MinShareTicks {
		return CPUShare{}, false
	}
	busy, steal, self := a.Busy-b.Busy, a.Steal-b.Steal, a.Self-b.Self
	t := float64(total)
	s = CPUShare{CPUs: a.CPUs, Run: min(float64(self)/t, 1), Steal: float64(steal) / t}
	if busy > self {
		s.Other = float64(busy-self) / t
	}
	return s, true
}

// WhyNoShare says why CPUShareOf gives no share for the captures before and after (nil: the
// run was killed before its closing capture), for a report's words; "" when it gives one.
func WhyNoShare(before Env, after *Env) string {
	switch {
	case before.CPUTime == nil: // an env.json of no CPU time at all ({}) was no killed run
		return "no /proc/stat, or an env.json of an older deferbench"
	case after == nil:
		return "the run was killed before its closing capture"
	case after.CPUTime == nil:
		return "no /proc/stat, or an env.json of an older deferbench"
	}
	if _, ok := CPUShareOf(before, *after); ok {
		return ""
	}
	if b, a := before.CPUTime, after.CPUTime; a.Total >= b.Total && a.Total-b.Total < MinShareTicks {
		return fmt.Sprintf("the run was too short, %d clock ticks of CPU time on all CPUs against the %d a share needs", a.Total-b.Total, MinShareTicks)
	}
	return "the CPU time counters went backwards between the captures (a reboot?)"
}

// readCPUTime reads the machine's CPU time from proc/stat and this process's from
// proc/self/stat; nil when either is missing or malformed.
func readCPUTime(rd func(string) (string, bool)) *CPUTime {
	stat, ok1 := rd("proc/stat")
	self, ok2 := rd("proc/self/stat")
	if !ok1 || !ok2 {
		return nil
	}
	var c CPUTime
	found := false
	for line := range strings.Lines(stat) {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			if _, err := strconv.Atoi(f[0][3:]); err == nil {
				c.CPUs++
			}
			continue
		}
		// cpu user nice system idle iowait irq softirq steal guest guest_nice: kernels
		// before 2.6.11 stop after irq/softirq, so missing fields count as 0.
		if len(f) < 5 {
			return nil
		}
		var v [8]uint64
		for i := range v {
			if i+1 >= len(f) {
				break
			}
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return nil
			}
			v[i] = n
		}
		user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		c.Busy = user + nice + system + irq + softirq
		c.Steal = steal
		c.Total = c.Busy + steal + idle + iowait
		found = true
	}
	if !found {
		return nil
	}
	// pid (comm) state ppid ... utime stime cutime cstime: comm may hold spaces and
	// parentheses, so the fields are counted from the last ')'; utime is the 14th field,
	// the 12th after comm.
	i := strings.LastIndexByte(self, ')')
	if i < 0 {
		return nil
	}
	f := strings.Fields(self[i+1:])
	if len(f) < 15 {
		return nil
	}
	for _, s := range f[11:15] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil
		}
		c.Self += n
	}
	return &c
}
