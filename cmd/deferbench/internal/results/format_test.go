package results

import "testing"

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{92.7e3, "ns/op", "92.7 µs"},
		{22.8e6, "ns/op", "22.8 ms"},
		{1.202e7, "ns/op", "12.0 ms"},
		{33.19, "ns/op", "33.2 ns"},
		{999.6, "ns/op", "1.00 µs"},
		{1175, "ns/op", "1.18 µs"},
		{2.5e9, "ns/op", "2.50 s"},
		{0.5, "sec/op", "500 ms"},
		{150, "p99-read-ns", "150 ns"},
		{288, "B/op", "288 B"},
		{3.813, "B/op", "3.81 B"},
		{2048, "heap-B/cmd", "2.00 KiB"},
		{5e7, "cmds/s", "50.0M"},
		{3.6e7, "cmds/s", "36.0M"},
		{1234, "reads/s", "1.23k"},
		{4, "allocs/op", "4"},
		{4.0000226, "allocs/op", "4"},
		{48.00025, "B/op", "48 B"},
		{1.00002e6, "ns/op", "1.00 ms"},
		{0.547, "efficiency", "0.547"},
		{1, "efficiency", "1.00"},
		{9.54e-05, "allocs/op", "0.0000954"},
		{1, "distinct-states", "1"},
		{0, "ns/op", "0 ns"},
		// Beyond the last suffix: three significant digits, not hundreds of them.
		{5e307, "ns/op", "5e+298 s"},
		{1e300, "B/op", "9.09e+287 TiB"},
		{1e300, "widgets/op", "1e+288T"},
		{123456, "ns/op", "123 µs"},
	} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestPartialText(t *testing.T) {
	for in, want := range map[string]string{
		"true (3 of 315 benchmarks: interrupted)": "partial: 3 of 315 benchmarks finished (interrupted)",
		"true (3 of 9)":              "partial: 3 of 9 benchmarks finished",
		"3 of 9 benchmarks finished": "partial: 3 of 9 benchmarks finished",
		"true (run in progress)":     "partial: run in progress",
		"true":                       "partial",
	} {
		if got := PartialText(in); got != want {
			t.Errorf("PartialText(%q) = %q, want %q", in, got, want)
		}
	}
}
