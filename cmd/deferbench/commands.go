package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/render"
)

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
// SIGINT stops a running benchmark suite after the current benchmark, the second at once;
// SIGTERM and SIGHUP (a closed terminal, a dropped ssh session) stop it at once (see
// stopper). SIGPIPE is ignored: a closed pipe on stdout or stderr (deferbench run | head)
// loses that output, not the run, which finishes and writes its results.
func run(args []string, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	s := &stopper{cancel: cancel, stderr: stderr, stopChildren: stopChildren, exit: os.Exit}
	done := make(chan struct{})
	defer close(done)
	go s.watch(sigs, done)
	err := runStopper(ctx, s, args, stdout, stderr)
	s.waitAtOnce()
	return err
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
	e := &env{cmd: c, ctx: ctx, stdout: stdout, stderr: stderr, stop: stop}
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

// writeUsage prints the top-level usage: one line per subcommand.
func writeUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: deferbench <command> [arguments]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'deferbench help <command>' for a command's flags.\n")
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
