package analysis

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
)

// setAgainst finds the references of k's scenario that apply to k's row and ran in this run
// (the reference strategy has samples of k's unit in the reference row), and sets each ranked
// strategy's ratio to them.
func (d *Run) setAgainst(k *Ranking, obsOf func(string) []obs) {
	for _, a := range suite.Lookup(k.Row.Scenario).Against {
		if !a.AppliesTo(k.Params) {
			continue
		}
		id, ok := d.rowWith(k.Row.Scenario, k.Row.Procs, a.Row(k.Params))
		if !ok {
			continue
		}
		ref := d.samples[sampleKey{id, a.Strategy, k.Headline.Unit}]
		if len(ref) == 0 {
			continue
		}
		k.Against = append(k.Against, Reference{Label: a.Label, Where: a.Where, Strategy: a.Strategy, Row: id,
			Summary: summarizeValues(values(ref))})
		for i := range k.Ranked {
			r := &k.Ranked[i]
			v, has := ratioOf(obsOf(r.Strategy), ref)
			r.VsAgainst, r.HasAgainst = append(r.VsAgainst, v), append(r.HasAgainst, has)
		}
	}
}

// rowWith returns the row of scenario sc at GOMAXPROCS procs whose parameters are ps, in
// any order.
func (d *Run) rowWith(sc string, procs int, ps []results.Param) (RowID, bool) {
	for _, id := range d.rows[sc] {
		if id.Procs != procs || len(d.params[id]) != len(ps) {
			continue
		}
		same := true
		for _, p := range ps {
			if paramValue(d.params[id], p.Key) != p.Value {
				same = false
				break
			}
		}
		if same {
			return id, true
		}
	}
	return RowID{}, false
}
