package results

import (
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Unmatched lists the benchmark names (any unit) present in only one of old and new, each in
// first-seen order: what Compare leaves out.
func Unmatched(old, new []*benchfmt.Result) (onlyOld, onlyNew []string) {
	names := func(rs []*benchfmt.Result) ([]string, map[string]bool) {
		var order []string
		set := map[string]bool{}
		for _, r := range rs {
			if n := string(r.Name); !set[n] {
				set[n] = true
				order = append(order, n)
			}
		}
		return order, set
	}
	oo, oset := names(old)
	no, nset := names(new)
	return notIn(oo, nset), notIn(no, oset)
}

// notIn returns the strings of order that set lacks, in order.
func notIn(order []string, set map[string]bool) []string {
	var out []string
	for _, s := range order {
		if !set[s] {
			out = append(out, s)
		}
	}
	return out
}

// UnmatchedUnits returns the units that results of the benchmarks both sides ran carry on
// one side and never on the other (B/op of a run with -benchmem against one without, a
// custom metric one build reports): their rows are not compared. Units are named as in the
// file (ns/op, not sec/op), in order of first appearance.
func UnmatchedUnits(old, new []*benchfmt.Result) (onlyOld, onlyNew []string) {
	names := func(rs []*benchfmt.Result) map[string]bool {
		set := map[string]bool{}
		for _, r := range rs {
			set[string(r.Name)] = true
		}
		return set
	}
	oset, nset := names(old), names(new)
	units := func(rs []*benchfmt.Result, other map[string]bool) ([]string, map[string]bool) {
		var order []string
		set := map[string]bool{}
		for _, r := range rs {
			if !other[string(r.Name)] {
				continue
			}
			for _, v := range r.Values {
				if _, u := UnitValue(v); !set[CanonUnit(u)] {
					set[CanonUnit(u)] = true
					order = append(order, CanonUnit(u))
				}
			}
		}
		return order, set
	}
	ou, ouset := units(old, nset)
	nu, nuset := units(new, oset)
	return notIn(ou, nuset), notIn(nu, ouset)
}

// IgnoreProcs renames results so that runs on machines with different core counts match
// by scenario, strategy and parameters: it removes the -GOMAXPROCS suffix from every
// benchmark that each of the result sets ran at one GOMAXPROCS only. A benchmark that one
// set ran at several GOMAXPROCS (Contention's GOMAXPROCS variants, say) keeps its suffix in
// every set, so the values are never pooled: it then matches only at equal GOMAXPROCS.
// IgnoreProcs returns those kept benchmarks' names without the suffix, sorted.
func IgnoreProcs(sets ...[]*benchfmt.Result) (kept []string) {
	multi := map[string]bool{}
	for _, rs := range sets {
		procs := map[string]string{}
		for _, r := range rs {
			base, suffix := SplitProcs(string(r.Name))
			if p, ok := procs[base]; ok && p != suffix {
				multi[base] = true
			}
			procs[base] = suffix
		}
	}
	for _, rs := range sets {
		for _, r := range rs {
			if base, _ := SplitProcs(string(r.Name)); !multi[base] {
				r.Name = benchfmt.Name(base)
			}
		}
	}
	for b := range multi {
		kept = append(kept, b)
	}
	sort.Strings(kept)
	return kept
}

// SplitProcs splits a benchmark name into its base and its -GOMAXPROCS suffix ("" for
// none, GOMAXPROCS=1).
func SplitProcs(name string) (base, suffix string) {
	if n := ParseName(name); n.Procs != 1 || strings.HasSuffix(name, "-1") {
		suffix = "-" + strconv.Itoa(n.Procs)
		if strings.HasSuffix(name, suffix) {
			return strings.TrimSuffix(name, suffix), suffix
		}
	}
	return name, ""
}

// Name is a benchmark name taken apart: Scenario/strategy=s/k=v...-procs, the names deferbench
// run writes and `benchstat -col /strategy` projects. It is the one parser of benchmark names
// every command uses.
type Name struct {
	Scenario string  // the base name, without the Benchmark prefix
	Strategy string  // the strategy= value; "" when the name has none
	Params   []Param // the other parameters in name order (a positional "/part" has Key "")
	Procs    int     // the -N suffix; 1 without one (as go test names them)
}

// ParseName takes a name apart with benchfmt.Name.Parts: the base name is the scenario, a
// "/key=value" part a parameter (strategy= the strategy; a positional "/part" a parameter
// with an empty key), a final "-N" GOMAXPROCS.
func ParseName(name string) Name {
	p := Name{Procs: 1}
	base, parts := benchfmt.Name(name).Parts()
	p.Scenario = string(base)
	for _, part := range parts {
		s := string(part)
		if rest, ok := strings.CutPrefix(s, "-"); ok {
			if n, err := strconv.Atoi(rest); err == nil {
				p.Procs = n
			}
			continue
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(s, "/"), "=")
		if !ok {
			k, v = "", k
		}
		if k == "strategy" {
			p.Strategy = v
			continue
		}
		p.Params = append(p.Params, Param{k, v})
	}
	return p
}

// Variant is the parameters other than the strategy, "k=v k=v" (without GOMAXPROCS).
func (p Name) Variant() string {
	var s []string
	for _, kv := range p.Params {
		if kv.Key == "" {
			s = append(s, kv.Value)
			continue
		}
		s = append(s, kv.Key+"="+kv.Value)
	}
	return strings.Join(s, " ")
}

// Param returns the value of parameter k, "" when the name has none.
func (p Name) Param(k string) string {
	for _, kv := range p.Params {
		if kv.Key == k {
			return kv.Value
		}
	}
	return ""
}

// Param is one key=value element of a sub-benchmark name.
type Param struct{ Key, Value string }

// CommonWithoutProcs reports whether old and new have a benchmark name in common once the
// -GOMAXPROCS suffix is dropped (what compare -ignore-procs would match).
func CommonWithoutProcs(old, new []*benchfmt.Result) bool {
	base := func(n string) string { b, _ := SplitProcs(n); return b }
	have := map[string]bool{}
	for _, r := range old {
		have[base(string(r.Name))] = true
	}
	for _, r := range new {
		if have[base(string(r.Name))] {
			return true
		}
	}
	return false
}
