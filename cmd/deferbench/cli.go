package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/rundir"
)

// usageError is bad input on the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// errInterrupted marks a run stopped by a signal: exit status 130.
var errInterrupted = rundir.ErrInterrupted

// exitCode prints err (if any) as one line on stderr and returns the exit status: 0 on
// success, 2 for a usage error, 130 for an interrupted run, 1 otherwise.
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
	}
	return 1
}

// env is what a subcommand runs with.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	stop           *stopper // nil: no signal handling (tests)
}

// stopper turns interrupts (SIGINT, SIGTERM) into stops. While a run is in progress the first
// one cancels the run's context, so the run stops after the current benchmark and writes its
// files marked partial; the second calls the run's hard stop, which marks the files partial
// with what finished, and exits at once with status 130. Outside a run, the first exits at
// once with status 130.
type stopper struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	running bool   // a run is in progress: the first interrupt stops it softly
	hard    func() // the run's hard stop; nil before it has files to mark
	n       int
	stderr  io.Writer
	exit    func(code int)
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

// SetHard sets the run's hard stop (nil when the run is over).
func (s *stopper) SetHard(f func()) {
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
		fmt.Fprintf(s.stderr, "\ndeferbench: interrupt: the run stops after the current benchmark and keeps what finished; interrupt again to stop at once\n")
		s.cancel()
		return
	}
	if running {
		fmt.Fprintf(s.stderr, "\ndeferbench: second interrupt: stopping at once\n")
		if hard != nil {
			hard()
		}
	}
	s.exit(130)
}

// watch handles the interrupts arriving on sigs until done is closed.
func (s *stopper) watch(sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case <-sigs:
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

// commands is the subcommand table, in the order help lists them.
var commands []*command

func init() {
	commands = []*command{runCommand, compareCommand, abCommand, reportCommand, plotCommand, fleetCommand, listCommand, envCommand, helpCommand}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// run is the whole CLI: it parses args (without the program name), runs the subcommand with
// its output on stdout and diagnostics on stderr, and returns what went wrong. The first
// SIGINT or SIGTERM stops a running benchmark suite after the current benchmark, the second
// at once (see stopper).
func run(args []string, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	s := &stopper{cancel: cancel, stderr: stderr, exit: os.Exit}
	done := make(chan struct{})
	defer close(done)
	go s.watch(sigs, done)
	return runStopper(ctx, s, args, stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runStopper(ctx, nil, args, stdout, stderr)
}

func runStopper(ctx context.Context, stop *stopper, args []string, stdout, stderr io.Writer) error {
	out := &render.ErrWriter{W: stdout}
	err := dispatch(ctx, stop, args, out, stderr)
	if err == nil && out.Err != nil {
		// Output lost (stdout on a full disk, a closed file): not a success.
		return fmt.Errorf("write output: %w", out.Err)
	}
	return err
}

func dispatch(ctx context.Context, stop *stopper, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command (valid: %s; see deferbench help)", commandNames())
	}
	switch args[0] {
	case "-h", "-help", "--help":
		writeUsage(stdout)
		return nil
	}
	c := lookup(args[0])
	if c == nil {
		return usagef("unknown command %q (valid: %s)", args[0], commandNames())
	}
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, stop: stop}
	fs := newFlagSet(c)
	exec := c.setup(fs, e)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeCommandHelp(stdout, c)
			return nil
		}
		return flagError(c, fs, err)
	}
	rest := fs.Args()
	if n := len(args) - 1 - len(rest); c.flagsAfter && n > 0 && args[n] == "--" {
		rest = append([]string{"--"}, rest...) // "compare -- -old.txt new.txt"
	}
	return exec(rest)
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

// writeUsage prints the top-level usage: one line per subcommand.
func writeUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: deferbench <command> [arguments]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'deferbench help <command>' for a command's flags.\n")
}

// writeCommandHelp prints a subcommand's synopsis, summary, detail and flags.
func writeCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", strings.TrimSpace("deferbench "+c.name+" "+c.args), c.summary)
	if c.detail != "" {
		fmt.Fprintf(w, "\n%s\n", c.detail)
	}
	fs := newFlagSet(c)
	c.setup(fs, &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard})
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(w, "\nflags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

var helpCommand = &command{
	name:    "help",
	args:    "[command]",
	summary: "show the commands, or one command's flags",
	setup: func(fs *flag.FlagSet, e *env) func([]string) error {
		return func(args []string) error {
			switch len(args) {
			case 0:
				writeUsage(e.stdout)
				return nil
			case 1:
				c := lookup(args[0])
				if c == nil {
					return usagef("help: unknown command %q (valid: %s)", args[0], commandNames())
				}
				writeCommandHelp(e.stdout, c)
				return nil
			}
			return usagef("help: too many arguments %q (want at most one command)", strings.Join(args, " "))
		}
	},
}

// noArgs refuses positional arguments for commands that take none.
func noArgs(c string, args []string) error {
	if len(args) > 0 {
		return usagef("%s: unexpected argument %q (takes no arguments)", c, args[0])
	}
	return nil
}
