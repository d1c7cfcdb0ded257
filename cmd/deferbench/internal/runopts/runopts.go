// Package runopts checks deferbench run's flags once into what the run needs: the harness
// options with the plan computed (harness.Options.Planned), what to measure
// (rundir.Measure), and the held results directory. Every problem is a usage.Error naming
// the flag and the fix.
package runopts

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
	"github.com/deferbench/deferbench/ecs"
)

// Defaults of deferbench run, and of deferbench run -quick.
const (
	DefaultCount     = harness.DefaultCount
	DefaultBenchtime = harness.DefaultBenchtime
	QuickCount       = 3
	QuickBenchtime   = "20ms"
)

// Check checks o: the harness options (planned once) and what to measure. With
// instructions it checks that valgrind is there, and notes on stderr when the counted rows
// (GOMAXPROCS=1) are not also timed.
func (o Flags) Check(stderr io.Writer) (harness.Options, rundir.Measure, error) {
	opt, err := o.options()
	if err != nil {
		return opt, rundir.Measure{}, err
	}
	m, err := ParseMeasure("run", o.Measure)
	if err != nil {
		return opt, m, err
	}
	if o.Repeats < 1 || o.Repeats > 100 {
		return opt, m, usage.Errorf("run: -repeats %d: want a whole number from 1 to 100", o.Repeats)
	}
	m.Repeats = o.Repeats
	if o.Set["isa"] && !m.Instructions {
		// A name that is wrong is the first thing to fix, before -measure.
		if _, err := counts.ParseISAs(o.ISA); err != nil {
			return opt, m, usage.Errorf("run: -isa: %v", err)
		}
		return opt, m, usage.Errorf("run: -isa %s counts instructions: add -measure instructions (or time,instructions)", o.ISA)
	}
	if o.Set["repeats"] && !m.Instructions {
		// Timed rows repeat with -count; -repeats would be ignored without a word.
		return opt, m, usage.Errorf("run: -repeats %d repeats instruction counts: add -measure instructions (or time,instructions), or use -count for timed repetitions", o.Repeats)
	}
	if m.Instructions {
		if m.Jobs, err = CountJobs(); err != nil {
			return opt, m, err
		}
		if o.Set["isa"] {
			if m.ISAs, err = counts.ParseISAs(o.ISA); err != nil {
				return opt, m, usage.Errorf("run: -isa: %v", err)
			}
		}
		if err := CheckCountTools(&m, o.Measure, runtime.GOARCH); err != nil {
			return opt, m, err
		}
		timedAt1 := slices.Contains(opt.Procs, 1) || len(opt.Procs) == 0 && runtime.GOMAXPROCS(0) == 1
		if !m.NoTime && !timedAt1 {
			fmt.Fprintf(stderr, "deferbench: note: instructions are counted at GOMAXPROCS=1; add -procs 1 to time the same rows (the counts sit beside ns/op under the same names)\n")
		}
	}
	return opt, m, nil
}

// CheckCountTools checks that what counting m's ISAs needs is here, on a host of goarch, and
// fills m.Emulators: valgrind for the host's ISA, which is refused on an arm64 or arm host
// (ARMHostCount); qemu-user and the counting plugin for each emulated one. Each problem is a
// usage error of one line naming the package and the command, or what to use instead.
func CheckCountTools(m *rundir.Measure, measure, goarch string) error {
	if m.CacheSim {
		for _, i := range m.CountISAs() {
			if !i.Host() {
				return usage.Errorf("run: -measure %s with -isa %s: the cache simulation is cachegrind's, on the host's instruction set only: drop cachesim, or count %s without it", measure, i.Name, i.Name)
			}
		}
	}
	if m.CountsHost() {
		if msg := ARMHostCount(goarch); msg != "" {
			return usage.Errorf("run: -measure %s: %s", measure, msg)
		}
		if _, err := counts.LookValgrind(""); err != nil {
			return usage.Errorf("run: -measure %s: %v", measure, err)
		}
	}
	for _, i := range m.CountISAs() {
		if i.Host() {
			continue
		}
		em, err := counts.LookEmulator(i)
		if err != nil {
			return usage.Errorf("run: -isa %s: %v", i.Name, err)
		}
		if m.Emulators == nil {
			m.Emulators = map[string]counts.Emulator{}
		}
		m.Emulators[i.Name] = em
	}
	return nil
}

// ARMHostCount returns why the host's instructions are not counted on a host of goarch, with
// what to use instead, or "" where they are: valgrind's arm64 build crashed on Go's start-up
// under qemu (a fault about 8 KB below the stack pointer in runtime.getCPUCount, where Go's
// prologue probes below SP), and whether it does on a board is not known, so on arm64 and arm
// the count tier stops before it starts rather than fail in every child.
func ARMHostCount(goarch string) string {
	if goarch != "arm64" && goarch != "arm" {
		return ""
	}
	return "counting this " + goarch + " machine's own instructions needs valgrind, whose arm builds are not known to run Go programs (under qemu, valgrind's arm64 build crashes in the Go runtime's start-up): " +
		"on a board read the PMU's instructions counter (a timed run reads hw-instr/op with perf_event_open where the kernel allows it; docs/counts.md), " +
		"or count the Pi's instruction sets from an x86 machine: deferbench run -measure instructions -isa pi4,pi5,pi4-32"
}

// OpenOut holds the results directory (-out, or a new one under results/ named for now) and
// notes on stderr what the directory says of itself (results.RunDir.Note).
func (o Flags) OpenOut(now time.Time, stderr io.Writer) (*results.RunDir, error) {
	rd, err := o.openOut(now)
	if err != nil {
		return nil, err
	}
	if rd.Note != "" {
		fmt.Fprintf(stderr, "deferbench: note: %s\n", rd.Note)
	}
	return rd, nil
}

// Flags are deferbench run's flag values as given; Set names the flags given on the command
// line (flag.FlagSet.Visit).
type Flags struct {
	Quick                        bool
	Count                        int
	Benchtime                    string
	Scenarios, Strategies, Procs string
	Storages                     string
	Out                          string
	Profile                      bool
	Measure                      string
	Repeats                      int
	ISA                          string // -isa: the instruction sets counted
	StallAfter                   time.Duration
	Long                         bool // a plan over MaxPlan may start
	Set                          map[string]bool
}

// MaxPlan is the longest timed floor (harness.Options.TimedFloor) a plan may have without
// -long: a plan past it is almost surely a mistyped -benchtime or -count ("1000h"), which
// would start and never end.
const MaxPlan = 2 * time.Hour

// MaxProcs is the largest -procs value: max(256, 4×NumCPU). More is almost surely a typo, and
// the runtime would allocate per-P state for every one.
func MaxProcs() int { return max(256, 4*runtime.NumCPU()) }

// parseNames splits the comma-separated value of -flag into names, keeping their order and
// dropping repeats; a name that differs from a valid one in case only is that one. An empty value or an empty name in the list is a usage error naming the
// valid names. A flag not given means all: nil.
func (o Flags) parseNames(flagName, value string, valid []string) ([]string, error) {
	if !o.Set[flagName] {
		return nil, nil
	}
	all := strings.Join(valid, ", ")
	if strings.TrimSpace(value) == "" {
		return nil, usage.Errorf("run: -%s %q: empty list (valid: %s; omit -%s for all)", flagName, value, all, flagName)
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(value, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, usage.Errorf("run: -%s %q: empty name in the list (valid: %s)", flagName, value, all)
		}
		if !slices.Contains(valid, f) {
			// "stage" for Stage: names differ in case only by mistake.
			if i := slices.IndexFunc(valid, func(v string) bool { return strings.EqualFold(v, f) }); i >= 0 {
				f = valid[i]
			}
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// parseProcs parses -procs: positive GOMAXPROCS values up to MaxProcs, repeats dropped.
func (o Flags) parseProcs() ([]int, error) {
	if !o.Set["procs"] {
		return nil, nil
	}
	if strings.TrimSpace(o.Procs) == "" {
		return nil, usage.Errorf("run: -procs %q: empty list (want GOMAXPROCS values, e.g. 1,2,4; omit -procs for the current GOMAXPROCS)", o.Procs)
	}
	var procs []int
	seen := map[int]bool{}
	for _, p := range strings.Split(o.Procs, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, usage.Errorf("run: -procs %q: empty value in the list (want GOMAXPROCS values, e.g. 1,2,4)", o.Procs)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, usage.Errorf("run: -procs: invalid GOMAXPROCS %q (want positive integers, e.g. 1,2,4)", p)
		}
		if n > MaxProcs() {
			return nil, usage.Errorf("run: -procs: GOMAXPROCS %d is above the maximum %d (max(256, 4×NumCPU))", n, MaxProcs())
		}
		if !seen[n] {
			seen[n] = true
			procs = append(procs, n)
		}
	}
	return procs, nil
}

// parseStorages parses -storages: world storages (ecs.ParseStorage names), repeats dropped; not
// given means both (nil).
func (o Flags) parseStorages() ([]ecs.Storage, error) {
	names, err := o.parseNames("storages", o.Storages, []string{ecs.Slots.String(), ecs.Archetypes.String()})
	if err != nil || names == nil {
		return nil, err
	}
	var out []ecs.Storage
	for _, n := range names {
		s, err := ecs.ParseStorage(n)
		if err != nil {
			return nil, usage.Errorf("run: -storages: unknown storage %q (valid: slots, archetypes; omit -storages for both)", n)
		}
		out = append(out, s)
	}
	return out, nil
}

// options validates o into harness options; every problem is a usage error.
func (o Flags) options() (harness.Options, error) {
	var opt harness.Options
	if o.Count < 1 {
		return opt, usage.Errorf("run: -count: want %s, got %q", "a whole number ≥ 1", strconv.Itoa(o.Count))
	}
	if o.Set["out"] && strings.TrimSpace(o.Out) == "" {
		return opt, usage.Errorf("run: -out %q: want a directory name (omit -out for results/<yyyymmdd-hhmmss>-<host>-<goarch>)", o.Out)
	}
	bt, err := harness.ParseBenchtime(o.Benchtime)
	if err != nil {
		return opt, usage.Errorf("run: -benchtime %q: want a positive duration like 100ms or a positive iteration count like 1000x", o.Benchtime)
	}
	scNames, err := o.parseNames("scenarios", o.Scenarios, harness.ScenarioNames())
	if err != nil {
		return opt, err
	}
	stNames, err := o.parseNames("strategies", o.Strategies, harness.StrategyNames())
	if err != nil {
		return opt, err
	}
	sc, err := harness.SelectScenarios(scNames)
	if err != nil {
		return opt, usage.Errorf("run: -scenarios: %v", err)
	}
	st, err := harness.SelectStrategies(stNames)
	if err != nil {
		return opt, usage.Errorf("run: -strategies: %v", err)
	}
	procs, err := o.parseProcs()
	if err != nil {
		return opt, err
	}
	storages, err := o.parseStorages()
	if err != nil {
		return opt, err
	}
	if o.StallAfter < 0 || (o.Set["stall-after"] && o.StallAfter == 0) {
		return opt, usage.Errorf("run: -stall-after %v: want a positive duration like 30s (omit it for %v)", o.StallAfter, harness.DefaultStallAfter)
	}
	opt = harness.Options{Scenarios: sc, Strategies: st, Quick: o.Quick, Count: o.Count, Benchtime: bt, Procs: procs, Storages: storages, StallAfter: o.StallAfter}.Planned()
	per := len(opt.Cases)
	if all := (harness.Options{Scenarios: sc, Strategies: st, Quick: o.Quick, Procs: procs}).Planned().Cases; per == 0 && len(all) > 0 {
		// The scenarios and strategies meet, on other storages only (Ark runs on archetypes).
		var on []string
		for _, c := range all {
			if c.Storage != "" && !slices.Contains(on, c.Storage) {
				on = append(on, c.Storage)
			}
		}
		return opt, usage.Errorf("run: no benchmark matches -storages %q: -scenarios %q and -strategies %q run on %s storage only; add it to -storages", o.Storages, o.Scenarios, o.Strategies, strings.Join(on, ", "))
	}
	if per == 0 {
		return opt, usage.Errorf("run: no benchmark matches -scenarios %q and -strategies %q: none of those strategies runs in those scenarios (deferbench list says where each runs); add a scenario or a strategy", o.Scenarios, o.Strategies)
	}
	// compare, report and plot read at most MaxResults lines: a run must not write more
	// (checked before multiplying, which could overflow).
	if o.Count > results.MaxResults/per {
		return opt, usage.Errorf("run: -count %d: %d benchmarks × %d is more than the %d results compare and report read: give -count %d or less, or fewer -scenarios, -strategies or -procs",
			o.Count, per, o.Count, results.MaxResults, results.MaxResults/per)
	}
	if f := opt.TimedFloor(); f > MaxPlan && !o.Long {
		at := "at least " + f.Round(time.Minute).String()
		if f == math.MaxInt64 {
			at = "more than 292 years"
		}
		return opt, usage.Errorf("run: this plan takes %s (%d benchmarks × -count %d × -benchtime %s), more than %v: give -long to run it anyway, or lower -benchtime or -count, or narrow -scenarios and -strategies",
			at, per, o.Count, o.Benchtime, MaxPlan)
	}
	return opt, nil
}

// openOut holds the results directory: o.Out, or a new one under results/. A directory that
// is taken or cannot be written is a usage error naming it and the fix.
func (o Flags) openOut(now time.Time) (*results.RunDir, error) {
	var (
		rd  *results.RunDir
		err error
	)
	if o.Out == "" {
		rd, err = results.NewRunDir(DefaultOut(now))
	} else {
		rd, err = results.OpenRunDir(o.Out)
	}
	var de *results.DirError
	if !errors.As(err, &de) {
		return rd, err
	}
	name, fix := "-out "+o.Out, ""
	if o.Out == "" {
		name = "results directory " + de.Dir
	}
	switch {
	case errors.Is(err, results.ErrDirTaken):
		fix = "choose a new -out or remove it"
	case errors.Is(err, results.ErrDirInUse):
		fix = "choose a new -out"
	default:
		fix = "choose a writable directory"
		if o.Out == "" {
			fix += " with -out"
		}
	}
	return nil, usage.Errorf("run: %s: %s: %s", name, de.Problem, fix)
}

// DefaultOut is results/<yyyymmdd-hhmmss>-<host>-<goarch>.
func DefaultOut(now time.Time) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "host"
	}
	host = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(host, "_")
	return filepath.Join("results", now.Format("20060102-150405")+"-"+host+"-"+runtime.GOARCH)
}

// CountJobsEnv names the environment variable that sets how many rows the count tier counts
// side by side: a whole number from 1 to 1024; unset or empty means one per CPU
// (runtime.NumCPU()). Counts do not depend on it, only the wall time does; set it to 1 to
// leave CPUs to other work, or above the CPUs to take a larger share of a loaded machine.
// deferbench ab's rounds inherit it.
const CountJobsEnv = "DEFERBENCH_COUNT_JOBS"

// CountJobs returns CountJobsEnv's value: 0 (one per CPU) when it is unset or empty, or a
// usage error naming the variable and the fix when it is not a whole number from 1 to 1024.
func CountJobs() (int, error) {
	v := strings.TrimSpace(os.Getenv(CountJobsEnv))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1024 {
		return 0, usage.Errorf("%s=%q: want a whole number of rows counted side by side, from 1 to 1024 (unset: one per CPU)", CountJobsEnv, v)
	}
	return n, nil
}

// ParseMeasure parses -measure: comma-separated time, instructions and cachesim (which adds
// cachegrind's cache simulation to instructions and implies it), at least one of time and
// instructions. A bad value is a usage error naming the valid ones.
func ParseMeasure(cmd, s string) (rundir.Measure, error) {
	var m rundir.Measure
	time := false
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "time":
			time = true
		case "instructions":
			m.Instructions = true
		case "cachesim":
			m.Instructions, m.CacheSim = true, true
		default:
			return m, usage.Errorf("%s: -measure %q: want time, instructions or both (time,instructions), with cachesim to add cachegrind's simulated cache misses", cmd, s)
		}
	}
	m.NoTime = !time
	return m, nil
}
