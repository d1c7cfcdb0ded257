package analysis

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestNeedNamesStorage: a headline row measured on archetype storage (storage=archetypes)
// names the storage in its requirement; its slots twin, without the parameter, keeps the
// headline's text.
func TestNeedNamesStorage(t *testing.T) {
	var rs []*benchfmt.Result
	for _, st := range []string{"cmdbuffer", "handrolled"} {
		for _, suffix := range []string{"", "/storage=archetypes"} {
			for i := range 3 {
				rs = append(rs, &benchfmt.Result{Name: benchfmt.Name("StageApply/strategy=" + st + "/mix=shuffled8" + suffix + "-2"), Iters: 1,
					Values: []benchfmt.Value{{Value: float64(50 + i), Unit: "ns/op"}}})
			}
		}
	}
	var slots, arch int
	for _, k := range NewRun(rs).Rankings(2) {
		if k.Headline.Unit != "ns/op" {
			continue
		}
		switch {
		case strings.HasSuffix(k.Need, "(mix = shuffled8) on archetypes storage"):
			arch++
		case strings.HasSuffix(k.Need, "(mix = shuffled8)"):
			slots++
		default:
			t.Errorf("requirement %q", k.Need)
		}
	}
	if slots != 1 || arch != 1 {
		t.Errorf("%d slots and %d archetypes requirements, want 1 each", slots, arch)
	}
}
