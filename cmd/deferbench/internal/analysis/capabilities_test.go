package analysis

import (
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/results"
	"golang.org/x/perf/benchfmt"
)

// TestCapabilitiesFromTheFile: a file that declares capabilities is read as declared, even
// where a built-in strategy of the same name declares otherwise; a file without the lines
// gets the fallback table.
func TestCapabilitiesFromTheFile(t *testing.T) {
	r := &benchfmt.Result{Name: benchfmt.Name("Determinism/strategy=cmdbuffer/runs=2-2"), Iters: 1}
	old := Capabilities([]*benchfmt.Result{r})
	if c := old["cmdbuffer"]; !c.ReproducibleOrder || c != BeforeCapabilityLines["cmdbuffer"] {
		t.Errorf("a file without capability lines: cmdbuffer %+v, want the fallback %+v", c, BeforeCapabilityLines["cmdbuffer"])
	}
	for _, c := range results.CapabilityConfig("cmdbuffer", BeforeCapabilityLines["handrolled"]) {
		r.Config = append(r.Config, benchfmt.Config{Key: c.Key, Value: []byte(c.Value), File: true})
	}
	got := Capabilities([]*benchfmt.Result{r})
	if c := got["cmdbuffer"]; c.ReproducibleOrder || c.Order != BeforeCapabilityLines["handrolled"].Order {
		t.Errorf("cmdbuffer declared in the file without ReproducibleOrder: read %+v", c)
	}
	if _, ok := got["versioned"]; ok {
		t.Error("a file that declares capabilities got the fallback's versioned too")
	}
}
