package counts

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Excluded lists the functions whose own counts (not their callees') Count leaves out of every
// total: work whose amount depends on where the process's memory lies or on the clock, not on
// the code counted. They were the functions whose counts moved most between runs of the same
// child; with them left out, what is left varies by 1 to 2·10⁵ instructions per child on an
// idle machine, and up to 5·10⁵ on one that slows the child 60 times.
//
//   - runtime.(*pageAlloc).find, the page allocator's search for free pages. Under valgrind
//     the Go heap does not lie in one range, and the search walks the empty summaries between
//     the ranges a varying number of times: in 3 runs of Stage handrolled closure-large at
//     1,574,912 commands, 5.2 to 8.2 million of the 1,040 million instructions; with it left
//     out the totals agreed within 0.024 %. Allocation itself (mallocgc, the span and page
//     caches, the summaries' update) stays counted.
//   - runtime.gcDrain and runtime.(*gcWork).balance, the mark loop of the collections testing
//     forces before each run (the collector is otherwise off in a counting child): the loop
//     polls the clock and hands work to waiting workers, so its own instructions varied by
//     0.26 and 0.56 million in 3 runs of Stage lazyguarded typed, 0.2 % of the difference.
//     Marking itself (scanobject and the functions it calls) stays counted.
//   - SysmonExcluded: the runtime's monitor thread, which wakes on the clock, so its work grows
//     with the child's wall time, and so with the load on the machine (what it does in
//     functions the benchmark also calls stays counted).
var Excluded = append([]string{"runtime.(*pageAlloc).find", "runtime.gcDrain", "runtime.(*gcWork).balance"}, SysmonExcluded...)

// SysmonExcluded are the functions of the runtime's monitor thread (sysmon) that Excluded
// leaves out: those only sysmon runs, and the network poller, which nothing in a counted
// benchmark waits on (sysmon polls it on the clock; an idle scheduler does too). sysmon wakes
// every 20 µs to 10 ms of wall time: it polls the network, checks the time-based collection
// trigger, reads the clock and asks a goroutine that has run 10 ms to yield (retake,
// preemptone). Under valgrind a child runs some 50 times slower than the machine, and on a
// loaded machine slower again, so sysmon's share of the total follows the load, not the code:
// one child of Stage handrolled closure at 1,050,624 commands read 376.32 to 376.51 million
// instructions in 4 runs on an idle machine and 376.85 and 377.28 million in 2 runs slowed 16
// and 60 times by a busy loop on the same CPU (0.26 % of the difference, the size of the
// outliers the tier's spread measurement met); with these left out, 376.25 to 376.72 million.
// What sysmon does in functions the benchmark's own work also calls (the runtime's lock,
// lock2 and unlock2, which lazyguarded's typed staging calls 69 instructions' worth of per
// op; the clock, nanotime1; the collection trigger, gcTrigger.test, which allocation calls)
// stays counted: leaving those out would hide work the code counted does.
var SysmonExcluded = []string{
	"runtime.sysmon", "runtime.retake", "runtime.preemptone", "runtime.usleep",
	"runtime.checkdead", "runtime.incidlelocked", "runtime.setBlockOnExitSyscall",
	"runtime.netpoll", "internal/runtime/syscall/linux.EpollWait",
}

// ParseCachegrind reads a cachegrind output file and returns its totals by event name (Ir, and
// with cache simulation I1mr, ILmr, Dr, D1mr, DLmr, Dw, D1mw, DLmw): the summary line (or
// totals line) matched with the events line.
func ParseCachegrind(r io.Reader) (map[string]int64, error) {
	tot, _, err := ParseCachegrindExcluding(r, nil)
	return tot, err
}

// ParseCachegrindExcluding is ParseCachegrind that also returns, by event name, the sum of
// the per-line counts of the functions named in funcs (fn= lines; a function the binary has no
// symbol for is named ???, so a stripped binary excludes nothing; a name matches with or
// without the suffix .abi0): the totals are returned as
// the file states them, and the caller subtracts.
func ParseCachegrindExcluding(r io.Reader, funcs []string) (tot, excluded map[string]int64, err error) {
	var events []string
	var totals []string
	excl := map[string]bool{}
	for _, f := range funcs {
		excl[f] = true
	}
	var sums []int64
	in := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "fn="):
			// The ELF symbol table names assembly functions with the suffix .abi0 where
			// the architecture has a register ABI; funcs names them without it.
			in = excl[strings.TrimSuffix(line[len("fn="):], ".abi0")]
		case in && line != "" && line[0] >= '0' && line[0] <= '9':
			f := strings.Fields(line)
			for i := 1; i < len(f) && i-1 < len(sums); i++ {
				x, err := strconv.ParseInt(f[i], 10, 64)
				if err != nil {
					return nil, nil, fmt.Errorf("line %q: count %q is not an integer", line, f[i])
				}
				sums[i-1] += x
			}
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
			sums = make([]int64, len(events))
		case strings.HasPrefix(line, "summary:"):
			totals = strings.Fields(strings.TrimPrefix(line, "summary:"))
		case strings.HasPrefix(line, "totals:") && totals == nil:
			totals = strings.Fields(strings.TrimPrefix(line, "totals:"))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(events) == 0 {
		return nil, nil, errors.New("no events: line (not a cachegrind output file?)")
	}
	if totals == nil {
		return nil, nil, errors.New("no summary: line (cachegrind did not finish?)")
	}
	if len(totals) > len(events) {
		return nil, nil, fmt.Errorf("summary has %d totals for %d events", len(totals), len(events))
	}
	tot = make(map[string]int64, len(events))
	excluded = make(map[string]int64, len(events))
	for i, e := range events {
		var v int64 // trailing zero totals may be omitted
		if i < len(totals) {
			x, err := strconv.ParseInt(totals[i], 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("total of %s: %q is not an integer", e, totals[i])
			}
			v = x
		}
		tot[e] = v
		excluded[e] = sums[i]
	}
	return tot, excluded, nil
}
