package results

// CountsEnv is env.json's counts: how the count tier counted (or why it did not), which
// cases it left out and why, and whether hardware counters can be read on this machine.
type CountsEnv struct {
	// Method says how instructions were counted: the tool, its options, the two iteration
	// counts; empty when the run counted nothing.
	Method string `json:"method,omitempty"`
	// Valgrind is `valgrind --version`; empty when not used.
	Valgrind string `json:"valgrind,omitempty"`
	// CacheSim: cachegrind also simulated the caches (sim-D1-miss/op, sim-LL-miss/op).
	CacheSim bool `json:"cache_sim,omitempty"`
	// Repeats is how many times each row was counted; the spread is over them.
	Repeats int `json:"repeats,omitempty"`
	// Control is the environment the counted children ran with (GOMAXPROCS, GOGC, GODEBUG).
	Control []string `json:"control_env,omitempty"`
	// Counted is the number of rows counted; Uncounted lists the cases of the plan left out,
	// each with the reason.
	Counted   int         `json:"counted,omitempty"`
	Uncounted []Uncounted `json:"uncounted,omitempty"`
	// WallSeconds is the wall time of the counting; CPUSeconds the processor time of its
	// child processes, which the load on the machine does not stretch.
	WallSeconds float64 `json:"wall_seconds,omitempty"`
	CPUSeconds  float64 `json:"cpu_seconds,omitempty"`
	// Jobs is how many rows were counted side by side (DEFERBENCH_COUNT_JOBS, else one per
	// CPU): it explains WallSeconds (with env.json's load averages), not the counts, which do
	// not depend on it.
	Jobs int `json:"jobs,omitempty"`
	// ISAs lists the emulated instruction sets counted (-isa pi4,pi5,pi4-32): each one's
	// rows carry its configuration lines in bench.txt (isa: pi4); empty when only the host's
	// was counted.
	ISAs []CountISA `json:"isas,omitempty"`
	// Hardware is "available" when the machine's PMU can be read with perf_event_open (the
	// run then reads cycles, instructions and misses per op: a path not yet run on a board),
	// else the reason it cannot, e.g. "no-pmu: …".
	Hardware string `json:"hardware_counters"`
}

// CountISA is one emulated instruction set a run counted on: what it models and how.
type CountISA struct {
	Name   string `json:"name"`   // pi4, pi5, pi4-32
	Model  string `json:"model"`  // what is modelled, in words
	Method string `json:"method"` // the emulator, its CPU model and the plugin
	// Emulator is the first line of the qemu-user program's --version.
	Emulator string `json:"emulator,omitempty"`
}

// Uncounted is a case the count tier left out, with the reason in one line.
type Uncounted struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// CountSummary is one count unit of one benchmark over its repetitions: the median and the
// spread, (max − min) / median.
type CountSummary struct {
	Name    string    `json:"name"`
	Unit    string    `json:"unit"`
	Median  float64   `json:"median"`
	Spread  float64   `json:"spread"`
	Samples []float64 `json:"samples"`
}
