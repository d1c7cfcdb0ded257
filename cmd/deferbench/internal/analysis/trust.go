package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// LoadedAbove is the share of the machine's CPU time (other work plus steal) above which a
// run is flagged Loaded: 0.10, a tenth of all CPUs' time.
const LoadedAbove = 0.10

// TrustFlags returns what makes one side of a comparison less trustworthy than a complete
// run on a quiet, real machine, one short phrase each, in this order:
//   - "Loaded (…)": env's measured share of other work and steal above LoadedAbove, or, when
//     that was not measured, a 1-minute load average before the run above the cores;
//   - "partial: N of M … finished (…)": the results' partial marker;
//   - "emulated (…)": the emulated config key, when it is neither "no" nor "unknown" (an
//     emulated ISA's count rows, isa: pi4, say how they were counted, not that the run was
//     emulated, and are passed over);
//   - "throttled": the firmware throttled during the run.
//
// env may be nil (a bench.txt outside a results directory, a pipe): then only the results'
// own configuration counts. It returns nil when nothing is flagged.
func TrustFlags(rs []*benchfmt.Result, env *results.Env) []string {
	var out []string
	if f := loaded(env); f != "" {
		out = append(out, f)
	}
	if p := results.Partial(rs); p != "" {
		out = append(out, results.PartialText(p))
	}
	if v := annotation(timedOnly(rs), "emulated"); v != "" && v != "no" && v != "unknown" {
		out = append(out, "emulated ("+v+")")
	}
	if annotation(rs, "throttled") == "yes" {
		out = append(out, "throttled")
	}
	return out
}

// SideFlags is TrustFlags for one side of a comparison measured in one run or in rounds
// (deferbench ab): the side is Loaded when any of its runs was, and the flag says in how many
// and the largest share of other work: "Loaded (other work took up to 72% of the CPUs' time,
// in 3 of 5 rounds)". envs may be empty.
func SideFlags(rs []*benchfmt.Result, envs []*results.Env) []string {
	if len(envs) <= 1 {
		var env *results.Env
		if len(envs) == 1 {
			env = envs[0]
		}
		return TrustFlags(rs, env)
	}
	out := TrustFlags(rs, nil)
	n, worst, why := 0, -1.0, ""
	for _, e := range envs {
		f := loaded(e)
		if f == "" {
			continue
		}
		n++
		share := -1.0
		if e.CPUShare != nil {
			share = e.CPUShare.Other + e.CPUShare.Steal
		}
		if share > worst || why == "" {
			worst, why = share, f
		}
	}
	if n == 0 {
		return out
	}
	flag := fmt.Sprintf("Loaded (in %d of %d rounds; worst: %s)", n, len(envs), strings.TrimSuffix(strings.TrimPrefix(why, "Loaded ("), ")"))
	if worst >= 0 {
		flag = fmt.Sprintf("Loaded (other work took up to %.0f%% of the CPUs' time, in %d of %d rounds)", math.Round(100*worst), n, len(envs))
	}
	return append([]string{flag}, out...)
}

func loaded(env *results.Env) string {
	if env == nil {
		return ""
	}
	if c := env.CPUShare; c != nil {
		if c.Other+c.Steal <= LoadedAbove {
			return ""
		}
		return fmt.Sprintf("Loaded (other work took %.0f%% of the CPUs' time during the run)", math.Round(100*(c.Other+c.Steal)))
	}
	f := strings.Fields(env.Before.LoadAvg)
	if len(f) == 0 || env.Before.Cores <= 0 {
		return ""
	}
	if x, err := strconv.ParseFloat(f[0], 64); err == nil && x > float64(env.Before.Cores) {
		return fmt.Sprintf("Loaded (load average %s before the run, above its %d cores)", f[0], env.Before.Cores)
	}
	return ""
}

// ShortFlags is each trust flag's first words, for a place with little room (a chart's
// title, the gate line): "Loaded", "partial", "emulated", "throttled".
func ShortFlags(flags []string) []string {
	var out []string
	for _, f := range flags {
		f, _, _ = strings.Cut(f, " (")
		f, _, _ = strings.Cut(f, ":")
		out = append(out, f)
	}
	return out
}

// timedOnly returns rs without the count rows of emulated ISAs (results.ISAKey), whose
// configuration describes the modelled machine, not the one the run was on.
func timedOnly(rs []*benchfmt.Result) []*benchfmt.Result {
	var out []*benchfmt.Result
	for _, r := range rs {
		isa := false
		for _, c := range r.Config {
			isa = isa || c.Key == results.ISAKey
		}
		if !isa {
			out = append(out, r)
		}
	}
	return out
}
