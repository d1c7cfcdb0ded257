package analysis

import (
	"fmt"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"golang.org/x/perf/benchfmt"
)

// TestHeadlineRowsAtNumCPU: a headline with Where producers=NumCPU and AtNumCPU ranks the row
// at the run's NumCPU, or the largest below it.
func TestHeadlineRowsAtNumCPU(t *testing.T) {
	var rs []*benchfmt.Result
	for _, p := range []string{"1", "2", "4"} {
		for _, procs := range []string{"", "-2", "-4"} {
			rs = append(rs, sampleResults("Contention/strategy=cmdbuffer/producers="+p+procs, 1, 1, 1)...)
		}
	}
	for i := range rs {
		rs[i].Values = append(rs[i].Values, benchfmt.Value{Value: 0.9, Unit: "efficiency"})
	}
	d := NewRun(rs)
	h := suite.Headline{Unit: "efficiency", Where: []results.Param{{Key: "producers", Value: "NumCPU"}}, AtNumCPU: true}
	for _, c := range []struct {
		cores, producers, procs int
	}{{2, 2, 2}, {4, 4, 4}, {3, 2, 2}, {16, 4, 4}} {
		rows := d.selectRows("Contention", h, c.cores)
		if len(rows) != 1 || paramValue(d.params[rows[0]], "producers") != fmt.Sprint(c.producers) || rows[0].Procs != c.procs {
			t.Errorf("NumCPU %d: rows %v, want producers=%d at GOMAXPROCS=%d", c.cores, rows, c.producers, c.procs)
		}
	}
}
