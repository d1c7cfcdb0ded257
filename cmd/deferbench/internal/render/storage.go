package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/analysis"
)

// defaultStorage is the storage of rows without a storage parameter: ecs.NewWorld's default.
const defaultStorage = "slots"

// storageVerdict is one ranking's verdict (the strategies that meet its requirement, or its
// best group) with what identifies it apart from the world storage it was measured on.
type storageVerdict struct {
	key     string   // scenario, unit, GOMAXPROCS and every parameter but storage
	storage string   // the row's storage parameter, defaultStorage without one
	need    string   // the requirement, as on the slots row ("" for a headline without one)
	names   []string // the verdict, sorted; nil: no strategy shown
	// undecided: no verdict (too few repetitions, or noise joined most strategies), so there is nothing to
	// compare across storages.
	undecided bool
}

// newStorageVerdict returns k's verdict, names (undecided: none, for want of a test), keyed
// apart from its storage.
func newStorageVerdict(k analysis.Ranking, names []string, undecided bool) storageVerdict {
	v := storageVerdict{storage: defaultStorage, names: slices.Sorted(slices.Values(names)), undecided: undecided}
	var key strings.Builder
	fmt.Fprintf(&key, "%s|%s|%d", k.Row.Scenario, k.Headline.Unit, k.Row.Procs)
	for _, p := range k.Params {
		if p.Key == "storage" {
			v.storage = p.Value
			continue
		}
		fmt.Fprintf(&key, "|%s=%s", p.Key, p.Value)
	}
	v.key = key.String()
	v.need = strings.TrimSuffix(k.Need, " on "+v.storage+" storage")
	return v
}

// bestGroup returns the strategies of k's best group, or undecided when the test could not
// judge it against the next.
func bestGroup(k analysis.Ranking) (names []string, undecided bool) {
	g := k.Split()
	if len(g.Groups) == 0 {
		return nil, false
	}
	if len(g.Untested) > 0 && g.Untested[0] {
		return nil, true
	}
	for _, i := range g.Groups[0] {
		if k.Ranked[i].Unranked == "" {
			names = append(names, k.Ranked[i].Strategy)
		}
	}
	return names, false
}

// byStorage is the verdicts of a run by key, then by storage.
type byStorage map[string]map[string]storageVerdict

func storageVerdicts(vs []storageVerdict) byStorage {
	m := byStorage{}
	for _, v := range vs {
		if m[v.key] == nil {
			m[v.key] = map[string]storageVerdict{}
		}
		m[v.key][v.storage] = v
	}
	return m
}

// differs returns, for a verdict measured on more than one storage, the storages whose verdict
// is not the default storage's, in name order, and whether it was measured on more than one;
// undecided lists the storages where the test gave no verdict (then there is no comparison).
func (m byStorage) differs(v storageVerdict) (where, undecided []string, twins bool) {
	on := m[v.key]
	if len(on) < 2 {
		return nil, nil, false
	}
	for _, s := range storageNames(on) {
		if on[s].undecided {
			undecided = append(undecided, s)
		}
	}
	if len(undecided) > 0 {
		return nil, undecided, true
	}
	ref, ok := on[defaultStorage]
	for s, x := range on {
		if s != defaultStorage && (!ok || !slices.Equal(x.names, ref.names)) {
			where = append(where, s)
		}
	}
	slices.Sort(where)
	return where, nil, true
}

// note says whether v's verdict holds on every storage it was measured on or differs (naming
// the storage and each storage's verdict), or that it is undecided on one; "" for a verdict
// measured on one storage only.
func (m byStorage) note(v storageVerdict) string {
	where, undecided, twins := m.differs(v)
	if !twins {
		return ""
	}
	on := m[v.key]
	if len(undecided) > 0 {
		return "not compared across storages: undecided on " + strings.Join(undecided, " and ") + " storage"
	}
	if len(where) == 0 {
		return "holds on both storages (" + strings.Join(storageNames(on), " and ") + ")"
	}
	var parts []string
	for _, s := range storageNames(on) {
		parts = append(parts, s+": "+verdictText(on[s].names))
	}
	return "differs on " + strings.Join(where, " and ") + " storage (" + strings.Join(parts, "; ") + ")"
}

// summary is the line that counts the verdicts measured on both storages, those that hold and
// those that differ (named by requirement); "" when no verdict was measured on two storages.
func (m byStorage) summary(vs []storageVerdict) string {
	var holds, differ, undecided int
	var names []string
	seen := map[string]bool{}
	for _, v := range vs {
		where, und, twins := m.differs(v)
		if !twins || seen[v.key] {
			continue
		}
		seen[v.key] = true
		if len(und) > 0 {
			undecided++
			continue
		}
		if len(where) == 0 {
			holds++
			continue
		}
		differ++
		names = append(names, "*"+mdEscape(v.need)+"* (on "+strings.Join(where, " and ")+")")
	}
	if holds+differ+undecided == 0 {
		return ""
	}
	line := fmt.Sprintf("Storage: of the %d verdicts measured on both world storages, %d hold on both", holds+differ+undecided, holds)
	if differ == 0 {
		line += "; none differs"
	} else {
		line += fmt.Sprintf(" and %d differ: %s", differ, strings.Join(names, ", "))
	}
	if undecided > 0 {
		line += fmt.Sprintf("; %d undecided on a storage (noise or too few repetitions), not compared", undecided)
	}
	return line + "."
}

// storageNames returns the storages of on, the default first, then in name order.
func storageNames(on map[string]storageVerdict) []string {
	var names []string
	for s := range on {
		if s != defaultStorage {
			names = append(names, s)
		}
	}
	slices.Sort(names)
	if _, ok := on[defaultStorage]; ok {
		names = append([]string{defaultStorage}, names...)
	}
	return names
}

// verdictText is a verdict's strategies, or "none shown".
func verdictText(names []string) string {
	if len(names) == 0 {
		return "none shown"
	}
	return strings.Join(names, ", ")
}
