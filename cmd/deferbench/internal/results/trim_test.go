package results

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadTrimsConfigPadding: a cpu line padded as go test pads some brand strings and the
// same line with its padding stripped read as one value.
func TestReadTrimsConfigPadding(t *testing.T) {
	dir := t.TempDir()
	var got []string
	for i, cpu := range []string{"Oxide Virtual Turin-like Processor             ", "Oxide Virtual Turin-like Processor"} {
		p := filepath.Join(dir, string(rune('a'+i))+".txt")
		body := "goos: linux\ncpu: " + cpu + "\nBenchmarkX/strategy=a 10 5 ns/op\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := ReadResults(p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(rs[0].GetConfig("cpu")))
	}
	if got[0] != got[1] || got[1] != "Oxide Virtual Turin-like Processor" {
		t.Errorf("cpu values %q, want both %q", got, "Oxide Virtual Turin-like Processor")
	}
}
