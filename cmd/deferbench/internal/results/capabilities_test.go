package results

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// capsFile writes a bench.txt of two strategies' results with their capability lines and
// reads it back.
func capsFile(t *testing.T, caps map[string]deferral.Capabilities) []*benchfmt.Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bench.txt")
	f := NewBenchFile(path)
	f.Config = []Config{{Key: "goos", Value: "linux"}}
	for _, s := range []string{"a", "b"} {
		f.Config = append(f.Config, CapabilityConfig(s, caps[s])...)
	}
	for _, s := range []string{"a", "b"} {
		for range 3 {
			r := &benchfmt.Result{Name: benchfmt.Name("Stage/strategy=" + s + "/cmd=typed-2"), Iters: 1,
				Values: []benchfmt.Value{{Value: 10, Unit: "ns/op"}}}
			if err := f.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Finish(""); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestCapabilitiesRoundTrip: what CapabilityConfig writes, Capabilities reads back, field by
// field; a file without the lines declares nothing (nil).
func TestCapabilitiesRoundTrip(t *testing.T) {
	want := map[string]deferral.Capabilities{
		"a": {ReproducibleOrder: true, SortKeys: true, Order: "sort key, then recorder", Reads: "reads touch the world directly"},
		"b": {ReadsPreviousVersion: true, ReadsWaitForStaged: true, Order: "pipe order: goroutine timing"},
	}
	rs := capsFile(t, want)
	if got := Capabilities(rs); !reflect.DeepEqual(got, want) {
		t.Errorf("Capabilities read back\n got %+v\nwant %+v", got, want)
	}
	for _, c := range FileConfig(rs) {
		if c.Key != "goos" && !IsCapabilityKey(c.Key) {
			t.Errorf("config line %s: neither goos nor a capability line", c.Key)
		}
	}
	plain := []*benchfmt.Result{{Name: benchfmt.Name("Stage/strategy=a-2"), Iters: 1, Config: []benchfmt.Config{{Key: "goos", Value: []byte("linux"), File: true}}}}
	if got := Capabilities(plain); got != nil {
		t.Errorf("Capabilities of a file without the lines = %+v, want nil", got)
	}
}

// TestCapabilitiesKeepOneBenchstatTable: the capability lines are file-level configuration
// that is the same for every result, so benchstat's default table projection (.config) keeps
// one table and -col /strategy puts the strategies side by side in it. The projections are
// parsed with golang.org/x/perf/benchproc, as cmd/benchstat parses its flags.
func TestCapabilitiesKeepOneBenchstatTable(t *testing.T) {
	rs := capsFile(t, map[string]deferral.Capabilities{
		"a": {ReproducibleOrder: true, Order: "x"},
		"b": {Reads: "y"},
	})
	var p benchproc.ProjectionParser
	table, err := p.Parse(".config", nil)
	if err != nil {
		t.Fatal(err)
	}
	col, err := p.Parse("/strategy", nil)
	if err != nil {
		t.Fatal(err)
	}
	tables, cols := map[benchproc.Key]bool{}, map[string]bool{}
	for _, r := range rs {
		tables[table.Project(r)] = true
		cols[col.Project(r).StringValues()] = true
	}
	if len(tables) != 1 || len(cols) != 2 {
		t.Errorf("benchstat -col /strategy: %d tables and %d columns (%v), want 1 table with columns a and b", len(tables), len(cols), cols)
	}
}
