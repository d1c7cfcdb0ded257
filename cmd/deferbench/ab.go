package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/boundexec"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"golang.org/x/perf/benchfmt"
)

// Defaults of deferbench ab: sized for a CI runner (2 cores, a few minutes).
const (
	abRounds    = 12
	abBenchtime = "20ms"
	abScenarios = "Stage,StageApply"
	abFail      = "sec/op>5%,allocs/op>0,B/op>0"
)

const abDetail = `BASE and HEAD are git revisions of this repository (each built with go build
into a temporary worktree) or two deferbench binaries. The two run alternately on this
machine, round by round, in a random order each round (each side first in half the
rounds); a round is one repetition (deferbench run -count 1) of the selected scenarios
and strategies. Then round i of BASE
is paired with round i of HEAD: the change is the median of the per-round ratios, tested
with the Wilcoxon signed-rank test, and the gate applies as in compare (exit 1 when it
fails, 2 for bad input, 3 when it could not judge every gated metric). Each side's rounds stay in OUT/base and OUT/head, every round
in its own results directory, all rounds merged into OUT/<side>/bench.txt for
deferbench compare -paired, and every compared row in OUT/compare.md (-full). The defaults (Stage and StageApply: staging, stage plus
commit, allocations; 12 rounds of 20ms) take about two minutes on 2 cores. The gate
adjusts its p-values over the rows it tests (Holm's method), so that an unchanged build
fails it with probability at most -alpha however many rows are gated; with N tested rows a
row can fail only if its smallest possible p, 2^(1-rounds), is below alpha/N: 12 rounds
cover up to 100 rows at alpha 0.05 (the defaults gate about 50), and the gate line says when
too few rounds let no row fail.`

var abCommand = &command{
	name:       "ab",
	flagsAfter: true,
	args:       "[flags] BASE HEAD",
	summary:    "A/B: run two builds (git revisions or binaries) alternately on this machine, compare the paired rounds and apply the gate",
	detail:     abDetail,
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		o := compareFlags{fail: abFail}
		o.define(fs)
		rounds := fs.Int("rounds", abRounds, "rounds: repetitions of each side, alternating; at least 6 for one row to reach alpha 0.05, more when many rows are gated (12 cover 100 rows; see the gate line)")
		benchtime := fs.String("benchtime", abBenchtime, "time or iterations per benchmark and round, as deferbench run -benchtime")
		scenarios := fs.String("scenarios", abScenarios, "comma-separated scenarios (deferbench list)")
		strategies := fs.String("strategies", "", "comma-separated strategies (default all)")
		out := fs.String("out", "", "directory for both sides' results, new or empty (default results/ab-<yyyymmdd-hhmmss>)")
		seed := fs.Uint64("seed", 0, "seed of the per-round order (default from the clock; printed)")
		measure := fs.String("measure", "time", "what each round measures, as deferbench run -measure: time, instructions or time,instructions; with instructions -rounds defaults to 1, -fail to '"+abCountFail+"' (gated against the measured spread, not a test; docs/counts.md)")
		repeats := fs.Int("repeats", 2, "with -measure instructions: times each row is counted per round (deferbench run -repeats); the spread is over them")
		return func(args []string) error {
			args, err := parseInterspersed(e.cmd, fs, args)
			if err != nil {
				return err
			}
			if args == nil {
				writeCommandHelp(e.stdout, e.cmd)
				return nil
			}
			if len(args) != 2 {
				return usagef("ab: want two arguments BASE HEAD (git revisions or deferbench binaries), got %d", len(args))
			}
			m, err := parseMeasure("ab", *measure)
			if err != nil {
				return err
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if m.Instructions {
				applyCountDefaults(&o, m, set, rounds)
			}
			opt, err := o.options("ab")
			if err != nil {
				return err
			}
			opt.Paired = true
			if *rounds < 1 || *rounds > 1000 {
				return usagef("ab: -rounds %d: want a whole number from 1 to 1000", *rounds)
			}
			if _, err := harness.ParseBenchtime(*benchtime); err != nil {
				return usagef("ab: -benchtime %q: want a duration like 100ms or an iteration count like 1000x", *benchtime)
			}
			a := abRun{e: e, rounds: *rounds, benchtime: *benchtime, scenarios: *scenarios, strategies: *strategies, seed: *seed}
			if m.Instructions {
				if *repeats < 1 || *repeats > 100 {
					return usagef("ab: -repeats %d: want a whole number from 1 to 100", *repeats)
				}
				a.runArgs = []string{"-measure", *measure, "-repeats", strconv.Itoa(*repeats)}
			}
			return a.do(args[0], args[1], *out, &o, opt)
		}
	},
}

type abRun struct {
	e                     *env
	rounds                int
	benchtime             string
	scenarios, strategies string
	seed                  uint64
	runArgs               []string // more arguments of each round's deferbench run (-measure)
}

// side is one build under test.
type side struct {
	name string // base or head
	arg  string // as given
	bin  string
	rev  string // the commit, for a git revision
}

func (a *abRun) do(baseArg, headArg, out string, o *compareFlags, opt analysis.CompareOptions) error {
	e := a.e
	start := time.Now()
	if out == "" {
		out = filepath.Join("results", "ab-"+start.Format("20060102-150405"))
	}
	if err := newEmptyDir(out); err != nil {
		return usagef("ab: -out %s: %v: choose a new -out", out, err)
	}
	cleanStale(e.ctx)
	tmp, err := os.MkdirTemp("", abTempPattern)
	if err != nil {
		return fmt.Errorf("ab: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, abPIDFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("ab: %w", err)
	}
	sides := []*side{{name: "base", arg: baseArg}, {name: "head", arg: headArg}}
	for _, s := range sides {
		if err := a.resolve(s, tmp); err != nil {
			os.Remove(out)
			return err
		}
	}
	if sides[0].rev != "" || sides[1].rev != "" {
		// A revision is built from its commit: changes not committed are in neither side.
		if uncommitted(e.ctx) {
			fmt.Fprintf(e.stderr, "deferbench: ab: note: the work tree has uncommitted changes, which no revision includes: commit them, or give a binary built from the work tree\n")
		}
	}
	if sides[0].rev != "" && sides[0].rev == sides[1].rev {
		fmt.Fprintf(e.stderr, "deferbench: ab: note: BASE and HEAD are the same commit %.12s: an A/A run (every difference is noise)\n", sides[0].rev)
	}
	for _, s := range sides {
		if err := os.MkdirAll(filepath.Join(out, s.name, "rounds"), 0o755); err != nil {
			return fmt.Errorf("ab: %w", err)
		}
	}
	seed := a.seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	headFirst := roundOrders(a.rounds, seed)
	fmt.Fprintf(e.stderr, "deferbench: ab: %d rounds of %s (benchtime %s), order seed %d, results in %s\n", a.rounds, a.scenarios, a.benchtime, seed, out)
	for r := 1; r <= a.rounds; r++ {
		order := []*side{sides[0], sides[1]}
		if headFirst[r-1] {
			order[0], order[1] = order[1], order[0]
		}
		fmt.Fprintf(e.stderr, "deferbench: ab: round %d/%d: %s, then %s\n", r, a.rounds, order[0].name, order[1].name)
		for _, s := range order {
			if err := a.runRound(s, out, r); err != nil {
				if errors.Is(err, context.Canceled) {
					return fmt.Errorf("ab: %w in round %d; the finished rounds are in %s", errInterrupted, r, out)
				}
				if ue := (*usageError)(nil); errors.As(err, &ue) {
					return err
				}
				return fmt.Errorf("ab: %s (%s), round %d: %w; the finished rounds are in %s", s.name, s.arg, r, err, out)
			}
		}
	}
	for _, s := range sides {
		if err := mergeRounds(filepath.Join(out, s.name), a.rounds); err != nil {
			return fmt.Errorf("ab: %w", err)
		}
	}
	basePath, headPath := filepath.Join(out, "base"), filepath.Join(out, "head")
	old, err := readRun("ab", basePath)
	if err != nil {
		return err
	}
	new, err := readRun("ab", headPath)
	if err != nil {
		return err
	}
	c := analysis.CompareRuns(old, new, opt)
	for _, n := range c.Notes {
		fmt.Fprintf(e.stderr, "deferbench: ab: note: %s\n", n)
	}
	cerr := countGate(e, "ab", o.countTs, old, new)
	if ue := (*usageError)(nil); errors.As(cerr, &ue) {
		return cerr
	}
	fmt.Fprintf(e.stderr, "deferbench: ab: done in %s; BASE (%s) in %s, HEAD (%s) in %s; compare again with: deferbench compare -paired %s %s\n",
		time.Since(start).Round(time.Second), sides[0].arg, basePath, sides[1].arg, headPath, rundir.ShellQuote(basePath), rundir.ShellQuote(headPath))
	if len(c.Rows) == 0 {
		return fmt.Errorf("ab: BASE and HEAD have no benchmark and unit in common")
	}
	o.flags[0], o.flags[1] = analysis.TrustFlags(old, nil), analysis.TrustFlags(new, nil)
	if o.full == "" {
		o.full = filepath.Join(out, "compare.md")
	}
	return gateResult(o.write(e, "ab", basePath, headPath, "base "+sides[0].arg, "head "+sides[1].arg, c), cerr)
}

// uncommitted reports whether the git work tree here has changes to tracked files that are
// not committed (false outside a work tree).
func uncommitted(ctx context.Context) bool {
	st, err := boundexec.Run(ctx, gitLimits, "git", "status", "--porcelain", "--untracked-files=no")
	return err == nil && len(bytes.TrimSpace(st.Stdout)) > 0
}

// newEmptyDir creates dir, or accepts an existing empty one.
func newEmptyDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, os.ErrExist) {
		ents, rerr := os.ReadDir(dir)
		if rerr != nil {
			return rerr
		}
		if len(ents) > 0 {
			return errors.New("exists and is not empty")
		}
		return nil
	}
	return err
}

// abTempPattern names an ab run's temporary directory (os.MkdirTemp), which holds the
// worktrees it builds revisions in and the binaries; abPIDFile in it holds the run's process
// id, so that a later run tells the directory of a killed run from one in progress.
const (
	abTempPattern = "deferbench-ab-*"
	abPIDFile     = "ab.pid"
)

// cleanStale removes what ab runs that were killed (kill -9, a CI timeout) left behind: each
// temporary directory whose pid file names a process that is gone, with the git worktrees
// registered in it (removed even when locked, as one is while git worktree add runs), and
// then the worktree entries of this repository whose directories are gone (git worktree
// prune, harmless when nothing is stale). A directory without a readable pid file, or whose
// process is alive, may be a run in progress and is left alone. Errors are ignored: outside
// a git repository there is nothing to prune, and what cannot be removed now is tried again
// by the next run.
func cleanStale(ctx context.Context) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), abTempPattern))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, abPIDFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		for _, name := range []string{"base-src", "head-src"} {
			if wt := filepath.Join(d, name); fileExists(wt) {
				boundexec.Run(ctx, gitLimits, "git", "worktree", "remove", "--force", "--force", wt)
			}
		}
		os.RemoveAll(d)
	}
	boundexec.Run(ctx, gitLimits, "git", "worktree", "prune")
}

// processAlive reports whether process pid exists; true when that cannot be told (the
// conservative answer: its files are kept).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false // Windows: no such process
	}
	defer p.Release()
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Limits of the external commands ab runs (see boundexec.Run), besides the context: a git
// command, and building a revision (minutes on a Raspberry Pi).
var (
	gitLimits    = boundexec.Options{Timeout: 2 * time.Minute}
	buildTimeout = 30 * time.Minute
)

func withCombined(o boundexec.Options) boundexec.Options { o.Combined = true; return o }

// resolve finds or builds s's binary: an executable file as it is, else a git revision of
// the repository in the working directory, built in a temporary worktree.
func (a *abRun) resolve(s *side, tmp string) error {
	if fi, err := os.Stat(s.arg); err == nil && fi.Mode().IsRegular() {
		if fi.Mode()&0o111 == 0 {
			return usagef("ab: %s: %s is a file but not executable: give a deferbench binary or a git revision", strings.ToUpper(s.name), s.arg)
		}
		bin, err := filepath.Abs(s.arg)
		if err != nil {
			return fmt.Errorf("ab: %w", err)
		}
		s.bin = bin
		return nil
	}
	rev, err := boundexec.Run(a.e.ctx, gitLimits, "git", "rev-parse", "--verify", "--quiet", s.arg+"^{commit}")
	if err != nil {
		return usagef("ab: %s: %q is neither a deferbench binary nor a git revision of the repository here", strings.ToUpper(s.name), s.arg)
	}
	s.rev = strings.TrimSpace(string(rev.Stdout))
	wt := filepath.Join(tmp, s.name+"-src")
	fmt.Fprintf(a.e.stderr, "deferbench: ab: building %s (%s = %.12s)\n", s.name, s.arg, s.rev)
	if b, err := boundexec.Run(a.e.ctx, withCombined(gitLimits), "git", "worktree", "add", "--detach", wt, s.rev); err != nil {
		return fmt.Errorf("ab: git worktree add %s: %v: %s", s.arg, err, strings.TrimSpace(string(b.Stdout)))
	}
	defer func() {
		boundexec.Run(context.Background(), gitLimits, "git", "worktree", "remove", "--force", wt)
	}()
	s.bin = filepath.Join(tmp, s.name, "deferbench")
	build := boundexec.Options{Timeout: buildTimeout, Dir: wt, Combined: true}
	if b, err := boundexec.Run(a.e.ctx, build, "go", "build", "-o", s.bin, "./cmd/deferbench"); err != nil {
		return fmt.Errorf("ab: building %s (%s): %v: %s", s.name, s.arg, err, lastLines(string(b.Stdout), 5))
	}
	return nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], " | ")
}

// runRound runs one repetition of s into OUT/<side>/rounds/NN.
func (a *abRun) runRound(s *side, out string, r int) error {
	dir := filepath.Join(out, s.name, "rounds", fmt.Sprintf("%03d", r))
	args := append([]string{"run", "-count", "1", "-benchtime", a.benchtime, "-scenarios", a.scenarios, "-out", dir}, a.runArgs...)
	if a.strategies != "" {
		args = append(args, "-strategies", a.strategies)
	}
	// The run is bounded by the context (a benchmark run has no fixed length); its
	// process group goes with it, and its output is kept up to 64 MiB.
	res, err := boundexec.Run(a.e.ctx, boundexec.Options{MaxOutput: 64 << 20, Stdout: io.Discard}, s.bin, args...)
	os.WriteFile(dir+".log", res.Stderr, 0o644)
	if a.e.ctx.Err() != nil {
		return a.e.ctx.Err()
	}
	if err != nil {
		return err // names the command line and the last lines of its standard error
	}
	if fi, err := os.Stat(filepath.Join(dir, "bench.txt")); err != nil || !fi.Mode().IsRegular() {
		// It ran and succeeded without writing results: not a deferbench binary (/bin/true).
		return usagef("ab: %s: %s run exited 0 but wrote no %s: give a deferbench binary or a git revision",
			strings.ToUpper(s.name), s.arg, filepath.Join(dir, "bench.txt"))
	}
	return nil
}

// mergeRounds writes DIR/bench.txt: the rounds' bench.txt files one after the other, each
// with its own configuration lines, so that sample i of every metric is round i.
func mergeRounds(dir string, rounds int) error {
	var b bytes.Buffer
	for r := 1; r <= rounds; r++ {
		p := filepath.Join(dir, "rounds", fmt.Sprintf("%03d", r), "bench.txt")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// Check it parses and holds results before merging.
		rd := benchfmt.NewReader(bytes.NewReader(data), p)
		n := 0
		for rd.Scan() {
			if _, ok := rd.Result().(*benchfmt.Result); ok {
				n++
			}
		}
		if n == 0 {
			return fmt.Errorf("%s holds no results", p)
		}
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return results.WriteFileAtomic(filepath.Join(dir, "bench.txt"), b.Bytes())
}

// roundOrders draws which side runs first in each of n rounds: a random permutation of
// n/2 rounds with HEAD first and the rest with BASE first (the odd one out by a coin), so that
// whatever favours the first or the second run of a round (a warm page cache, a frequency
// step) falls on both sides alike instead of on whichever side a run of coin flips favoured.
// The stream is ChaCha8 keyed by seed: nearby seeds give unrelated orders.
func roundOrders(n int, seed uint64) []bool {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	rng := rand.New(rand.NewChaCha8(key))
	out := make([]bool, n)
	k := n / 2
	if n%2 == 1 && rng.IntN(2) == 1 {
		k++
	}
	for i := range k {
		out[i] = true
	}
	rng.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
