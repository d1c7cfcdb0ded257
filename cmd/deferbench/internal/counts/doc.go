// Package counts is deferbench's count tier: what a benchmark does per op, counted instead of
// timed, so that the figures do not move with the load on the machine.
//
// # Instructions (valgrind's cachegrind)
//
// Count runs one benchmark in a child process under valgrind --tool=cachegrind at two fixed
// iteration counts, Low and High, reads the total of instructions executed (Ir) from each
// output file and returns instructions per op, (I(High) − I(Low)) / (High − Low): the
// process's start-up and the benchmark's set-up appear in both totals and cancel. It repeats
// that Repeats times and reports the median and the spread, (max − min) / median, per unit.
// With Options.CacheSim, cachegrind also simulates the caches and Count reports simulated
// first-level data and last-level misses per op; the units say sim- because they come from
// cachegrind's model of a cache, not from the machine.
//
// The child runs with the environment of ControlEnv: GOMAXPROCS=1, the collector off (its
// work is paced by the clock; see DefaultGOGC: counts leave collection out, allocation in),
// GODEBUG=asyncpreemptoff=1 (no preemption signals) and memprofilerate=0 (heap profiling
// unwinds the stack at random allocations). The benchmarks use fixed seeds. What is left is
// the Go runtime's own randomness (its seed comes from the kernel at start-up: map hash
// seeds, the 1-in-1024 update of a type-assertion cache) and work the runtime paces by the
// clock (sysmon, the scavenger, the collections testing forces between runs); the spread
// Count reports measures it. Three functions varied most of all (0.2 to 0.5 % of an
// allocating row): the page allocator's search for free pages, whose amount depends on where
// valgrind placed the heap's memory, and the mark loop of the collections testing forces
// before each run, which polls the clock. Count leaves their own instructions out of every
// total (Excluded); that needs the binary's symbol table (do not build it with -s).
//
// When valgrind is not installed Count returns an error that wraps ErrNoValgrind and says in
// one line which Debian package to install.
//
// # Hardware counters (perf_event_open)
//
// Open opens counters (cycles, instructions, branch and cache misses: HardwareEvents; the
// kernel's task-clock and page faults: SoftwareEvents) on the calling thread or on every
// thread of the process, counting user space only. Where the machine exposes no PMU (most
// cloud VMs and containers) or kernel.perf_event_paranoid forbids counting, Probe and Open
// return an *Unavailable that says why, for env.json. The software events run the same code
// path and are tested; the hardware path has not yet been run on a board with a PMU.
//
// # Units and gate
//
// The units (InstrUnit, SimD1MissUnit, SimLLMissUnit, CyclesUnit, HWInstrUnit, IPCUnit, …)
// are ordinary Go benchmark units that stock benchstat reads; Results writes count rows as
// benchfmt.Result values. Gate compares two sets of rows against their measured spread rather
// than with a test over noise: an unchanged build passes and a change beyond
// max(threshold, spread) fails.
package counts
