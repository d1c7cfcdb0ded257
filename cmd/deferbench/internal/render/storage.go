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
}

// newStorageVerdict returns k's verdict names, keyed apart from its storage.
func newStorageVerdict(k analysis.Ranking, names []string) storageVerdict {
	v := storageVerdict{storage: defaultStorage, names: slices.Sorted(slices.Values(names))}
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

// bestGroup returns the strategies of k's best group, or nil when the test could not judge it
// against the next (undecided).
func bestGroup(k analysis.Ranking) []string {
	g := k.Split()
	if len(g.Groups) == 0 || (len(g.Untested) > 0 && g.Untested[0]) {
		return nil
	}
	var names []string
	for _, i := range g.Groups[0] {
		if k.Ranked[i].Unranked == "" {
			names = append(names, k.Ranked[i].Strategy)
		}
	}
	return names
}

// byStorage is the verdicts of a run by key, then by storage.
type byStorage map[string]map[string][]string

func storageVerdicts(vs []storageVerdict) byStorage {
	m := byStorage{}
	for _, v := range vs {
		if m[v.key] == nil {
			m[v.key] = map[string][]string{}
		}
		m[v.key][v.storage] = v.names
	}
	return m
}

// differs returns, for a verdict measured on more than one storage, the storages whose verdict
// is not the default storage's, in name order, and whether it was measured on more than one.
func (m byStorage) differs(v storageVerdict) (where []string, twins bool) {
	on := m[v.key]
	if len(on) < 2 {
		return nil, false
	}
	ref, ok := on[defaultStorage]
	for s, names := range on {
		if s != defaultStorage && (!ok || !slices.Equal(names, ref)) {
			where = append(where, s)
		}
	}
	slices.Sort(where)
	return where, true
}

// note says whether v's verdict holds on every storage it was measured on or differs (naming
// the storage and each storage's verdict); "" for a verdict measured on one storage only.
func (m byStorage) note(v storageVerdict) string {
	where, twins := m.differs(v)
	if !twins {
		return ""
	}
	on := m[v.key]
	if len(where) == 0 {
		return "holds on both storages (" + strings.Join(storageNames(on), " and ") + ")"
	}
	var parts []string
	for _, s := range storageNames(on) {
		parts = append(parts, s+": "+verdictText(on[s]))
	}
	return "differs on " + strings.Join(where, " and ") + " storage (" + strings.Join(parts, "; ") + ")"
}

// summary is the line that counts the verdicts measured on both storages, those that hold and
// those that differ (named by requirement); "" when no verdict was measured on two storages.
func (m byStorage) summary(vs []storageVerdict) string {
	var holds, differ int
	var names []string
	seen := map[string]bool{}
	for _, v := range vs {
		where, twins := m.differs(v)
		if !twins || seen[v.key] {
			continue
		}
		seen[v.key] = true
		if len(where) == 0 {
			holds++
			continue
		}
		differ++
		names = append(names, "*"+mdEscape(v.need)+"* (on "+strings.Join(where, " and ")+")")
	}
	if holds+differ == 0 {
		return ""
	}
	line := fmt.Sprintf("Storage: of the %d verdicts measured on both world storages, %d hold on both", holds+differ, holds)
	if differ == 0 {
		return line + "; none differs."
	}
	return line + fmt.Sprintf(" and %d differ: %s.", differ, strings.Join(names, ", "))
}

// storageNames returns the storages of on, the default first, then in name order.
func storageNames(on map[string][]string) []string {
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
