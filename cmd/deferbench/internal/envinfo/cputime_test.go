package envinfo

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// fakeProc writes a root whose proc/stat aggregate line is cpu (user nice system idle iowait
// irq softirq steal guest guest_nice, as the kernel prints them) over cpus per-CPU lines,
// whose proc/self/stat says the process used utime+stime ticks, and whose proc/loadavg is
// load.
func fakeProc(t *testing.T, cpus int, cpu string, utime, stime int, load string) string {
	t.Helper()
	root := t.TempDir()
	stat := "cpu  " + cpu + "\n"
	for i := range cpus {
		stat += "cpu" + strconv.Itoa(i) + " 1 0 1 1 0 0 0 0 0 0\n"
	}
	stat += "intr 12345 0 0\nctxt 999\nbtime 1700000000\nprocesses 42\nprocs_running 3\n"
	self := "4242 (deferbench (x) y) R 1 4242 4242 0 -1 4194304 98 0 0 0 " + strconv.Itoa(utime) + " " + strconv.Itoa(stime) +
		" 0 0 20 0 5 0 2307695 3133440 359 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	for p, s := range map[string]string{"proc/stat": stat, "proc/self/stat": self, "proc/loadavg": load + " 1/200 4242\n"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestCPUShareOf: the share of other work comes from the machine's busy time less the run's
// own, never from the load average, which after a run counts the run's threads.
func TestCPUShareOf(t *testing.T) {
	// Before: 1000 ticks busy of 10000, the process has used 5. Each case adds 2000 ticks
	// (10 s on 2 CPUs at 100 ticks per second).
	before := CaptureFrom(fakeProc(t, 2, "700 0 250 9000 0 20 30 0 0 0", 3, 2, "0.05 0.10 0.08"))
	if before.CPUTime == nil {
		t.Fatal("CaptureFrom: CPUTime nil from a root with proc/stat and proc/self/stat")
	}
	if got, want := *before.CPUTime, (CPUTime{CPUs: 2, Busy: 1000, Steal: 0, Total: 10000, Self: 5}); got != want {
		t.Fatalf("CPUTime = %+v, want %+v", got, want)
	}
	tests := []struct {
		name              string
		cpu               string
		utime, stime      int
		load              string
		run, other, steal float64
		loaded            bool // above the report's 10% of other work plus steal
	}{
		// The run kept both CPUs busy for all 2000 ticks; the 1-minute load average after
		// it is 2.10 on 2 cores, from the run's own threads. Other work: none.
		{"idle machine, busy run", "2500 0 450 9000 0 20 30 0 0 0", 1800, 205, "2.10 1.20 0.50", 1, 0, 0, false},
		// The run used 1000 ticks; 800 more were busy: other work took 40%.
		{"other work 40%", "2300 0 450 9200 0 20 30 0 0 0", 900, 105, "2.10 1.20 0.50", 0.5, 0.4, 0, true},
		// A VM: the run used 1600 ticks, the hypervisor stole 400.
		{"steal", "2300 0 250 9000 0 20 30 400 0 0", 1500, 105, "1.50 1.00 0.50", 0.8, 0, 0.2, true},
		// Guest time is already inside user: it is not counted twice.
		{"guest inside user", "2500 0 450 9000 0 20 30 0 1800 0", 1800, 205, "2.00 1.00 0.50", 1, 0, 0, false},
		// The scheduler charged the run a few ticks more than the ticks saw: other is 0, not negative.
		{"rounding", "2500 0 450 9000 0 20 30 0 0 0", 1805, 205, "2.00 1.00 0.50", 1, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after := CaptureFrom(fakeProc(t, 2, tt.cpu, tt.utime, tt.stime, tt.load))
			s, ok := CPUShareOf(before, after)
			if !ok {
				t.Fatalf("CPUShareOf: not ok; after %+v", after.CPUTime)
			}
			if s.CPUs != 2 || !near(s.Run, tt.run) || !near(s.Other, tt.other) || !near(s.Steal, tt.steal) {
				t.Errorf("CPUShareOf = %+v, want CPUs 2, run %v, other %v, steal %v", s, tt.run, tt.other, tt.steal)
			}
			if got := s.Other+s.Steal > 0.10; got != tt.loaded {
				t.Errorf("other %.2f + steal %.2f above 10%% = %v, want %v", s.Other, s.Steal, got, tt.loaded)
			}
		})
	}
}

func TestCPUShareOfUnknown(t *testing.T) {
	before := CaptureFrom(fakeProc(t, 2, "700 0 250 9000 0 20 30 0 0 0", 3, 2, "0.05 0.10 0.08"))
	after := CaptureFrom(fakeProc(t, 2, "2500 0 450 9000 0 20 30 0 0 0", 1800, 205, "2.10 1.20 0.50"))
	none := CaptureFrom(t.TempDir()) // no /proc/stat: a system that is not Linux
	if none.CPUTime != nil {
		t.Errorf("CaptureFrom(empty root).CPUTime = %+v, want nil", none.CPUTime)
	}
	short := CaptureFrom(fakeProc(t, 2, "800 0 250 9000 0 20 30 0 0 0", 50, 50, "0.05 0.10 0.08")) // 100 ticks later
	for _, tt := range []struct {
		name          string
		before, after Env
	}{
		{"no proc/stat before", none, after},
		{"no proc/stat after", before, none},
		{"counters went backwards", after, before},
		{"window under MinShareTicks", before, short},
	} {
		if s, ok := CPUShareOf(tt.before, tt.after); ok {
			t.Errorf("%s: CPUShareOf = %+v, true; want false", tt.name, s)
		}
	}
	// The reason a report gives: a short run is not a missing /proc/stat.
	for _, tt := range []struct {
		before Env
		after  *Env
		want   string
	}{
		{before, &short, "the run was too short, 100 clock ticks"},
		{none, &after, "no /proc/stat"},
		{before, nil, "killed before its closing capture"},
		{none, nil, "no /proc/stat"}, // env.json {}: nothing captured, not a killed run
		{after, &before, "went backwards"},
		{before, &after, ""},
	} {
		if got := WhyNoShare(tt.before, tt.after); !strings.Contains(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("WhyNoShare = %q, want one containing %q", got, tt.want)
		}
	}
}

func TestReadCPUTimeMalformed(t *testing.T) {
	for _, tt := range []struct{ stat, self string }{
		{"cpu  1 2 3\n", "1 (x) R " + "0 0 0 0 0 0 0 0 0 0 0 0 0 0"},    // too few cpu fields
		{"cpu  1 2 3 x 5\n", "1 (x) R 0 0 0 0 0 0 0 0 0 0 0 0 0 0"},     // not a number
		{"intr 1 2\n", "1 (x) R 0 0 0 0 0 0 0 0 0 0 0 0 0 0"},           // no aggregate line
		{"cpu  1 2 3 4 5\n", "1 (x) R 0 0 0 0"},                         // self/stat cut short
		{"cpu  1 2 3 4 5\n", "1 x R 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"}, // no comm in parentheses
	} {
		rd := func(p string) (string, bool) {
			switch p {
			case "proc/stat":
				return tt.stat, true
			case "proc/self/stat":
				return tt.self, true
			}
			return "", false
		}
		if c := readCPUTime(rd); c != nil {
			t.Errorf("readCPUTime(%q, %q) = %+v, want nil", tt.stat, tt.self, c)
		}
	}
	// A kernel before 2.6.11 prints no steal: it counts as 0.
	rd := func(p string) (string, bool) {
		if p == "proc/stat" {
			return "cpu  10 0 10 80 0\ncpu0 10 0 10 80 0\n", true
		}
		return "1 (x) R 0 0 0 0 0 0 0 0 0 0 7 3 0 0 0 0", true
	}
	if c := readCPUTime(rd); c == nil || *c != (CPUTime{CPUs: 1, Busy: 20, Total: 100, Self: 10}) {
		t.Errorf("readCPUTime(old kernel) = %+v, want {CPUs:1 Busy:20 Total:100 Self:10}", c)
	}
}

// TestCPUTimeLive: on Linux a capture reads the counters, and this process's own CPU time
// grows with work it does.
func TestCPUTimeLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		if e := Capture(); e.CPUTime != nil {
			t.Errorf("Capture on %s: CPUTime %+v, want nil", runtime.GOOS, e.CPUTime)
		}
		return
	}
	e := Capture()
	if e.CPUTime == nil {
		t.Fatal("Capture on linux: CPUTime nil")
	}
	if e.CPUTime.CPUs < 1 || e.CPUTime.Total < e.CPUTime.Busy+e.CPUTime.Steal {
		t.Errorf("CPUTime = %+v: want CPUs ≥ 1 and Total ≥ Busy + Steal", *e.CPUTime)
	}
}
