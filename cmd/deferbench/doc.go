// Deferbench measures deferral strategies side by side: per-command staging cost, stage plus
// commit cost and the cost of a whole simulation frame, for every strategy of the deferbench
// library on the same machine, in the Go benchmark format that benchstat reads.
//
// Usage:
//
//	usage: deferbench <command> [arguments]
//
//	commands:
//	  run      run the benchmark suite and write the results into a new results directory
//	  compare  compare two runs (bench.txt files, results directories or pipes) metric by metric: medians, 95% CIs, change and Mann-Whitney p; -fail gates
//	  ab       A/B: run two builds (git revisions or binaries) alternately on this machine, compare the paired rounds and apply the gate
//	  report   rebuild summary.json, report.md, details.md and plots/ in results directory DIR from its bench.txt (a killed run, say)
//	  plot     draw the results in DIR/bench.txt as charts in DIR/plots (SVG and PNG); DIR may be the bench.txt itself
//	  fleet    one markdown table of several boards' headline figures, a column per results directory
//	  list     list the scenarios and strategies with descriptions
//	  env      print the environment capture (CPU, cores, Go, kernel, governor, clocks, temperature, throttling) as JSON
//	  help     show the commands, or one command's flags
//
//	Run 'deferbench help <command>' for a command's flags.
//
// # Run
//
// Run times every scenario for every strategy (see the list command), Count times, interleaving
// the strategies within each repetition so that machine drift hits them all alike:
//
//	usage: deferbench run [flags]
//
//	run the benchmark suite and write the results into a new results directory
//
//	The results directory is -out, which must be new or empty, or by default
//	results/<yyyymmdd-hhmmss>-<host>-<goarch>, with -2, -3, … added when that exists. It gets:
//	  bench.txt     results in the Go benchmark format, for benchstat
//	  env.json      the environment captured before and after the run, and the run's options
//	  summary.json  per benchmark and unit: median and 95% confidence interval
//	  report.md     the pick per kind of need, how sure it is and the command to be surer;
//	                the trust flags, which strategy to pick per requirement, findings in a
//	                line per headline metric, the configuration
//	  details.md    the verdicts per variant with their figures, the rankings with ratio
//	                CIs and U tests, tables of medians ± 95% CI, the plots
//	  plots/        charts of the results with 95% CI error bars, SVG and PNG
//	  profiles/     with -profile: <Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz
//	With -measure instructions (docs/counts.md) each case that runs on one goroutine is also,
//	or only (-measure instructions alone), counted under valgrind's cachegrind at GOMAXPROCS=1:
//	instr/op beside ns/op in bench.txt, its spread over -repeats in summary.json, a Counts
//	section in report.md, and in env.json the cases left out with the reason. Counting needs
//	valgrind (Debian's valgrind package); without it the run stops at once with status 2.
//	Rows are counted side by side, one per CPU (the counts do not depend on it, only the wall
//	time does); DEFERBENCH_COUNT_JOBS=N counts N at a time. -isa pi4,pi5,pi4-32 counts the
//	same rows on the Raspberry Pi's instruction sets from any machine: the child, cross-built
//	from the source tree run in, runs under qemu-user with a counting plugin (Debian's
//	qemu-user and the plugin: scripts/install-qemu-count.sh); each ISA's rows carry their own
//	goarch, cpu, isa, lse-atomics and emulated lines (benchstat -col isa). On an arm64 or arm
//	machine the host's instructions are not counted (valgrind does not run Go there): the run
//	stops at once; read the PMU's counter on the board, or give -isa from an x86 machine.
//	The first interrupt (Ctrl-C) stops the run after the current benchmark, or a second later
//	if it has not finished by then, the second at once; either way the run keeps what finished,
//	marks bench.txt, env.json, summary.json and report.md partial and exits with status 130.
//	A benchmark one of whose calls makes no progress for -stall-after (30s), or for 10 times
//	the time its previous call predicts if longer, is left behind as stalled: the terminal says
//	so at once, its later repetitions are skipped, every other benchmark runs, and the files
//	are marked partial naming it ("stalled: NAME made no progress for 30s"); exit status 1.
//	deferbench report DIR rebuilds the files of a run that was killed outright.
//
//	flags:
//	  -benchtime string
//	    	time ("100ms") or iterations ("1000x") per benchmark, as go test -benchtime (default "50ms")
//	  -count int
//	    	repetitions of every benchmark, at least 1; below 6 warns (benchstat needs 6 for a confidence interval) (default 10)
//	  -isa string
//	    	with -measure instructions: comma-separated instruction sets to count on: host (this machine's, under cachegrind), pi4 (arm64, Cortex-A72 model, no LSE atomics), pi5 (arm64, Cortex-A76 model, LSE), pi4-32 (arm, GOARM=7, Cortex-A72 model); the Pi's are counted under qemu-user from any machine (docs/counts.md) (default "host")
//	  -long
//	    	start a plan that takes more than 2h at least (-benchtime × -count × benchmarks); without it such a plan is refused
//	  -measure string
//	    	what to measure: time, instructions (instr/op counted under valgrind's cachegrind at GOMAXPROCS=1; docs/counts.md), or time,instructions; add cachesim for cachegrind's simulated cache misses (sim-D1-miss/op, sim-LL-miss/op) (default "time")
//	  -out string
//	    	results directory, new or empty (default results/<yyyymmdd-hhmmss>-<host>-<goarch>[-N])
//	  -procs string
//	    	comma-separated GOMAXPROCS values to run every benchmark at, each at most max(256, 4×NumCPU) (default the current GOMAXPROCS)
//	  -profile
//	    	after the timed runs, run each scenario and strategy once more with profiling on: write profiles/<Scenario>-<strategy>-{cpu,heap,mutex,block}.pb.gz and a CPU attribution table
//	  -quick
//	    	smoke run: benchtime 20ms, count 3, smallest sizes
//	  -repeats int
//	    	with -measure instructions: times each row is counted; the spread, (max − min) / median, is over them (1: not measured) (default 1)
//	  -scenarios string
//	    	comma-separated scenarios to run (default all; see deferbench list)
//	  -stall-after duration
//	    	give up on a benchmark as stalled when one of its calls makes no progress for this long, or for 10× its predicted time if longer; the run goes on without it (default 30s)
//	  -storages string
//	    	comma-separated ecs.World storages the storage-dependent scenarios (StageApply, Structural, Frame, Spike, Peer) run on: slots, archetypes (default both; rows on archetypes are named storage=archetypes)
//	  -strategies string
//	    	comma-separated strategies to run (default all; see deferbench list)
//
// bench.txt starts with file-level config lines (goos, goarch, cpu, go, deferbench,
// host-model, kernel, governor, …). summary.json's intervals come from
// golang.org/x/perf/benchmath; with -profile, summary.json and report.md add the CPU
// attribution.
//
// Names follow Benchmark<Scenario>/strategy=<s>/<key>=<value>-<GOMAXPROCS> (no suffix at
// GOMAXPROCS=1), so benchstat puts the strategies side by side:
//
//	benchstat -col /strategy results/<dir>/bench.txt
//
// Units are ns/op (total time / iterations, in floating point), B/op and allocs/op (also per
// op, in floating point). The first repetition sizes each benchmark's iteration count as go
// test does, ramping up to the benchtime; later repetitions run that count directly. The baseline strategy is the in-run lower bound in Stage and
// Contention (the same compact record appended to a preallocated slice) and in StageApply a
// reference, not a bound: the commands applied one by one with deferral.Core.Apply, which a
// strategy's batched commit can beat.
//
// -measure instructions counts instead of timing (docs/counts.md): every case that runs on one
// goroutine is run in a child process (this executable's hidden count-child mode) under
// valgrind's cachegrind at GOMAXPROCS=1, at two fixed iteration counts, and instr/op is the
// difference of the instruction totals over the difference of the counts, so start-up and
// set-up cancel. The rows are counted side by side on every CPU, -repeats times each; the
// spread, (max − min) / median, goes into summary.json and report.md. Contention, Readers and
// Determinism, whose work depends on scheduling, are not counted; report.md and env.json say
// why. Instructions are work, not time: they leave out cache and memory effects. compare and
// ab gate count units (-fail 'instr/op>0.5%') against the measured spread, without a test.
// Where the machine exposes a PMU, a timed run also reads cycles, instructions, branch and
// cache misses per op with perf_event_open; env.json says why where it cannot.
//
// A run never writes into another run's directory. The default directory gets a suffix -2, -3,
// … when its name is taken; an -out that exists and is not empty is refused before any
// benchmark runs. Each name is claimed atomically (os.Mkdir, then a lock file .deferbench.lock
// holding the run's process id, created exclusively and removed when the run ends), so of two
// runs given the same -out the second fails, naming the first's process id. A run killed with
// SIGKILL leaves its lock file behind. An -out that cannot be created or written fails before any benchmark runs,
// leaving nothing behind. All of these are usage errors (status 2).
//
// bench.txt is rewritten atomically after every benchmark and carries a "partial" config line
// until the run completes. An interrupted run (SIGINT) stops after the benchmark in
// progress (or leaves it behind a second later), keeps what finished and exits with status 130 (SIGTERM, as timeout(1) and CI
// cancels send, stops it at once the same way and exits with status 143); bench.txt's partial line, the
// "partial" field of env.json and summary.json and the head of report.md then say what is
// there: "174 of 1920 results finished (192 benchmarks × 10 repetitions; interrupted)", or,
// interrupted during -profile, "all 1920 results finished; profiles of 3 of 12
// scenario-strategy pairs (interrupted)".
// A run that fails says "failed: " and the error instead of "interrupted" and exits with
// status 1. A benchmark whose call makes no progress for -stall-after (30 s, or 10 times what
// its previous call predicts) is left behind as stalled and the run goes on without it; the
// marker then says "stalled: NAME made no progress for 30s (bound 30s)" and the exit status
// is 1. A run stopped before its first benchmark finished leaves nothing behind.
//
// A -count below 6 runs, with a warning on stderr: benchstat computes no confidence interval
// from fewer repetitions. -scenarios and -strategies take names in any case, keep the suite's
// order and ignore repeats; -procs runs its values in the order given, repeats dropped, each
// at most max(256, 4×NumCPU). An empty list or an empty name in one ("Stage,,Frame", "Stage,") is a usage
// error.
//
// Profiles are collected after the timed runs, in separate untimed runs (profiling perturbs
// timing): each scenario and strategy runs once more with the CPU profiler on and mutex and
// block profiling enabled; the heap, mutex and block files hold what that run added. The
// attribution table charges each CPU sample to the first of lock (sync mutex frames), alloc
// (runtime.mallocgc), gc, apply (Core.Apply, Commit, Flush), stage (Recorder methods,
// StageKeyed) found walking from the leaf, else other.
//
// # Compare
//
//	usage: deferbench compare [flags] OLD NEW
//
//	compare two runs (bench.txt files, results directories or pipes) metric by metric: medians, 95% CIs, change and Mann-Whitney p; -fail gates
//
//	Results are compared only under the same configuration: when the runs (or
//	results inside one run) differ in a config key of bench.txt (goarch, cpu, host-model,
//	kernel, governor, emulated, go, …) they are kept apart, and a note on stderr names the
//	keys and the -ignore value that compares across them. -ignore machine stands for
//	goarch,cpu,host-model,kernel,governor,lse-atomics,page-size (two machines; emulated
//	stays apart unless named). A key that one side records with one value and the other
//	does not record at all (a Go release that printed no cpu: or pkg: line) is not a
//	different value: those rows are compared, with a note. A sample that is NaN, infinite
//	or negative, or a result with zero iterations, is refused with its file and line. A line that begins like a benchmark
//	line but is not one (text a benchmark printed while it ran, in go test -v output; a line
//	cut short) is skipped as the benchmark format's reader skips it, with a note naming its
//	file and line; a file with no well-formed result is refused.
//
//	A Pi model's count and a board's counter: when one side holds instr/op counted on an
//	emulated ISA (run -measure instructions -isa pi4,pi5,pi4-32) and the other a board's
//	hw-instr/op (its PMU counter), compare lines up the model of that board (goarch and
//	lse-atomics: Pi 4, Pi 5 or Pi 32-bit) with the counter, row by row, with model ÷ counter
//	(-format text or markdown; no gate applies to it).
//
//	Gate: -fail 'sec/op>5%,allocs/op>0,B/op>0' exits with status 1 when a metric is worse
//	than its threshold (relative with %, else absolute in the file's unit, ns for sec/op)
//	and the difference is significant at -alpha. allocs/op, B/op and distinct-states whose
//	samples all agree on each side are compared exactly, even from one sample; changes
//	of at most 0.01 allocs/op or 1 byte (B/op, heap-B/cmd: amortised growth) never count.
//	A gated metric without a verdict (too few samples), or one whose test could not fail at
//	any outcome, is not judged, and a gated unit that matched no row (distinct-states>0
//	against a run without those benchmarks) is named: when no metric fails and some are
//	not judged or matched nothing, or a side did not finish (interrupted; go test output
//	with --- FAIL, FAIL, panic: or fatal error:), the gate is inconclusive. A unit twice on
//	one line is refused as a bad value. Exit status: 0 pass (every gated metric judged),
//	1 gate failed, 2 bad input, 3 gate inconclusive.
//
//	OLD or NEW may be a pipe, as for benchstat: - reads standard input (go test -bench .
//	-count 6 | deferbench compare old.txt -), and a shell's process substitution
//	<(go test -bench . -count 6) or a named pipe (mkfifo) is read until its writer closes
//	it, at most 64 MiB. A pipe that gives nothing for 2 s is noted once on stderr and
//	waited for (benchmarks take minutes); interrupt to stop. A terminal or other device
//	is refused.
//
//	flags:
//	  -alpha float
//	    	significance level of the test (default 0.05)
//	  -fail string
//	    	gate: comma-separated unit>N% or unit>N thresholds, e.g. 'sec/op>5%,allocs/op>0,B/op>0'; exit 1 when a metric is worse beyond one and significant; count units (instr/op>0.5%) are gated against their measured spread instead, without a test (docs/counts.md)
//	  -format string
//	    	output format: text, markdown, csv or json (default "text")
//	  -full string
//	    	also write every row, in markdown tables, to this file: a new one, or one an earlier -full wrote (-format markdown stays under 60,000 characters and points to it)
//	  -ignore string
//	    	comma-separated config keys to compare across although their values differ (machine = goarch,cpu,host-model,kernel,governor,lse-atomics,page-size; * = every key)
//	  -ignore-procs
//	    	match benchmarks without their -GOMAXPROCS suffix (machines with different core counts); one that a run has at several GOMAXPROCS keeps them apart
//	  -paired
//	    	pair the i-th sample of each metric in OLD with the i-th in NEW (rounds of deferbench ab) and test the per-round ratios
//
// Compare matches benchmarks by configuration, full name and unit and prints, per unit, the
// median and 95% confidence interval of each side, the change, and the p-value of a
// Mann-Whitney U test (golang.org/x/perf/benchmath, as benchstat); "~" marks a change that is
// not significant, "new: 4 allocs/op" a metric that was 0. Two machines side by side (the
// columns named by goarch, or by board model for two arm64 boards), or stock benchstat:
//
//	deferbench compare -ignore machine results/<pi4-run> results/<pi5-run>
//	benchstat -col host-model -ignore cpu,kernel,governor,lse-atomics,page-size,throttled,under-voltage,deferbench pi4/bench.txt pi5/bench.txt
//
// (both runs with the same -procs values: benchmark names end in -GOMAXPROCS). With -paired
// (deferbench ab's rounds) the change is the median of the per-round ratios and the test the
// Wilcoxon signed-rank test on their logarithms. -format json writes every row with
// medians, CIs, change, p, method, verdict and gate; markdown suits a pull-request comment:
// at most 60,000 characters, the gate's failures first, the other significant changes
// counted and folded, then the rest; rows that do not fit are counted and -full FILE holds
// them all. docs/ci.md has CI recipes.
//
// # AB
//
//	usage: deferbench ab [flags] BASE HEAD
//
//	A/B: run two builds (git revisions or binaries) alternately on this machine, compare the paired rounds and apply the gate
//
//	BASE and HEAD are git revisions of this repository (each built with go build
//	into a temporary worktree) or two deferbench binaries. The two run alternately on this
//	machine, round by round, in a random order each round (each side first in half the
//	rounds); a round is one repetition (deferbench run -count 1) of the selected scenarios
//	and strategies. Then round i of BASE
//	is paired with round i of HEAD: the change is the median of the per-round ratios, tested
//	with the Wilcoxon signed-rank test, and the gate applies as in compare (exit 1 when it
//	fails, 2 for bad input, 3 when it could not judge every gated metric). Each side's rounds stay in OUT/base and OUT/head, every round
//	in its own results directory, all rounds merged into OUT/<side>/bench.txt for
//	deferbench compare -paired, and every compared row in OUT/compare.md (-full). The defaults (Stage and StageApply: staging, stage plus
//	commit, allocations; 12 rounds of 20ms) take about two minutes on 2 cores. The gate
//	adjusts its p-values over the rows it tests (Holm's method), so that an unchanged build
//	fails it with probability at most -alpha however many rows are gated; with N tested rows a
//	row can fail only if its smallest possible p, 2^(1-rounds), is below alpha/N: 12 rounds
//	cover up to 100 rows at alpha 0.05 (the defaults gate about 50), and the gate line says when
//	too few rounds let no row fail.
//
//	flags:
//	  -alpha float
//	    	significance level of the test (default 0.05)
//	  -benchtime string
//	    	time or iterations per benchmark and round, as deferbench run -benchtime (default "20ms")
//	  -fail string
//	    	gate: comma-separated unit>N% or unit>N thresholds, e.g. 'sec/op>5%,allocs/op>0,B/op>0'; exit 1 when a metric is worse beyond one and significant; count units (instr/op>0.5%) are gated against their measured spread instead, without a test (docs/counts.md) (default "sec/op>5%,allocs/op>0,B/op>0")
//	  -format string
//	    	output format: text, markdown, csv or json (default "text")
//	  -full string
//	    	also write every row, in markdown tables, to this file: a new one, or one an earlier -full wrote (-format markdown stays under 60,000 characters and points to it)
//	  -ignore string
//	    	comma-separated config keys to compare across although their values differ (machine = goarch,cpu,host-model,kernel,governor,lse-atomics,page-size; * = every key)
//	  -isa string
//	    	with -measure instructions: the instruction sets each round counts, as deferbench run -isa: host, pi4, pi5, pi4-32 (a revision's count children are cross-built with it; a binary needs deferbench-linux-arm64 and -arm beside it) (default "host")
//	  -measure string
//	    	what each round measures, as deferbench run -measure: time, instructions or time,instructions; with instructions -rounds defaults to 1, -fail to 'instr/op>0.5%' (gated against the measured spread, not a test; docs/counts.md) (default "time")
//	  -out string
//	    	directory for both sides' results, new or empty (default results/ab-<yyyymmdd-hhmmss>)
//	  -repeats int
//	    	with -measure instructions: times each row is counted per round (deferbench run -repeats); the spread is over them (default 2)
//	  -rounds int
//	    	rounds: repetitions of each side, alternating; at least 6 for one row to reach alpha 0.05, more when many rows are gated (12 cover 100 rows; see the gate line) (default 12)
//	  -scenarios string
//	    	comma-separated scenarios (deferbench list) (default "Stage,StageApply")
//	  -seed uint
//	    	seed of the per-round order (default from the clock; printed)
//	  -strategies string
//	    	comma-separated strategies (default all)
//
// Interleaving rounds of the two builds on one machine, in a random order each round, makes
// slow drift and other processes' load hit both alike (randomized multiple interleaved
// trials, Abedi and Brecht, ICPE 2017); pairing round i of one with round i of the other
// then removes what a round shares. A CI job runs, from a checkout with history:
//
//	go run ./cmd/deferbench ab -format markdown origin/main HEAD >> "$GITHUB_STEP_SUMMARY"
//
// docs/ci.md has the GitHub Actions and GitLab CI recipes and how to choose thresholds.
//
// # Report
//
//	usage: deferbench report DIR
//
//	rebuild summary.json, report.md, details.md and plots/ in results directory DIR from its bench.txt (a killed run, say)
//
//	DIR may be the bench.txt itself. The results directory is held with the run's lock file
//	while its files are rewritten; a lock file whose process no longer exists (a killed run) is
//	reclaimed with a note. A bench.txt still marked "run in progress" by a run that was killed
//	is marked "N results finished (run killed)" in bench.txt, env.json and the new files.
//	A bench.txt that holds two machines' results, or results repeated value for value (a file
//	joined with itself), is refused: each sample would count twice in one median.
//
// report.md opens with its first screen: the pick (the strategies that meet the most
// requirements decided in the run), how sure it is in one phrase tied to the trust flags
// (firm, fair, tentative or undecided, with the flags that bear on it), the one command that
// would make it surer, and per kind of need (a scenario's requirements) the pick and how sure.
// Then the trust flags (an emulated run, throttling, other work that took more than 10% of
// the machine's CPU time during the run — measured, or where it was not, a load average above
// the cores before the run —, headline intervals wider than ±10%, oversubscribed GOMAXPROCS,
// a Contention noop control below 0.9 efficiency), then "Which to pick": one row per
// requirement (reproducible order, lowest staging cost, readers that never wait, no
// allocation while staging, many parallel producers by cmds/s, bounded memory after a spike
// by retained-x, lowest frame time, lowest cost of structural changes), its variants folded
// in and named where their verdicts differ, the strategies that meet it in every variant and
// the declared capability it rests on, and a row per cost. A "lowest" requirement is met only
// on evidence (a lone best strategy, or members of a best group of at most half the ranked
// strategies each separated from every strategy outside it); otherwise it is undecided, for
// no one and against no one. Its Findings give per headline metric the groups of strategies
// noise cannot separate (≈), best first. details.md beside it has the verdicts per variant
// with their figures, the rankings with the ratio to the best and to baseline and the 95% CI
// of each ratio, and the tables.
//
// # Plot
//
//	usage: deferbench plot DIR
//
//	draw the results in DIR/bench.txt as charts in DIR/plots (SVG and PNG); DIR may be the bench.txt itself
//
// Plot draws, per scenario, the median ns/op of every variant and strategy as bars; for
// Frame, ns per frame and ns per frame per entity against entities; for Contention,
// efficiency and cmds/s against producers, one chart per GOMAXPROCS; for Readers, p50 and p99
// read latency; for Determinism, the distinct final states. Every median has its 95% CI as an
// error bar, an axis spanning more than 10× is logarithmic, and every strategy has its own
// colour and marker. Run draws the same charts into its results directory when it finishes.
//
// # Fleet
//
//	usage: deferbench fleet [-out FILE] DIR...
//
//	one markdown table of several boards' headline figures, a column per results directory
//
//	Each DIR is a results directory of deferbench run (bench.txt and env.json), one
//	per board, e.g. the folders scripts/pi/run.sh fetched into results/. The table has
//	one column per DIR and a row per figure: the machine (host, model, goarch, cores,
//	whether the run was emulated, complete, throttled or under-voltage, temperature
//	before and after), then per strategy the median of
//	  Stage cmd=typed          ns/op to stage one typed command
//	  Frame entities=100000    time per frame at 100,000 entities
//	  Contention efficiency    at producers = cores
//	at GOMAXPROCS = cores where the run has it (else the run's largest), ± the 95%
//	confidence interval as % of the median; "—" where the run has no such benchmark
//	(-quick runs Frame only at its smallest size).
//
//	flags:
//	  -out FILE
//	    	write the table to FILE (atomically: a new file, or one an earlier fleet -out wrote) instead of standard output
//
// Fleet puts runs of several machines side by side, one column each; scripts/pi/run.sh writes
// it as results/fleet-<date>.md after a run on two or more boards. It reads bench.txt and
// env.json only, so it works on any run folders, also copied from elsewhere.
//
// # List
//
//	usage: deferbench list
//
//	list the scenarios and strategies with descriptions
//
// # Env
//
//	usage: deferbench env
//
//	print the environment capture (CPU, cores, Go, kernel, governor, clocks, temperature, throttling) as JSON
//
// # Exit status
//
// 0 on success; 2 for a usage error (unknown command, flag, scenario or strategy, a bad flag
// value, a results directory that is taken or cannot be written), reported as one line naming
// the bad input and what is wanted ("run: -count: want a whole number ≥ 1, got "abc"");
// 3 when the gate of compare or ab could not judge every gated metric and none failed
// (inconclusive); 130 for an interrupted run (the first interrupt stops it after the current
// benchmark, the second at once); 1 for any other failure, a failed gate among them.
package main
