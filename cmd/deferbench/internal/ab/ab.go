// Package ab runs two builds of deferbench, BASE and HEAD (git revisions of the repository in
// the working directory, each built into a temporary worktree, or two binaries), alternately
// on this machine: round by round, each round one repetition (deferbench run -count 1) of
// the selected scenarios and strategies on each side, in an order drawn per round so that
// each side runs first in half the rounds. Each side's rounds stay in OUT/<side>/rounds/NNN
// and are merged into OUT/<side>/bench.txt, so that sample i of every metric is round i
// (what deferbench compare -paired pairs). Comparing the sides is package compare's job.
package ab

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/boundexec"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/isabuild"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
	"golang.org/x/perf/benchfmt"
)

// Config is one A/B run, its flags parsed and checked.
type Config struct {
	Base, Head string // as given: a deferbench binary or a git revision
	// Out is the directory for both sides' results, new or empty; "" means
	// results/ab-<yyyymmdd-hhmmss>.
	Out        string
	Rounds     int    // ≥ 1
	Benchtime  string // each round's deferbench run -benchtime, already checked
	Scenarios  string // each round's -scenarios
	Strategies string // each round's -strategies; "" for all
	Seed       uint64 // of the per-round order; 0 draws one (and prints it)
	// RunArgs are more arguments of each round's deferbench run (-measure, -repeats, -isa).
	RunArgs []string
	// ISAs are the instruction sets the rounds count (-isa): for an emulated one each side
	// needs its count child (isabuild.ChildPath beside the side's binary), built from the
	// side's revision, or lying beside a binary given; the rounds find it through
	// isabuild.PrefixEnv.
	ISAs   []counts.ISA
	Stderr io.Writer // progress and notes, one line each
}

// Side is one build under test.
type Side struct {
	Name string // base or head
	Arg  string // as given
	Bin  string // the binary that runs the rounds
	Rev  string // the commit, for a git revision; "" for a binary
}

// Result is what Run leaves: the sides, and where their merged results are.
type Result struct {
	Out        string
	Base, Head Side
	Started    time.Time
}

// Dir is side s's results directory, OUT/<s.Name>, holding the merged bench.txt.
func (r *Result) Dir(s Side) string { return filepath.Join(r.Out, s.Name) }

// Run resolves (or builds) both sides, runs cfg.Rounds rounds alternately and merges each
// side's rounds. Bad input (an -out that is taken, a side that is neither a deferbench binary
// nor a git revision) is a usage.Error; an interrupt (ctx done) wraps rundir.ErrInterrupted
// and names the directory that keeps the finished rounds.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	stderr := cfg.Stderr
	start := time.Now()
	out := cfg.Out
	if out == "" {
		out = filepath.Join("results", "ab-"+start.Format("20060102-150405"))
	}
	if err := newEmptyDir(out); err != nil {
		return nil, usage.Errorf("ab: -out %s: %v: choose a new -out", out, err)
	}
	cleanStale(ctx)
	tmp, err := os.MkdirTemp("", tempPattern)
	if err != nil {
		return nil, fmt.Errorf("ab: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("ab: %w", err)
	}
	sides := []*Side{{Name: "base", Arg: cfg.Base}, {Name: "head", Arg: cfg.Head}}
	for _, s := range sides {
		if err := resolve(ctx, stderr, s, tmp, cfg.ISAs); err != nil {
			os.Remove(out)
			return nil, err
		}
	}
	if sides[0].Rev != "" || sides[1].Rev != "" {
		// A revision is built from its commit: changes not committed are in neither side.
		if uncommitted(ctx) {
			fmt.Fprintf(stderr, "deferbench: ab: note: the work tree has uncommitted changes, which no revision includes: commit them, or give a binary built from the work tree\n")
		}
	}
	if sides[0].Rev != "" && sides[0].Rev == sides[1].Rev {
		fmt.Fprintf(stderr, "deferbench: ab: note: BASE and HEAD are the same commit %.12s: an A/A run (every difference is noise)\n", sides[0].Rev)
	}
	for _, s := range sides {
		if err := os.MkdirAll(filepath.Join(out, s.Name, "rounds"), 0o755); err != nil {
			return nil, fmt.Errorf("ab: %w", err)
		}
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	headFirst := roundOrders(cfg.Rounds, seed)
	fmt.Fprintf(stderr, "deferbench: ab: %d rounds of %s (benchtime %s), order seed %d, results in %s\n", cfg.Rounds, cfg.Scenarios, cfg.Benchtime, seed, out)
	for r := 1; r <= cfg.Rounds; r++ {
		order := []*Side{sides[0], sides[1]}
		if headFirst[r-1] {
			order[0], order[1] = order[1], order[0]
		}
		fmt.Fprintf(stderr, "deferbench: ab: round %d/%d: %s, then %s\n", r, cfg.Rounds, order[0].Name, order[1].Name)
		for _, s := range order {
			if err := cfg.runRound(ctx, s, out, r); err != nil {
				if errors.Is(err, context.Canceled) {
					return nil, fmt.Errorf("ab: %w in round %d; the finished rounds are in %s", rundir.ErrInterrupted, r, out)
				}
				if usage.Is(err) {
					return nil, err
				}
				return nil, fmt.Errorf("ab: %s (%s), round %d: %w; the finished rounds are in %s", s.Name, s.Arg, r, err, out)
			}
		}
	}
	for _, s := range sides {
		if err := mergeRounds(filepath.Join(out, s.Name), cfg.Rounds); err != nil {
			return nil, fmt.Errorf("ab: %w", err)
		}
	}
	return &Result{Out: out, Base: *sides[0], Head: *sides[1], Started: start}, nil
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

// tempPattern names an ab run's temporary directory (os.MkdirTemp), which holds the
// worktrees it builds revisions in and the binaries; pidFile in it holds the run's process
// id, so that a later run tells the directory of a killed run from one in progress.
const (
	tempPattern = "deferbench-ab-*"
	pidFile     = "ab.pid"
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
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPattern))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, pidFile))
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
// the repository in the working directory, built in a temporary worktree, with the count
// children of the emulated ISAs of isas beside it (a binary given must have them beside it).
func resolve(ctx context.Context, stderr io.Writer, s *Side, tmp string, isas []counts.ISA) error {
	if fi, err := os.Stat(s.Arg); err == nil && fi.Mode().IsRegular() {
		if fi.Mode()&0o111 == 0 {
			return usage.Errorf("ab: %s: %s is a file but not executable: give a deferbench binary or a git revision", strings.ToUpper(s.Name), s.Arg)
		}
		bin, err := filepath.Abs(s.Arg)
		if err != nil {
			return fmt.Errorf("ab: %w", err)
		}
		s.Bin = bin
		for _, isa := range isas {
			if p := isabuild.ChildPath(bin, isa); !isa.Host() && !fileExists(p) {
				return usage.Errorf("ab: %s: -isa %s counts a child built for %s beside the binary, and %s does not exist: build it (CGO_ENABLED=0 GOARCH=%s GOARM=%s go build -trimpath -ldflags=-w -o %s ./cmd/deferbench), or give a git revision",
					strings.ToUpper(s.Name), isa.Name, isa.GOARCH, p, isa.GOARCH, isa.GOARM, p)
			}
		}
		return nil
	}
	rev, err := boundexec.Run(ctx, gitLimits, "git", "rev-parse", "--verify", "--quiet", s.Arg+"^{commit}")
	if err != nil {
		return usage.Errorf("ab: %s: %q is neither a deferbench binary nor a git revision of the repository here", strings.ToUpper(s.Name), s.Arg)
	}
	s.Rev = strings.TrimSpace(string(rev.Stdout))
	wt := filepath.Join(tmp, s.Name+"-src")
	fmt.Fprintf(stderr, "deferbench: ab: building %s (%s = %.12s)\n", s.Name, s.Arg, s.Rev)
	if b, err := boundexec.Run(ctx, withCombined(gitLimits), "git", "worktree", "add", "--detach", wt, s.Rev); err != nil {
		return fmt.Errorf("ab: git worktree add %s: %v: %s", s.Arg, err, strings.TrimSpace(string(b.Stdout)))
	}
	defer func() {
		boundexec.Run(context.Background(), gitLimits, "git", "worktree", "remove", "--force", wt)
	}()
	s.Bin = filepath.Join(tmp, s.Name, "deferbench")
	build := boundexec.Options{Timeout: buildTimeout, Dir: wt, Combined: true}
	if b, err := boundexec.Run(ctx, build, "go", "build", "-o", s.Bin, "./cmd/deferbench"); err != nil {
		return fmt.Errorf("ab: building %s (%s): %v: %s", s.Name, s.Arg, err, lastLines(string(b.Stdout), 5))
	}
	if err := isabuild.BuildAll(ctx, wt, s.Bin, isas); err != nil {
		return fmt.Errorf("ab: %s (%s): %w", s.Name, s.Arg, err)
	}
	return nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], " | ")
}

// RoundGrace is how long a round's run has, after SIGTERM, to mark its files partial
// (summary.json, report.md and plots/ of what finished) before it is killed.
const RoundGrace = 3 * time.Second

// runRound runs one repetition of s into OUT/<side>/rounds/NN.
func (cfg Config) runRound(ctx context.Context, s *Side, out string, r int) error {
	dir := filepath.Join(out, s.Name, "rounds", fmt.Sprintf("%03d", r))
	args := append([]string{"run", "-count", "1", "-benchtime", cfg.Benchtime, "-scenarios", cfg.Scenarios, "-out", dir}, cfg.RunArgs...)
	if cfg.Strategies != "" {
		args = append(args, "-strategies", cfg.Strategies)
	}
	// The run is bounded by the context (a benchmark run has no fixed length); its
	// process group goes with it, and its output is kept up to 64 MiB. When the context is
	// done the run gets SIGTERM and RoundGrace to mark its files partial before SIGKILL.
	env := []string{isabuild.PrefixEnv + "=" + s.Bin}
	res, err := boundexec.Run(ctx, boundexec.Options{MaxOutput: 64 << 20, Stdout: io.Discard, Grace: RoundGrace, Env: env}, s.Bin, args...)
	os.WriteFile(dir+".log", res.Stderr, 0o644)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err // names the command line and the last lines of its standard error
	}
	if fi, err := os.Stat(filepath.Join(dir, "bench.txt")); err != nil || !fi.Mode().IsRegular() {
		// It ran and succeeded without writing results: not a deferbench binary (/bin/true).
		return usage.Errorf("ab: %s: %s run exited 0 but wrote no %s: give a deferbench binary or a git revision",
			strings.ToUpper(s.Name), s.Arg, filepath.Join(dir, "bench.txt"))
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
