package counts

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestParseISAs: names in the order of ISAs whatever the order given, repeats dropped; an
// unknown or empty name is an error naming the valid ones.
func TestParseISAs(t *testing.T) {
	got, err := ParseISAs("pi4-32, pi4,host,pi4")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range got {
		names = append(names, i.Name)
	}
	if strings.Join(names, ",") != "host,pi4,pi4-32" {
		t.Errorf("ParseISAs = %v, want host,pi4,pi4-32", names)
	}
	for _, bad := range []string{"pi3", "pi4,,pi5", ""} {
		if _, err := ParseISAs(bad); err == nil || !strings.Contains(err.Error(), "valid: host, pi4, pi5, pi4-32") {
			t.Errorf("ParseISAs(%q) = %v, want an error naming the valid ISAs", bad, err)
		}
	}
}

// TestISAConfig: an emulated ISA's rows carry goarch, the modelled CPU, isa, lse-atomics and
// emulated; pi4 and pi5 differ in the CPU and LSE; the host's carry none.
func TestISAConfig(t *testing.T) {
	get := func(name string) map[string]string {
		i, ok := LookupISA(name)
		if !ok {
			t.Fatalf("no ISA %s", name)
		}
		m := map[string]string{}
		for _, c := range i.Config() {
			m[c.Key] = string(c.Value)
		}
		return m
	}
	p4, p5, p32 := get("pi4"), get("pi5"), get("pi4-32")
	if p4["goarch"] != "arm64" || p4["isa"] != "pi4" || p4["lse-atomics"] != "no" || !strings.Contains(p4["cpu"], "cortex-a72") || !strings.Contains(p4["emulated"], "qemu-aarch64") {
		t.Errorf("pi4 config %v", p4)
	}
	if p5["lse-atomics"] != "yes" || !strings.Contains(p5["cpu"], "cortex-a76") {
		t.Errorf("pi5 config %v", p5)
	}
	if p32["goarch"] != "arm" || p32["goarm"] != "7" || !strings.Contains(p32["emulated"], "qemu-arm ") {
		t.Errorf("pi4-32 config %v", p32)
	}
	if len(get("host")) != 0 {
		t.Errorf("the host's rows carry config lines: %v", get("host"))
	}
}

// TestParsePluginCount reads the plugin's one line and refuses anything else.
func TestParsePluginCount(t *testing.T) {
	if n, err := ParsePluginCount([]byte("insns 470256869\n")); err != nil || n != 470256869 {
		t.Errorf("ParsePluginCount = %d, %v", n, err)
	}
	for _, bad := range []string{"", "insns", "insns x", "insns -1", "Ir 5", "insns 5 6"} {
		if _, err := ParsePluginCount([]byte(bad)); err == nil {
			t.Errorf("ParsePluginCount(%q) accepted it", bad)
		}
	}
}

// TestRowsAndGateByISA: rows of one name on two ISAs are two rows, and the gate judges each
// against the old row of its own ISA: pi5 +2 % fails naming pi5, the host's and pi4's pass.
func TestRowsAndGateByISA(t *testing.T) {
	const name = "Stage/strategy=lazyguarded/cmd=typed"
	res := func(isa string, v float64) *benchfmt.Result {
		r := &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: InstrUnit}}}
		if i, ok := LookupISA(isa); ok {
			r.Config = i.Config()
		}
		return r
	}
	// The old side is counted twice per ISA, as committed expectations are (a row counted once
	// on both sides has no spread to be judged against).
	old := RowsFromResults([]*benchfmt.Result{res("host", 1593), res("pi4", 1558), res("pi5", 1552), res("pi4", 1558), res("host", 1593), res("pi5", 1552)})
	if len(old) != 3 || old[0].ISA != "" || old[1].ISA != "pi4" || len(old[1].Measures[0].Samples) != 2 || old[2].ISA != "pi5" {
		t.Fatalf("RowsFromResults = %+v, want host, pi4, pi5 (2 samples each)", old)
	}
	new := RowsFromResults([]*benchfmt.Result{res("host", 1593), res("pi4", 1558), res("pi5", 1583)})
	vs := Gate(old, new, []Threshold{{Unit: InstrUnit, Frac: 0.005, Text: "instr/op>0.5%"}}, false)
	if len(vs) != 3 {
		t.Fatalf("Gate gave %d verdicts, want 3: %+v", len(vs), vs)
	}
	for _, v := range vs {
		if want := map[string]Status{"": Pass, "pi4": Pass, "pi5": Fail}[v.ISA]; v.Status != want {
			t.Errorf("%s on %q: %s, want %s (old %g new %g)", v.Name, v.ISA, v.Status, want, v.Old, v.New)
		}
	}
}
