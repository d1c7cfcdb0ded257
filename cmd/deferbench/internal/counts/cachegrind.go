package counts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/boundexec"
)

// ErrNoValgrind is wrapped by the error Count returns when valgrind is not installed. The
// error's text is one line naming the package to install.
var ErrNoValgrind = errors.New("valgrind not found")

// Child says how to run one benchmark in a child process at a fixed iteration count.
type Child struct {
	// Name is the benchmark's full name, without the Benchmark prefix.
	Name string
	// Argv returns the program and arguments that run the benchmark at n iterations and
	// exit: Argv(n)[0] is the program's path.
	Argv func(n int) []string
	// Low and High are the two iteration counts, 1 ≤ Low < High. The difference of the
	// totals is divided by High−Low, so it should hold whole batches of the benchmark.
	Low, High int
	// Env holds variables the child runs with besides ControlEnv's, NAME=value.
	Env []string
	// MaxHigh bounds High when Count grows it (0: no bound); see Options.MinDelta.
	MaxHigh int
	// Emulator, when set, counts the child's guest instructions under qemu-user with the
	// counting plugin (an emulated ISA: LookEmulator) instead of under cachegrind; Argv
	// must then run a binary built for the emulator's architecture, GOARCH, and
	// Options.CacheSim is not available.
	Emulator *Emulator
	// GOARCH is the child's architecture, for ControlEnvFor; empty means the host's.
	GOARCH string
	// ISA is the emulated ISA's name (ISA.Name) for the Row, "" for the host's.
	ISA string
}

// Options configures Count.
type Options struct {
	// Valgrind is the valgrind program; empty looks it up in PATH.
	Valgrind string
	// Repeats is how many times each row is counted (both iteration counts each time); the
	// spread is taken over them. 0 means 1.
	Repeats int
	// CacheSim turns on cachegrind's cache simulation: simulated D1 and LL misses per op
	// beside instr/op. It makes the child about twice as slow.
	CacheSim bool
	// GOGC is the child's GOGC; empty means DefaultGOGC (off).
	GOGC string
	// Timeout bounds each child process's processor time (user and system, where the
	// system offers RLIMIT_CPU: Linux); 0 means DefaultTimeout. A child that uses more is
	// killed. Processor time, not wall time: on a loaded machine, or niced, a child that
	// needs seconds of processor time may take many minutes of wall time, and its counts are
	// as good as on an idle one.
	Timeout time.Duration
	// WallTimeout bounds each child's wall time, for a child that hangs without using the
	// processor; 0 means the larger of DefaultWallTimeout and 12·Timeout. A child still
	// running then is killed with its process group.
	WallTimeout time.Duration
	// Dir holds cachegrind's output files while Count runs; empty means os.TempDir().
	Dir string
	// MinDelta is the fewest instructions the difference between the two totals should
	// hold, so that what varies in a total (1 to 2·10⁵ instructions of the runtime's own, once
	// Excluded is left out) stays a small fraction of it; 0 means DefaultMinDelta, negative means no minimum.
	// When the first repetition's difference is smaller, Count moves High to
	// Low + m·(High−Low), the least m that reaches it (at most MaxHigh), and counts there.
	MinDelta int64
}

// Defaults of Options.
const (
	DefaultTimeout = 5 * time.Minute
	// DefaultWallTimeout is the least wall-time bound of a child (Options.WallTimeout).
	DefaultWallTimeout = time.Hour
	// DefaultMinDelta: 3·10⁸ instructions, about a second of processor time under
	// cachegrind. What varies in a child's total once Excluded is left out is 1 to 2·10⁵
	// instructions (3 runs of Stage lazyguarded typed at 212,992 commands: 368.48 to 368.59
	// million), under 0.1 % of the difference. Before those exclusions it took 10⁹ to bring
	// the allocating rows under 0.3 %, and they still read up to 0.47 % (Stage cmdbuffer
	// closure-large over 5 repetitions).
	DefaultMinDelta = 300_000_000
	// DefaultGOGC turns the collector off. Its work is paced by the clock (when a cycle
	// starts, how it splits between assists and the background worker), so it is not the
	// same from one run to the next: Stage's lazyguarded rows, which allocate per command,
	// read 2145 to 2456 instr/op over 5 runs with GOGC=100 and 1339.1 to 1341.6 with GOGC
	// off. Counts are then the program's own work, allocation included and collection
	// left out; allocs/op and B/op say what it leaves for the collector, and time pays it.
	DefaultGOGC = "off"
	// DefaultMemLimit is the child's GOMEMLIMIT with the collector off: a bound that a
	// counted run should never reach (a row that does is collected, and its spread shows
	// it), so that a benchmark allocating without bound cannot exhaust the machine.
	DefaultMemLimit = "2GiB"
)

// ControlEnv returns the environment settings a counted child runs with, which hold what makes
// counts vary still: one P, a fixed GOGC (empty: DefaultGOGC; with the collector off,
// GOMEMLIMIT=DefaultMemLimit), no asynchronous preemption, no heap profiling. On amd64 it also turns off the runtime's use of RDTSCP: valgrind (3.19,
// Debian 12's) advertises the instruction but cannot run it, and the runtime reads the clock
// with it when a lock is contended (sysmon against the benchmark), which killed about one
// child in three with SIGILL. The settings replace the same variables of the parent's
// environment.
func ControlEnv(gogc string) []string { return ControlEnvFor(gogc, runtime.GOARCH) }

// ControlEnvFor is ControlEnv for a child built for goarch (an emulated ISA's).
func ControlEnvFor(gogc, goarch string) []string {
	if gogc == "" {
		gogc = DefaultGOGC
	}
	debug := "GODEBUG=asyncpreemptoff=1,memprofilerate=0"
	if goarch == "amd64" {
		debug += ",cpu.rdtscp=off"
	}
	env := []string{"GOMAXPROCS=1", "GOGC=" + gogc, debug}
	if gogc == "off" {
		env = append(env, "GOMEMLIMIT="+DefaultMemLimit)
	}
	return env
}

// Measure is one unit of a counted row over its repetitions.
type Measure struct {
	Unit    string
	Samples []float64 // per op, one per repetition
	Median  float64
	// Spread is (max − min) / median over Samples: 0 with one sample.
	Spread float64
}

// Row is what Count measured for one benchmark.
type Row struct {
	Name string
	// ISA is the emulated instruction set the row was counted on (ISA.Name), "" for the
	// host's: rows of one name on two ISAs are two rows.
	ISA       string
	Low, High int
	// Measures holds InstrUnit first, then with cache simulation SimD1MissUnit and
	// SimLLMissUnit.
	Measures []Measure
	// Wall is the wall time Count took for the row, all child processes together; CPU is
	// the processor time (user and system) of those processes, which the load of the
	// machine does not stretch.
	Wall, CPU time.Duration
}

// Get returns the measure of r in unit, and whether there is one.
func (r Row) Get(unit string) (Measure, bool) {
	for _, m := range r.Measures {
		if m.Unit == unit {
			return m, true
		}
	}
	return Measure{}, false
}

// LookValgrind returns the path of valgrind (path itself when not empty and present), or an
// error wrapping ErrNoValgrind whose text says which package to install.
func LookValgrind(path string) (string, error) {
	if path == "" {
		path = "valgrind"
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("%w (%s): install Debian's valgrind package (apt-get install valgrind) to count instructions", ErrNoValgrind, path)
	}
	return p, nil
}

// Count counts child c under cachegrind (or, with c.Emulator, under qemu-user with the
// counting plugin), opt.Repeats times at c.Low and c.High iterations, and returns
// instructions per op (and simulated misses per op with opt.CacheSim), each with its median
// and spread. Both backends leave Excluded out of every total. Children run one at a time.
// Count stops when ctx is done, killing a running child. Errors: ErrNoValgrind wrapped when
// valgrind is missing; a child that fails, times out or writes no totals is an error naming
// the benchmark, the iteration count and the last line the child wrote on stderr.
func Count(ctx context.Context, c Child, opt Options) (Row, error) {
	t0 := time.Now()
	row := Row{Name: c.Name, ISA: c.ISA, Low: c.Low, High: c.High}
	if c.Low < 1 || c.High <= c.Low {
		return row, fmt.Errorf("%s: iteration counts %d and %d: want 1 ≤ low < high", c.Name, c.Low, c.High)
	}
	if c.Emulator != nil && opt.CacheSim {
		return row, fmt.Errorf("%s: cache simulation is cachegrind's: not available under the emulator", c.Name)
	}
	reps := max(opt.Repeats, 1)
	dir, err := MakeTemp(opt.Dir, "cachegrind-")
	if err != nil {
		return row, err
	}
	defer RemoveTemp(dir)
	var run func(n int, out string) (map[string]int64, error)
	if c.Emulator != nil {
		excl := filepath.Join(dir, "excluded.txt")
		if err := os.WriteFile(excl, []byte(strings.Join(Excluded, "\n")+"\n"), 0o644); err != nil {
			return row, err
		}
		run = func(n int, out string) (map[string]int64, error) {
			return runEmulated(ctx, *c.Emulator, excl, c, n, out, opt, &row.CPU)
		}
	} else {
		vg, err := LookValgrind(opt.Valgrind)
		if err != nil {
			return row, err
		}
		run = func(n int, out string) (map[string]int64, error) {
			return runCachegrind(ctx, vg, c, n, out, opt, &row.CPU)
		}
	}
	units := []string{InstrUnit}
	if opt.CacheSim {
		units = append(units, SimD1MissUnit, SimLLMissUnit)
	}
	minDelta := opt.MinDelta
	if minDelta == 0 {
		minDelta = DefaultMinDelta
	}
	samples := make([][]float64, len(units))
	for i := range reps {
		var tot [2]map[string]int64
		for j, n := range []int{c.Low, c.High} {
			out := filepath.Join(dir, fmt.Sprintf("cg-%d-%d.out", i, n))
			if tot[j], err = run(n, out); err != nil {
				return row, err
			}
		}
		if i == 0 {
			if high := grownHigh(c, tot[1]["Ir"]-tot[0]["Ir"], minDelta); high != c.High {
				c.High, row.High = high, high
				out := filepath.Join(dir, fmt.Sprintf("cg-%d-%d.out", i, high))
				if tot[1], err = run(high, out); err != nil {
					return row, err
				}
			}
		}
		for u, unit := range units {
			lo, err := cacheEvent(tot[0], unit)
			if err != nil {
				return row, fmt.Errorf("%s: %w", c.Name, err)
			}
			hi, _ := cacheEvent(tot[1], unit)
			samples[u] = append(samples[u], float64(hi-lo)/float64(c.High-c.Low))
		}
	}
	for u, unit := range units {
		row.Measures = append(row.Measures, newMeasure(unit, samples[u]))
	}
	row.Wall = time.Since(t0)
	return row, nil
}

// grownHigh returns the High that makes the difference of the totals reach minDelta
// instructions, from delta measured at c.High: Low + m·(High−Low) for the least such m, at most
// MaxHigh; c.High when delta already reaches it.
func grownHigh(c Child, delta, minDelta int64) int {
	if delta >= minDelta || minDelta <= 0 {
		return c.High
	}
	span := int64(c.High - c.Low)
	m := int64(2)
	if delta > 0 {
		m = max(2, (minDelta+delta-1)/delta)
	}
	high := int64(c.Low) + m*span
	if c.MaxHigh > 0 && high > int64(c.MaxHigh) {
		high = int64(c.Low) + (int64(c.MaxHigh)-int64(c.Low))/span*span
	}
	return int(max(high, int64(c.High)))
}

func newMeasure(unit string, xs []float64) Measure {
	m := Measure{Unit: unit, Samples: xs, Median: median(xs)}
	if len(xs) > 1 && m.Median != 0 {
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		m.Spread = (hi - lo) / abs(m.Median)
	}
	return m
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// cacheEvent returns the total of cachegrind events that make unit: Ir for instructions; the
// D1 read and write misses; the LL misses of instructions, reads and writes.
func cacheEvent(tot map[string]int64, unit string) (int64, error) {
	var names []string
	switch unit {
	case InstrUnit:
		names = []string{"Ir"}
	case SimD1MissUnit:
		names = []string{"D1mr", "D1mw"}
	case SimLLMissUnit:
		names = []string{"ILmr", "DLmr", "DLmw"}
	default:
		return 0, fmt.Errorf("no cachegrind event for unit %s", unit)
	}
	var s int64
	for _, n := range names {
		v, ok := tot[n]
		if !ok {
			return 0, fmt.Errorf("cachegrind output has no %s total (events: %s)", n, eventNames(tot))
		}
		s += v
	}
	return s, nil
}

func eventNames(tot map[string]int64) string {
	var ns []string
	for n := range tot {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return strings.Join(ns, " ")
}

// runCachegrind runs c at n iterations under cachegrind, writing out, and returns the totals;
// it adds the child's processor time to cpu.
func runCachegrind(ctx context.Context, vg string, c Child, n int, out string, opt Options, cpu *time.Duration) (map[string]int64, error) {
	sim := "no"
	if opt.CacheSim {
		sim = "yes"
	}
	// --vgdb=no: no gdb server, whose pipes a killed valgrind would leave in the temporary
	// directory.
	args := append([]string{"--tool=cachegrind", "--cache-sim=" + sim, "--cachegrind-out-file=" + out, "--vgdb=no", "-q"}, c.Argv(n)...)
	var stderr bytes.Buffer
	if err := runBounded(ctx, opt.limits(), vg, args, append(c.controlEnv(opt), c.Env...), &stderr, cpu); err != nil {
		return nil, fmt.Errorf("%s at %d iterations under cachegrind: %w%s", c.Name, n, err, lastLine(stderr.Bytes()))
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("%s at %d iterations: cachegrind wrote no output: %w", c.Name, n, err)
	}
	defer f.Close()
	tot, excl, err := ParseCachegrindExcluding(f, Excluded)
	if err != nil {
		return nil, fmt.Errorf("%s at %d iterations: %s: %w", c.Name, n, out, err)
	}
	for e, x := range excl {
		tot[e] -= x
	}
	return tot, nil
}

// controlEnv is ControlEnvFor opt's GOGC and c's GOARCH.
func (c Child) controlEnv(opt Options) []string {
	goarch := c.GOARCH
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	return ControlEnvFor(opt.GOGC, goarch)
}

// runEmulated runs c at n iterations under qemu-user with the counting plugin, which writes
// "insns N" into out at exit, leaving the functions listed in the file excl out; it returns
// the count as the total of Ir (cachegrind's name for instructions) and adds the child's
// processor time (qemu's, which is the guest's) to cpu.
func runEmulated(ctx context.Context, em Emulator, excl string, c Child, n int, out string, opt Options, cpu *time.Duration) (map[string]int64, error) {
	args := append([]string{"-cpu", em.CPU, "-plugin", em.Plugin + ",out=" + out + ",exclude=" + excl}, c.Argv(n)...)
	var stderr bytes.Buffer
	if err := runBounded(ctx, opt.limits(), em.QEMU, args, append(c.controlEnv(opt), c.Env...), &stderr, cpu); err != nil {
		return nil, fmt.Errorf("%s at %d iterations under %s -cpu %s: %w%s", c.Name, n, filepath.Base(em.QEMU), em.CPU, err, lastLine(stderr.Bytes()))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s at %d iterations: the counting plugin wrote no count: %w%s", c.Name, n, err, lastLine(stderr.Bytes()))
	}
	x, err := ParsePluginCount(b)
	if err != nil {
		return nil, fmt.Errorf("%s at %d iterations: %s: %w", c.Name, n, out, err)
	}
	return map[string]int64{"Ir": x}, nil
}

// ParsePluginCount reads the counting plugin's output, one line "insns N".
func ParsePluginCount(b []byte) (int64, error) {
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] != "insns" {
		return 0, fmt.Errorf("want one line \"insns N\" from the counting plugin, got %q", strings.TrimSpace(string(b)))
	}
	x, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || x < 0 {
		return 0, fmt.Errorf("count %q is not a whole number", f[1])
	}
	return x, nil
}

// limits are the bounds of one child process: processor time and wall time.
type limits struct{ cpu, wall time.Duration }

// limits returns opt's bounds of a child, defaults applied.
func (opt Options) limits() limits {
	l := limits{cpu: opt.Timeout, wall: opt.WallTimeout}
	if l.cpu <= 0 {
		l.cpu = DefaultTimeout
	}
	if l.wall <= 0 {
		l.wall = max(DefaultWallTimeout, 12*l.cpu)
	}
	return l
}

// runBounded runs prog with args in its own process group, with env replacing those
// variables of os.Environ(), stdout discarded and stderr into stderr, and adds its processor
// time to cpu. When ctx is done or lim.wall passes it kills the whole group (valgrind and the
// program under it); the process is killed when it has used lim.cpu of processor time
// (limitCPU).
func runBounded(ctx context.Context, lim limits, prog string, args, env []string, stderr io.Writer, cpu *time.Duration) error {
	return runBoundedOut(ctx, lim, prog, args, env, nil, stderr, cpu)
}

// runBoundedOut is runBounded with the child's stdout into stdout (nil: discarded).
func runBoundedOut(ctx context.Context, lim limits, prog string, args, env []string, stdout, stderr io.Writer, cpu *time.Duration) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, lim.wall)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = mergeEnv(os.Environ(), env)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	untrack, err := boundexec.Start(cmd) // a deferbench killed by a signal kills the group too
	if err == nil {
		limitCPU(cmd.Process.Pid, lim.cpu)
		err = cmd.Wait()
		untrack()
	}
	if ps := cmd.ProcessState; ps != nil {
		*cpu += ps.UserTime() + ps.SystemTime()
	}
	switch {
	case err == nil:
		return nil
	case parent.Err() != nil:
		return parent.Err()
	case ctx.Err() != nil:
		return fmt.Errorf("killed with its process group after the %v wall-time timeout", lim.wall)
	case cmd.ProcessState != nil && overCPU(cmd.ProcessState, lim.cpu): // nil when the child did not start
		return fmt.Errorf("killed after %v of processor time, the timeout (%v)", (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Round(time.Millisecond), lim.cpu)
	}
	return err
}

// mergeEnv returns base with the variables of set replaced (or added).
func mergeEnv(base, set []string) []string {
	keys := map[string]bool{}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	var out []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// lastLine returns ": " and the last non-empty line of b that is not valgrind's own
// (==pid== or --pid-- prefixed) nor golang.org/x/sys/cpu's note on a GODEBUG feature it does
// not know (ControlEnv's cpu.rdtscp=off is the runtime's), or "" when there is none.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "==") || strings.HasPrefix(l, "--") || strings.HasPrefix(l, "GODEBUG sys/cpu:") {
			continue
		}
		return ": " + l
	}
	return ""
}

// ErrTempsRemoved reports that MakeTemp made no directory because RemoveTemps has run: the
// process is about to exit, and a directory made now would outlive it.
var ErrTempsRemoved = errors.New("no temporary directory made: the process is removing its temporary directories")

// temps holds the directories MakeTemp made and RemoveTemp has not yet removed, for
// RemoveTemps. A directory is made and registered under the one lock, so that RemoveTemps
// either removes it or makes MakeTemp refuse.
var temps struct {
	sync.Mutex
	dirs    map[string]bool
	removed bool // RemoveTemps has run: MakeTemp makes nothing
}

// MakeTemp makes a temporary directory in parent (empty: os.TempDir()), its name pattern as
// os.MkdirTemp's, and registers it for RemoveTemps: a Count's cachegrind output files, the
// count children cross-built for an emulated ISA. The caller removes it with RemoveTemp.
// Once RemoveTemps has run, MakeTemp makes nothing and returns ErrTempsRemoved. It is safe
// for concurrent use.
func MakeTemp(parent, pattern string) (string, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.removed {
		return "", ErrTempsRemoved
	}
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return "", err
	}
	if temps.dirs == nil {
		temps.dirs = map[string]bool{}
	}
	temps.dirs[dir] = true
	return dir, nil
}

// RemoveTemp removes dir, made by MakeTemp, and then its registration. It removes dir under
// the lock RemoveTemps takes, so that RemoveTemps never returns while dir is half removed:
// a process exiting on a signal right after RemoveTemps would otherwise leave dir behind
// when the removal of another goroutine was still running. It is safe for concurrent use.
func RemoveTemp(dir string) {
	temps.Lock()
	defer temps.Unlock()
	os.RemoveAll(dir)
	delete(temps.dirs, dir)
}

// PlaceTemp runs place, which moves dir (made by MakeTemp) into place, under the lock
// RemoveTemps takes, and forgets dir when place succeeds: a stop on a signal then finds dir
// either still a temporary, and removes it before place starts, or placed whole, never half
// moved. After RemoveTemps it runs nothing and returns ErrTempsRemoved. place must be
// quick (renames), and must not call the other functions of this set.
func PlaceTemp(dir string, place func() error) error {
	temps.Lock()
	defer temps.Unlock()
	if temps.removed {
		return ErrTempsRemoved
	}
	if err := place(); err != nil {
		return err
	}
	delete(temps.dirs, dir)
	return nil
}

// RemoveTemps removes every directory MakeTemp made that is not yet removed (cachegrind's
// output files of every Count in progress, cross-built count children), and from then on
// MakeTemp makes none. A process that exits on a signal without returning from Count
// (deferbench on SIGTERM or a second interrupt) calls it after killing the children
// (boundexec.KillAll, after which none starts), so that no temporary directory outlives it.
// It is safe for concurrent use; there is no undoing it.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.removed = true
	for dir := range temps.dirs {
		// A goroutine may still be writing into dir (a chart build): a file it adds while
		// RemoveAll runs fails the removal (directory not empty), so it is tried again.
		for try := 0; try < 5 && os.RemoveAll(dir) != nil; try++ {
		}
		delete(temps.dirs, dir)
	}
}
