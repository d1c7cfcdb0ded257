package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/boundexec"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
)

// usageError is bad input on the command line: exit status 2.
type usageError = usage.Error

func usagef(format string, args ...any) error { return usage.Errorf(format, args...) }

// errInterrupted marks a run stopped by a signal: exit status 130.
var errInterrupted = rundir.ErrInterrupted

// exitCode prints err (if any) as one line on stderr and returns the exit status: 0 on
// success, 2 for a usage error, 3 for a gate that could not judge every gated metric
// (analysis.ErrGateInconclusive), 130 for an interrupted run, 1 otherwise (a failed gate
// among them).
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "deferbench: %v\n", err)
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.Is(err, errInterrupted):
		return 130
	case errors.Is(err, analysis.ErrGateInconclusive):
		return 3
	}
	return 1
}

// env is what a subcommand runs with.
type env struct {
	cmd            *command // the subcommand running
	ctx            context.Context
	stdout, stderr io.Writer
	stop           *stopper // nil: no signal handling (tests)
}

// stopper turns interrupts (SIGINT) into stops, and SIGTERM into a stop at once (terminate).
// While a run is in progress the first
// one cancels the run's context, so the run stops after the current benchmark and writes its
// files marked partial; the second calls the run's hard stop, which marks the files partial
// with what finished, stops the children (stopChildren) and exits at once with status 130.
// Outside a run, the first stops the children and exits at once with status 130.
type stopper struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	running bool             // a run is in progress: the first interrupt stops it softly
	hard    func(why string) // the run's hard stop; nil before it has files to mark
	n       int
	stderr  io.Writer
	// stopChildren runs before exit on a stop at once: the function stopChildren in the
	// CLI, a recorder in tests (the real one cannot be undone in a test binary).
	stopChildren func()
	exit         func(code int)
	// atOnce is set when a stop at once has begun (SIGTERM, a second interrupt, one outside a
	// run): from then on that stop, not the run's return, decides the exit status (atOnceExit).
	atOnce atomic.Bool
	exited atomic.Bool // exit returned (a recorder in tests; os.Exit never returns)
}

// atOnceGrace bounds how long the CLI's return waits for a stop at once to exit the process.
const atOnceGrace = 30 * time.Second

// waitAtOnce is called when the run returns: while a stop at once is in progress it waits
// for that stop to exit the process with its status (130 or 143) — a run whose children the
// stop killed returns an error meanwhile, and exiting on it would report status 1 and could
// cut the stop's cleanup short. It returns at once otherwise, and after atOnceGrace.
func (s *stopper) waitAtOnce() {
	if s == nil {
		return
	}
	for deadline := time.Now().Add(atOnceGrace); s.atOnce.Load() && !s.exited.Load() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// stopChildren kills every child still running in a process group of its own (valgrind,
// cross builds, ab's rounds), removes every temporary directory (counts.MakeTemp's: a
// chart build's fresh plots/ among them) and the lock files of the results directories
// this process holds, for a process about to exit on a signal. From then on this process starts no child through boundexec and makes
// no temporary directory through counts.MakeTemp, so that nothing the run does meanwhile
// outlives the exit. It is safe for concurrent use; there is no undoing it.
func stopChildren() {
	boundexec.KillAll() // children in process groups of their own (valgrind, ab's rounds)
	counts.RemoveTemps()
	results.ReleaseAll()
}

// Begin says a run is in progress.
func (s *stopper) Begin() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = true
}

// SetHard sets the run's hard stop, which takes the reason in words (nil when the run is over).
func (s *stopper) SetHard(f func(why string)) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hard = f
	if f == nil {
		s.running = false
	}
}

// interrupt handles one interrupt.
func (s *stopper) interrupt() {
	s.mu.Lock()
	s.n++
	n, running, hard := s.n, s.running, s.hard
	s.mu.Unlock()
	if n == 1 && running {
		fmt.Fprintf(s.stderr, "\ndeferbench: interrupt: the run stops after the current benchmark (within a second) and keeps what finished; interrupt again to stop at once\n")
		s.cancel()
		return
	}
	s.atOnce.Store(true)
	if running {
		fmt.Fprintf(s.stderr, "\ndeferbench: second interrupt: stopping at once\n")
		if hard != nil {
			hard("stopped at once by a second interrupt")
		}
	}
	s.stopChildren()
	s.exit(130)
	s.exited.Store(true)
}

// terminate handles SIGTERM, which timeout(1), CI cancels and container stops send and follow
// with SIGKILL after a grace period: no waiting for the benchmark in progress (it may last
// -benchtime and more). A run calls its hard stop, which marks the files partial with what
// finished; then the process exits with status 143 (128 + SIGTERM).
func (s *stopper) terminate() { s.terminateBy(syscall.SIGTERM) }

// terminateBy is terminate for signal sig: SIGTERM, or SIGHUP, which a closed terminal or a
// dropped ssh session (to a Pi, say) sends; the exit status is 128 + sig.
func (s *stopper) terminateBy(sig syscall.Signal) {
	s.mu.Lock()
	s.n++
	running, hard := s.running, s.hard
	s.mu.Unlock()
	s.atOnce.Store(true)
	name, what := "SIGTERM", "terminated"
	if sig == syscall.SIGHUP {
		name, what = "SIGHUP", "hung up (SIGHUP: the terminal or ssh session closed)"
	}
	if running {
		fmt.Fprintf(s.stderr, "\ndeferbench: %s: stopping at once\n", what)
		if hard != nil {
			hard("stopped at once by " + name)
		}
	}
	s.stopChildren()
	s.exit(128 + int(sig))
	s.exited.Store(true)
}

// watch handles the interrupts arriving on sigs until done is closed.
func (s *stopper) watch(sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case sig := <-sigs:
			if sig, ok := sig.(syscall.Signal); ok && (sig == syscall.SIGTERM || sig == syscall.SIGHUP) {
				s.terminateBy(sig)
				continue
			}
			s.interrupt()
		case <-done:
			return
		}
	}
}

// command is one subcommand: its flags are defined by setup on a fresh FlagSet, which returns
// the function that runs it with the remaining arguments.
type command struct {
	name    string
	args    string // synopsis after the name, e.g. "[flags]"
	summary string
	detail  string // more of the help text, after the summary; optional
	setup   func(fs *flag.FlagSet, e *env) func(args []string) error
	// flagsAfter: the command parses flags after its arguments too (parseInterspersed), so
	// a "--" that ended the first parse is passed on to keep what follows it arguments.
	flagsAfter bool
}

func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// flagWants says what a flag's value must be, for the flags whose type alone does not say it
// (keyed "command -flag").
var flagWants = map[string]string{
	"run -count":     "a whole number ≥ 1",
	"compare -alpha": "a number in (0, 1)",
}

// flagWant says what value flag name of command c wants: from flagWants, else from its type.
func flagWant(c *command, fs *flag.FlagSet, name string) string {
	if w, ok := flagWants[c.name+" -"+name]; ok {
		return w
	}
	f := fs.Lookup(name)
	if f == nil {
		return "a valid value"
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a valid value"
	}
	switch g.Get().(type) {
	case bool:
		return "true or false"
	case int, int64:
		return "a whole number"
	case uint, uint64:
		return "a whole number ≥ 0"
	case float64:
		return "a number"
	case time.Duration:
		return "a duration like 100ms"
	case string:
		return f.Usage // what the flag's help says it takes
	}
	return "a valid value"
}

var (
	badValueRE = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): `)
	noValueRE  = regexp.MustCompile(`^flag needs an argument: -(.+)$`)
)

// flagError turns the flag package's error into one line naming the command, the flag, what
// it wants and (for an unknown flag) the valid flags: "run: -count: want a whole number ≥ 1,
// got "abc"".
func flagError(c *command, fs *flag.FlagSet, err error) error {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
	sort.Strings(names)
	valid := strings.Join(names, ", ")
	if valid == "" {
		valid = "none"
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return usagef("%s: unknown flag %s (valid: %s)", c.name, name, valid)
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		if strings.HasSuffix(msg, "value out of range") {
			return usagef("%s: -%s: %s is too large: want %s", c.name, m[2], m[1], flagWant(c, fs, m[2]))
		}
		return usagef("%s: -%s: want %s, got %s", c.name, m[2], flagWant(c, fs, m[2]), m[1])
	}
	if m := noValueRE.FindStringSubmatch(msg); m != nil {
		return usagef("%s: -%s needs a value: want %s", c.name, m[1], flagWant(c, fs, m[1]))
	}
	return usagef("%s: %s", c.name, strings.ReplaceAll(msg, "\n", " "))
}

// writeCommandHelp prints a subcommand's synopsis, summary, detail and flags.
func writeCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", strings.TrimSpace("deferbench "+c.name+" "+c.args), c.summary)
	if c.detail != "" {
		fmt.Fprintf(w, "\n%s\n", c.detail)
	}
	fs := newFlagSet(c)
	c.setup(fs, &env{cmd: c, ctx: context.Background(), stdout: io.Discard, stderr: io.Discard})
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(w, "\nflags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// noArgs refuses positional arguments for commands that take none.
func noArgs(c string, args []string) error {
	if len(args) > 0 {
		return usagef("%s: unexpected argument %q (takes no arguments)", c, args[0])
	}
	return nil
}
