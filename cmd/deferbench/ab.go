package main

import (
	"flag"
	"strconv"
	"strings"
	"time"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/ab"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/compare"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/counts"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/harness"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/runopts"
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
		isa := fs.String("isa", "host", "with -measure instructions: the instruction sets each round counts, as deferbench run -isa: host, pi4, pi5, pi4-32 (a revision's count children are cross-built with it; a binary needs deferbench-linux-arm64 and -arm beside it)")
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
			m, err := runopts.ParseMeasure("ab", *measure)
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
			if err := checkABNames("scenarios", *scenarios, harness.ScenarioNames()); err != nil {
				return err
			}
			if err := checkABNames("strategies", *strategies, harness.StrategyNames()); err != nil {
				return err
			}
			cfg := ab.Config{Base: args[0], Head: args[1], Out: *out, Rounds: *rounds, Benchtime: *benchtime,
				Scenarios: *scenarios, Strategies: *strategies, Seed: *seed, Stderr: e.stderr}
			if m.Instructions {
				if *repeats < 1 || *repeats > 100 {
					return usagef("ab: -repeats %d: want a whole number from 1 to 100", *repeats)
				}
				cfg.RunArgs = []string{"-measure", *measure, "-repeats", strconv.Itoa(*repeats)}
				if set["isa"] {
					if cfg.ISAs, err = counts.ParseISAs(*isa); err != nil {
						return usagef("ab: -isa: %v", err)
					}
					cfg.RunArgs = append(cfg.RunArgs, "-isa", *isa)
				}
			} else if set["isa"] {
				if _, err := counts.ParseISAs(*isa); err != nil {
					return usagef("ab: -isa: %v", err) // a wrong name first, before -measure
				}
				return usagef("ab: -isa %s counts instructions: add -measure instructions", *isa)
			}
			res, err := abRun(e, cfg)
			if err != nil {
				return err
			}
			return compare.Sides(compare.SidesRequest{Out: res.Out, BaseDir: res.Dir(res.Base), HeadDir: res.Dir(res.Head),
				BaseArg: res.Base.Arg, HeadArg: res.Head.Arg, Started: res.Started, Options: opt,
				Output: o.output(), Gates: o.gates(e, "ab"), Stdout: e.stdout, Stderr: e.stderr})
		}
	},
}

// abHardWait bounds how long SIGTERM or a second interrupt waits for the round in progress
// to stop: its run marks its files partial at once, and is killed after ab.RoundGrace.
const abHardWait = ab.RoundGrace + 2*time.Second

// abRun runs ab.Run as an interruptible run: each round is a deferbench run in a process
// group of its own, which a terminal's Ctrl-C does not reach, so the first interrupt cancels
// the context, which stops the round's run (its files marked partial) and returns
// rundir.ErrInterrupted naming the finished rounds (exit status 130). SIGTERM or a second
// interrupt also stops the round's run, waiting at most abHardWait for it, before the process
// exits: without this the round's run was left orphaned with its files "in progress".
func abRun(e *env, cfg ab.Config) (*ab.Result, error) {
	if e.stop == nil {
		return ab.Run(e.ctx, cfg)
	}
	finished := make(chan struct{})
	e.stop.Begin()
	e.stop.SetHard(func(string) {
		e.stop.cancel()
		select {
		case <-finished:
		case <-time.After(abHardWait):
		}
	})
	defer e.stop.SetHard(nil)
	defer close(finished)
	return ab.Run(e.ctx, cfg)
}

// checkABNames refuses, before anything is built, a -scenarios or -strategies list (flag)
// with an empty name or a name this deferbench does not know in any case: each round runs
// the list on both sides, and a name neither knows would fail the first round only after
// both revisions were built. value "" (the flag's default for all) passes.
func checkABNames(flag, value string, valid []string) error {
	if value == "" {
		return nil
	}
	for _, n := range strings.Split(value, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return usagef("ab: -%s %q: empty name in the list (valid: %s)", flag, value, strings.Join(valid, ", "))
		}
		known := false
		for _, v := range valid {
			known = known || strings.EqualFold(v, n)
		}
		if !known {
			return usagef("ab: -%s: unknown name %q (valid: %s; deferbench list names them)", flag, n, strings.Join(valid, ", "))
		}
	}
	return nil
}
