package harness

import (
	"testing"
)

// TestReadersRateInsideTimer: reads/s counts only the reads made while the timer runs. Readers
// also run during setup and teardown; counted, those reads gave rates no reader can reach
// (1e9 to 1.7e10 reads/s at b.N = 1). A read takes two clock readings and a lookup, so no
// reader completes one per 5 ns.
func TestReadersRateInsideTimer(t *testing.T) {
	const nreaders = 2
	v := Variant{Params: []Param{{"readers", "2"}}, Arg: nreaders}
	for _, st := range Strategies {
		if st.Name != "cmdbuffer" && st.Name != "versioned" {
			continue
		}
		for range 5 {
			res, err := measure(Case{Name: "Readers/strategy=" + st.Name, Run: readersScenario.Bench(st, v)}, st.Name, Benchtime{N: 1})
			if err != nil {
				t.Fatal(err)
			}
			rate, ok := res.Value("reads/s")
			if !ok {
				continue // no read finished inside the timed loop
			}
			if limit := float64(nreaders) * 2e8; rate > limit {
				t.Errorf("%s at b.N = %d: %.3g reads/s from %d readers, above %.3g: reads outside the timer were counted", st.Name, res.Iters, rate, nreaders, limit)
			}
		}
	}
}
