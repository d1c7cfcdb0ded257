package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompareOneSidedConfig: a config key that one side records and the other does not
// (output of a Go release that printed no cpu: or pkg: line) is not a different value: the
// rows are compared, with a note naming the key. Two different values stay apart.
func TestCompareOneSidedConfig(t *testing.T) {
	run := func(header string, ns float64) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkStage/strategy=cmdbuffer/cmd=typed-2 100000 %v ns/op 0 B/op 0 allocs/op\n", ns+float64(i)/10)
		}
		return writeFile(t, "bench.txt", b.String())
	}
	full := run("goos: linux\ngoarch: amd64\npkg: github.com/deferbench/deferbench/cmd/deferbench\ncpu: AMD EPYC", 30)
	for _, c := range []struct {
		name, old, new string
		code           int
		want           []string // in stdout+stderr
	}{
		{"NEW has no cpu: line", full, run("goos: linux\ngoarch: amd64\npkg: github.com/deferbench/deferbench/cmd/deferbench", 40), 0,
			[]string{"cpu: only OLD records it (AMD EPYC), NEW has no cpu line: compared as the same", "+3"}},
		{"NEW has no pkg: and goos: lines", full, run("goarch: amd64\ncpu: AMD EPYC", 40), 0,
			[]string{"goos: only OLD records it (linux)", "pkg: only OLD records it", "+3"}},
		{"OLD has none of them", run("", 30), full, 0,
			[]string{"cpu: only NEW records it (AMD EPYC)", "goarch: only NEW records it (amd64)", "p=1.000 n=6+6"}},
		{"two different CPUs stay apart", full, run("goos: linux\ngoarch: amd64\npkg: github.com/deferbench/deferbench/cmd/deferbench\ncpu: Intel Xeon", 40), 2,
			[]string{"differ in cpu (AMD EPYC / Intel Xeon)", "no benchmark and unit in common under the same configuration"}},
	} {
		out, errOut, code := cli("compare", c.old, c.new)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q\n%s", c.name, code, c.code, errOut, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("%s: no %q in:\n%s%s", c.name, w, errOut, out)
			}
		}
	}
}
