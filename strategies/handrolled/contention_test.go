package handrolled_test

import (
	"flag"
	"testing"

	"github.com/deferbench/deferbench/conformance/bench"
	"github.com/deferbench/deferbench/strategies/handrolled"
)

// TestContentionWarmsBothArrays: handrolled hands a producer's array over at each round and
// stages the next round into a second one, so Contention's warm-up must grow both; with one
// warm-up round the second grew inside the timed rounds, at 8 producers and a short
// -benchtime 8 to 36 B/op, and the reference rounds it slowed read efficiency 15. Steady
// staging allocates nothing: under 1 byte per command, what amortised growth may leave.
func TestContentionWarmsBothArrays(t *testing.T) {
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("50ms"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	var err error
	r := testing.Benchmark(func(b *testing.B) { err = bench.Contention(bench.Testing(b), handrolled.Factory, 8) })
	if err != nil {
		t.Fatal(err)
	}
	if bop := r.Extra["B/op"]; bop >= 1 {
		t.Errorf("Contention at 8 producers: %.1f B/op, want under 1 (efficiency %.2f)", bop, r.Extra["efficiency"])
	}
}
