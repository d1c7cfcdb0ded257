package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// annotationKeys are configuration keys that describe how a run went or what was measured,
// not the machine or its settings: results that differ only in these are compared.
var annotationKeys = map[string]bool{
	results.PartialKey: true,
	"deferbench":       true, // the version under test: two builds are what an A/B compares
	"throttled":        true, // noted instead (see CompareRuns)
	"under-voltage":    true,
}

// MachineKeys are the configuration keys that describe a machine by nature (and so always
// differ between two machines); "-ignore machine" stands for them. emulated is not one of
// them: an emulated run is never compared with a real one unless named.
var MachineKeys = []string{"goarch", "cpu", "host-model", "kernel", "governor", "lse-atomics", "page-size"}

// ExpandIgnore turns an -ignore list into the set of keys, expanding "machine"; "*" ignores
// every key (expectations that hold on any machine).
func ExpandIgnore(keys []string) map[string]bool {
	out := map[string]bool{}
	for _, k := range keys {
		if k == "machine" {
			for _, m := range MachineKeys {
				out[m] = true
			}
			continue
		}
		out[k] = true
	}
	return out
}

// config is the identity of a result: its configuration minus annotations and ignored keys.
type config struct {
	id   string
	vals map[string]string
}

func configOf(r *benchfmt.Result, ignore map[string]bool) config {
	vals := map[string]string{}
	for _, c := range r.Config {
		if annotationKeys[c.Key] || results.IsCapabilityKey(c.Key) || ignore[c.Key] || ignore["*"] || len(c.Value) == 0 {
			continue
		}
		vals[c.Key] = string(c.Value)
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + vals[k] + "\x00")
	}
	return config{b.String(), vals}
}

// fullConfig is every non-annotation key of r, for labels and notes.
func fullConfig(rs []*benchfmt.Result) map[string][]string {
	out := map[string][]string{}
	for i, r := range rs {
		if i > 0 && results.SameConfig(rs[i-1].Config, r.Config) {
			continue // a run's results share its header: one look is enough
		}
		for _, c := range r.Config {
			if len(c.Value) == 0 || annotationKeys[c.Key] || results.IsCapabilityKey(c.Key) {
				continue
			}
			v := string(c.Value)
			if !contains(out[c.Key], v) {
				out[c.Key] = append(out[c.Key], v)
			}
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// gkey identifies one metric of one benchmark under one configuration.
type gkey struct{ cfg, name, unit string }

type sideData struct {
	order []gkey
	vals  map[gkey][]float64
	cfgs  map[string]config
}

func gather(rs []*benchfmt.Result, ignore map[string]bool) sideData {
	d := sideData{vals: map[gkey][]float64{}, cfgs: map[string]config{}}
	var c config
	for i, r := range rs {
		// Results of one run share its header: its configuration is worked out once, and
		// every key holds the one id string (a 31-line header on 200,000 results took GBs).
		if i == 0 || !results.SameConfig(rs[i-1].Config, r.Config) {
			c = configOf(r, ignore)
			if known, ok := d.cfgs[c.id]; ok {
				c = known
			} else {
				d.cfgs[c.id] = c
			}
		}
		for _, v := range r.Values {
			x, u := results.UnitValue(v)
			k := gkey{c.id, string(r.Name), u}
			if _, ok := d.vals[k]; !ok {
				d.order = append(d.order, k)
			}
			d.vals[k] = append(d.vals[k], x)
		}
	}
	return d
}

// differing returns the keys whose values differ among cfgs (a missing key counts as a value).
func differing(cfgs ...config) []string {
	keys := map[string]bool{}
	for _, c := range cfgs {
		for k := range c.vals {
			keys[k] = true
		}
	}
	var out []string
	for k := range keys {
		v, ok := cfgs[0].vals[k]
		for _, c := range cfgs[1:] {
			if w, ok2 := c.vals[k]; ok2 != ok || w != v {
				out = append(out, k)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func valuesOf(key string, cfgs []config) string {
	var vs []string
	for _, c := range cfgs {
		v, ok := c.vals[key]
		if !ok {
			v = "(none)"
		}
		if !contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, " / ")
}

func sortedCfgs(m map[string]config) []config {
	out := make([]config, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// CompareRuns compares every metric present in both old and new under the same
// configuration. Results whose configurations differ (cpu, goarch, host-model, kernel,
// emulated, … every key except the annotations partial, deferbench, throttled and
// under-voltage), between the runs or inside one, are kept apart and named in Notes and
// Differ, unless opt.Ignore names the keys. Deterministic counts (allocs/op, B/op,
// distinct-states) whose samples all agree within Tolerance are compared exactly; the
// rest with the Mann-Whitney U test, or with opt.Paired the Wilcoxon signed-rank test
// on per-round ratios, at opt.Alpha. Each row gets a verdict and, when a threshold names its
// unit, a gate result. The inputs must have passed CheckResult (ReadResults checks).
func CompareRuns(old, new []*benchfmt.Result, opt CompareOptions) *RunComparison {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	ignore := ExpandIgnore(opt.Ignore)
	c := &RunComparison{Alpha: opt.Alpha, Method: MethodUTest}
	for _, k := range oneSided(old, new, ignore) {
		ignore[k.key] = true
		c.Notes = append(c.Notes, fmt.Sprintf("%s: only %s records it (%s), %s has no %s line: compared as the same, not kept apart",
			k.key, k.side, k.value, k.other, k.key))
	}
	od, nd := gather(old, ignore), gather(new, ignore)
	if opt.Paired {
		c.Method = MethodPaired
	}

	// Configurations kept apart.
	all := map[string]config{}
	for id, cf := range od.cfgs {
		all[id] = cf
	}
	for id, cf := range nd.cfgs {
		all[id] = cf
	}
	if len(all) > 1 {
		// OLD's configurations first, so that "OLD and NEW differ in kernel (a / b)" names
		// OLD's value first.
		cfgs := sortedCfgs(od.cfgs)
		for _, cf := range sortedCfgs(nd.cfgs) {
			if _, ok := od.cfgs[cf.id]; !ok {
				cfgs = append(cfgs, cf)
			}
		}
		c.Differ = differing(cfgs...)
		var parts []string
		for _, k := range c.Differ {
			parts = append(parts, fmt.Sprintf("%s (%s)", k, valuesOf(k, cfgs)))
		}
		where := "OLD and NEW differ in"
		switch {
		case len(od.cfgs) > 1 && len(nd.cfgs) > 1:
			where = "OLD and NEW each mix results that differ in"
		case len(od.cfgs) > 1:
			where = "OLD mixes results that differ in"
		case len(nd.cfgs) > 1:
			where = "NEW mixes results that differ in"
		}
		hint := append([]string{}, opt.Ignore...)
		if machineOnly(c.Differ) {
			hint = append(hint, "machine")
		} else {
			hint = append(hint, c.Differ...)
		}
		c.Hint = strings.Join(hint, ",")
		c.Notes = append(c.Notes, fmt.Sprintf("%s %s: kept apart, never pooled; to compare across them, add -ignore %s",
			where, strings.Join(parts, ", "), c.Hint))
	}
	// Configurations pooled on request: say what was pooled inside one run.
	for _, in := range []struct {
		name string
		rs   []*benchfmt.Result
	}{{"OLD", old}, {"NEW", new}} {
		var mixed []string
		for k, vs := range fullConfig(in.rs) {
			if (ignore[k] || ignore["*"]) && len(vs) > 1 {
				mixed = append(mixed, fmt.Sprintf("%s (%s)", k, strings.Join(vs, " / ")))
			}
		}
		sort.Strings(mixed)
		if len(mixed) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s mixes results that differ in %s: pooled, as -ignore asks", in.name, strings.Join(mixed, ", ")))
		}
		if th := annotation(in.rs, "throttled"); th == "yes" {
			c.Notes = append(c.Notes, in.name+" was throttled during its run (throttled: yes): its timings are suspect")
		}
	}
	c.OldLabel, c.NewLabel = sideLabels(old, new, ignore)

	multi := len(all) > 1
	c.Rows = make([]Row, 0, len(od.order)) // at most one a key: no regrowth of ~1 KB rows
	for _, k := range od.order {
		nv, ok := nd.vals[k]
		if !ok {
			continue
		}
		row := compareRow(k.name, k.unit, od.vals[k], nv, opt)
		if multi {
			row.Config = configLabel(all[k.cfg], c.Differ)
		}
		gate(&row, opt.Thresholds)
		c.Rows = append(c.Rows, row)
	}
	c.Vanished = vanished(od, nd, new, opt.Thresholds, opt.NewSkipped > 0)
	if n := len(c.Vanished); n > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d gated benchmark(s) of OLD missing from NEW, which ran their scenario and strategy or skipped lines it could not read: %s: the gate cannot pass on them",
			n, results.FirstOf(c.Vanished, 3)))
	}
	if opt.Paired {
		c.notePairing()
	}
	c.holm()
	for _, t := range opt.Thresholds {
		found := false
		for _, r := range c.Rows {
			if r.Unit == t.Unit {
				found = true
				break
			}
		}
		if !found && len(c.Rows) > 0 {
			c.Unmatched = append(c.Unmatched, t.Text)
			c.Notes = append(c.Notes, fmt.Sprintf("-fail %s: no compared metric is in %s: the gate cannot pass on it", t.Text, t.Unit))
		}
	}
	return c
}

// notePairing says, in Notes, how many rows a paired comparison could not pair and so
// tested with the U test (sample counts that differ between the sides, a round missing on
// one; or a value of 0, which has no ratio), and makes Method the U test when no row was
// paired: the method named at the top is the one the rows used.
func (c *RunComparison) notePairing() {
	var unpaired, paired int
	var first string
	for _, r := range c.Rows {
		switch r.Method {
		case MethodPaired:
			paired++
		case MethodUTest:
			if unpaired == 0 {
				first = fmt.Sprintf("%s %s, %d against %d samples", r.Name, r.Unit, r.Old.N, r.New.N)
			}
			unpaired++
		}
	}
	if unpaired == 0 {
		return
	}
	c.Notes = append(c.Notes, fmt.Sprintf("-paired: %d of %d tested rows could not be paired (unequal sample counts, or a value of 0) and were compared with the U test instead, first %s",
		unpaired, unpaired+paired, first))
	if paired == 0 {
		c.Method = MethodUTest
	}
}

// sidedKey is a configuration key that only one side records.
type sidedKey struct{ key, value, side, other string }

// oneSided returns the configuration keys that one side records with a single value and
// the other side does not record at all (output of a Go release that printed no cpu: or
// pkg: line, or of go test beside deferbench's own keys): a missing key is not a different
// value, so their rows are compared, with a note. Two different values stay apart, and so
// does a key that the recording side has with several values (which would the other match?).
func oneSided(old, new []*benchfmt.Result, ignore map[string]bool) []sidedKey {
	if ignore["*"] {
		return nil
	}
	of, nf := fullConfig(old), fullConfig(new)
	var out []sidedKey
	for _, s := range []struct {
		have, lack         map[string][]string
		haveName, lackName string
	}{{of, nf, "OLD", "NEW"}, {nf, of, "NEW", "OLD"}} {
		for k, vs := range s.have {
			if _, ok := s.lack[k]; ok || ignore[k] || len(vs) != 1 {
				continue
			}
			out = append(out, sidedKey{k, vs[0], s.haveName, s.lackName})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].side != out[j].side {
			return out[i].side == "OLD"
		}
		return out[i].key < out[j].key
	})
	return out
}

// annotation returns the value of annotation key in rs ("" when absent).
func annotation(rs []*benchfmt.Result, key string) string {
	for _, r := range rs {
		for _, c := range r.Config {
			if c.Key == key && len(c.Value) > 0 {
				return string(c.Value)
			}
		}
	}
	return ""
}

// sideLabels names the two sides by the ignored key that tells them apart, preferring
// goarch, then host-model, then cpu; "" when none does.
func sideLabels(old, new []*benchfmt.Result, ignore map[string]bool) (string, string) {
	of, nf := fullConfig(old), fullConfig(new)
	for _, k := range []string{"goarch", "host-model", "cpu"} {
		if !(ignore[k] || ignore["*"]) || len(of[k]) != 1 || len(nf[k]) != 1 || of[k][0] == nf[k][0] {
			continue
		}
		// go test pads some brand strings with spaces ("… Processor         "): a label
		// is a column heading, so it goes without them.
		return strings.TrimSpace(of[k][0]), strings.TrimSpace(nf[k][0])
	}
	return "", ""
}

func configLabel(c config, keys []string) string {
	var parts []string
	for _, k := range keys {
		v, ok := c.vals[k]
		if !ok {
			v = "(none)"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// agree reports whether all of xs lie within tol of each other.
func agree(xs []float64, tol float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return hi-lo <= tol
}

func summarize(name, unit string, xs []float64) results.Summary {
	s := newSample(xs, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	row := results.Summary{Name: name, Unit: unit, N: len(xs), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
	if math.IsInf(row.Lo, 0) || math.IsNaN(row.Lo) || math.IsInf(row.Hi, 0) || math.IsNaN(row.Hi) {
		row.Lo, row.Hi, row.NoCI = row.Median, row.Median, true
	}
	return row
}

func compareRow(name, unit string, ov, nv []float64, opt CompareOptions) Row {
	row := Row{Name: name, Unit: unit, Old: summarize(name, unit, ov), New: summarize(name, unit, nv), P: math.NaN(), Change: math.NaN()}
	row.Diff = row.New.Median - row.Old.Median
	if row.Old.Median != 0 {
		row.Change = row.New.Median/row.Old.Median - 1
	}
	tol := results.Tolerance(unit)
	switch {
	case results.Deterministic(unit) && agree(ov, tol) && agree(nv, tol):
		row.Method = MethodExact
		row.Significant = math.Abs(row.Diff) > tol
	case opt.Paired && len(ov) == len(nv) && allPositive(ov) && allPositive(nv):
		row.Method = MethodPaired
		ratios := make([]float64, len(ov))
		logs := make([]float64, len(ov))
		for i := range ov {
			ratios[i] = nv[i] / ov[i]
			logs[i] = math.Log(ratios[i])
		}
		rs := summarize(name, unit, ratios)
		row.Ratio = &rs
		row.Change = rs.Median - 1
		p, n := SignedRankP(logs)
		row.P = p
		if signedRankMinP(n) > opt.Alpha {
			row.Note = fmt.Sprintf("need ≥ %d rounds with a difference to detect one at alpha %v", signedRankNeed(opt.Alpha), opt.Alpha)
		}
		row.Significant = p < opt.Alpha
	default:
		row.Method = MethodUTest
		th := benchmath.DefaultThresholds
		th.CompareAlpha = opt.Alpha
		cmp := benchmath.AssumeNothing.Compare(newSample(ov, &th), newSample(nv, &th))
		row.P = uTestP(cmp.P)
		equal := len(cmp.Warnings) > 0 && errors.Is(cmp.Warnings[0], stats.ErrSamplesEqual)
		if len(cmp.Warnings) > 0 && !equal {
			row.Note = cmp.Warnings[0].Error() + ": " + MoreSamplesOf(unit)
		} else if minP := uTestMinP(len(ov), len(nv)); cmp.P >= opt.Alpha && minP > opt.Alpha {
			// Also where every value on both sides is the same (1 sample against 1 of equal
			// ns/op, common with whole numbers): counted as tested, such a row would only
			// raise the Holm correction of the rows that can show a change, and hide one.
			// benchmath warns only when both sides are small; 6 samples against 1 cannot
			// show a difference either (smallest p 2/7), so "unchanged" would be a guess.
			row.Note = fmt.Sprintf("%d+%d samples cannot show a difference at alpha %v (smallest possible p %.2g): %s", len(ov), len(nv), opt.Alpha, minP, MoreSamplesOf(unit))
		}
		row.Significant = cmp.P < cmp.Alpha && len(cmp.Warnings) == 0 && !equal
	}
	if row.Significant && math.Abs(row.Diff) <= tol {
		row.Significant = false // a real but amortised change: below the unit's resolution
	}
	switch {
	case row.Note != "":
		row.Verdict = NoVerdict
	case !row.Significant:
		row.Verdict = Unchanged
	case (increase(row) > 0) != results.HigherIsBetter(unit):
		row.Verdict = Worse
	default:
		row.Verdict = Better
	}
	return row
}

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return true
}

// machineOnly reports whether every key is one of MachineKeys.
func machineOnly(keys []string) bool {
	for _, k := range keys {
		if !contains(MachineKeys, k) {
			return false
		}
	}
	return len(keys) > 0
}

// vanished returns the benchmarks of old with a metric in a unit of ts that new lacks, each
// named once, in old's order. Only deferbench's own benchmarks are judged (a name with a
// strategy= part): a go test -bench filter picks at every level of a name, so a plain
// benchmark missing from new may be filtered out. Of those, one is missing when new ran
// under its configuration and
//   - has it, without the unit, while reporting the unit for its scenario's other benchmarks
//     (a scenario new reports the unit for nowhere is a run without it, -benchmem say);
//   - or lacks it at every GOMAXPROCS (one new's machine does not reach is its sweep) and ran
//     its scenario (results.Name.Scenario) and its strategy (a result of it, or its
//     capabilities header line): a scenario or strategy new did not run is a subset run
//     (-scenarios, -strategies), unless unreadable (new had lines it skipped as malformed,
//     which may be its lines).
func vanished(old, new sideData, newRs []*benchfmt.Result, ts []Threshold, unreadable bool) []string {
	if len(ts) == 0 {
		return nil
	}
	gated := map[string]bool{}
	for _, t := range ts {
		gated[t.Unit] = true
	}
	// What new ran, by kind: c configuration, s scenario, u a scenario's unit, b a name
	// without its GOMAXPROCS, n a name.
	ran, strategies := map[string]bool{}, map[string]bool{}
	for _, k := range new.order {
		n := results.ParseName(k.name)
		base, _ := results.SplitProcs(k.name)
		ran["c\x00"+k.cfg] = true
		ran["s\x00"+k.cfg+"\x00"+n.Scenario] = true
		ran["u\x00"+k.cfg+"\x00"+n.Scenario+"\x00"+k.unit] = true
		ran["b\x00"+k.cfg+"\x00"+base] = true
		ran["n\x00"+k.cfg+"\x00"+k.name] = true
		strategies[n.Strategy] = true
	}
	for i, r := range newRs { // the strategies new's run selected, from its header
		if i > 0 && results.SameConfig(newRs[i-1].Config, r.Config) {
			continue
		}
		for _, c := range r.Config {
			if st, ok := strings.CutPrefix(c.Key, results.CapabilitiesPrefix); ok && st != "" {
				strategies[st] = true
			}
		}
	}
	var out []string
	named := map[string]bool{}
	for _, k := range old.order {
		if !gated[k.unit] || named[k.name] || !ran["c\x00"+k.cfg] {
			continue
		}
		if _, ok := new.vals[k]; ok {
			continue
		}
		n := results.ParseName(k.name)
		if n.Strategy == "" {
			continue
		}
		base, _ := results.SplitProcs(k.name)
		scen := k.cfg + "\x00" + n.Scenario
		switch {
		case ran["n\x00"+k.cfg+"\x00"+k.name]:
			if !ran["u\x00"+scen+"\x00"+k.unit] {
				continue
			}
		case ran["b\x00"+k.cfg+"\x00"+base]:
			continue
		case unreadable:
		case !ran["s\x00"+scen] || !strategies[n.Strategy]:
			continue
		}
		out = append(out, k.name)
		named[k.name] = true
	}
	return out
}
