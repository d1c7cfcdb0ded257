package counts

import (
	"math"
	"strings"
	"testing"
)

func TestParseThresholds(t *testing.T) {
	ts, err := ParseThresholds("instr/op>1%, sim-D1-miss/op>5% ,IPC>0.5%")
	if err != nil {
		t.Fatal(err)
	}
	want := []Threshold{{InstrUnit, 0.01, "instr/op>1%"}, {SimD1MissUnit, 0.05, "sim-D1-miss/op>5%"}, {IPCUnit, 0.005, "IPC>0.5%"}}
	if len(ts) != len(want) {
		t.Fatalf("got %v, want %v", ts, want)
	}
	for i := range want {
		if ts[i].Unit != want[i].Unit || math.Abs(ts[i].Frac-want[i].Frac) > 1e-12 || ts[i].Text != want[i].Text {
			t.Errorf("threshold %d: got %+v, want %+v", i, ts[i], want[i])
		}
	}
	for _, tc := range []struct{ in, wantErr string }{
		{"", "want unit>N%"},
		{"instr/op", "want unit>N%"},
		{"instr/op>1", "relative change"},
		{"sec/op>5%", "not a count unit"},
		{"instr/op>x%", "finite number"},
		{"instr/op>-1%", "finite number"},
		{"instr/op>1%,instr/op>2%", "second threshold"},
		{"instr/op>1%,", "want unit>N%"},
	} {
		_, err := ParseThresholds(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseThresholds(%q) = %v, want an error containing %q", tc.in, err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseThresholds(%q): error of several lines: %q", tc.in, err)
		}
	}
}

func TestSplitThresholds(t *testing.T) {
	c, o := SplitThresholds("sec/op>5%, instr/op>1%,allocs/op>0,sim-LL-miss/op>10%")
	if c != "instr/op>1%,sim-LL-miss/op>10%" || o != "sec/op>5%,allocs/op>0" {
		t.Errorf("got %q and %q", c, o)
	}
	if c, o := SplitThresholds(""); c != "" || o != "" {
		t.Errorf("empty: got %q and %q", c, o)
	}
}

func row(name string, kv ...any) Row {
	r := Row{Name: name}
	for i := 0; i < len(kv); i += 3 {
		r.Measures = append(r.Measures, Measure{Unit: kv[i].(string), Median: kv[i+1].(float64), Spread: kv[i+2].(float64)})
	}
	return r
}

func TestGate(t *testing.T) {
	ts, err := ParseThresholds("instr/op>1%,IPC>2%")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		old, new Row
		want     Status
		better   bool
	}{
		{"unchanged", row("a", InstrUnit, 100.0, 0.001), row("a", InstrUnit, 100.0, 0.001), Pass, false},
		{"within spread noise", row("a", InstrUnit, 100.0, 0.002), row("a", InstrUnit, 100.15, 0.002), Pass, false},
		{"+1% at 1% passes", row("a", InstrUnit, 100.0, 0.001), row("a", InstrUnit, 100.99, 0.001), Pass, false},
		{"+1.2% fails", row("a", InstrUnit, 100.0, 0.001), row("a", InstrUnit, 101.2, 0.001), Fail, false},
		{"+2% fails", row("a", InstrUnit, 100.0, 0.0005), row("a", InstrUnit, 102.0, 0.0005), Fail, false},
		{"+1.5% inside a wide spread passes", row("a", InstrUnit, 100.0, 0.01), row("a", InstrUnit, 101.5, 0.01), Pass, false},
		{"+2.5% beyond a wide spread fails", row("a", InstrUnit, 100.0, 0.01), row("a", InstrUnit, 102.5, 0.01), Fail, false},
		{"-5% is better", row("a", InstrUnit, 100.0, 0.001), row("a", InstrUnit, 95.0, 0.001), Pass, true},
		{"IPC down fails", row("a", IPCUnit, 2.0, 0.0), row("a", IPCUnit, 1.9, 0.0), Fail, false},
		{"IPC up is better", row("a", IPCUnit, 2.0, 0.0), row("a", IPCUnit, 2.2, 0.0), Pass, true},
		{"0 to some fails", row("a", InstrUnit, 0.0, 0.0), row("a", InstrUnit, 1.0, 0.0), Fail, false},
	} {
		vs := Gate([]Row{tc.old}, []Row{tc.new}, ts, false)
		if len(vs) != 1 {
			t.Errorf("%s: %d verdicts, want 1: %+v", tc.name, len(vs), vs)
			continue
		}
		if v := vs[0]; v.Status != tc.want || v.Better != tc.better {
			t.Errorf("%s: status %s better %v (change %+.4f, limit %.4f), want %s better %v", tc.name, v.Status, v.Better, v.Change, v.Limit, tc.want, tc.better)
		}
	}
}

func TestGateRowsAndUnits(t *testing.T) {
	ts, _ := ParseThresholds("instr/op>1%")
	old := []Row{row("a", InstrUnit, 10.0, 0.0), row("b", InstrUnit, 10.0, 0.0), row("c", "ns/op", 5.0, 0.1)}
	new := []Row{row("b", InstrUnit, 12.0, 0.0), row("a", InstrUnit, 10.0, 0.0), row("d", InstrUnit, 1.0, 0.0)}
	vs := Gate(old, new, ts, false)
	got := ""
	for _, v := range vs {
		got += v.Name + ":" + string(v.Status) + " "
	}
	if want := "a:pass b:fail d:missing "; got != want {
		t.Errorf("verdicts %q, want %q", got, want)
	}
	if f := Failed(vs); len(f) != 1 || f[0].Name != "b" {
		t.Errorf("Failed = %+v, want b only", f)
	}
	if vs := Gate([]Row{row("a", InstrUnit, 10.0, 0.0)}, nil, ts, false); len(vs) != 1 || vs[0].Status != Missing {
		t.Errorf("a row gone from new: %+v, want one Missing", vs)
	}
	// A row gone from a scenario new counted (Stage), of a strategy it counted (b, in
	// Contention), is Vanished; one of a scenario new did not count (Spike) is Missing, as
	// on another ISA, and so is one at a GOMAXPROCS new did not reach (Contention a-4).
	old = []Row{row("Stage/strategy=a-2", InstrUnit, 10.0, 0.0), row("Stage/strategy=b-2", InstrUnit, 10.0, 0.0), row("Spike/strategy=a", InstrUnit, 10.0, 0.0), row("Contention/strategy=a-4", InstrUnit, 10.0, 0.0)}
	pi := row("Stage/strategy=b-2", InstrUnit, 10.0, 0.0)
	pi.ISA = "pi4"
	old = append(old, pi)
	new = []Row{row("Stage/strategy=a-2", InstrUnit, 10.0, 0.0), row("Contention/strategy=a-2", InstrUnit, 10.0, 0.0), row("Contention/strategy=b-2", InstrUnit, 10.0, 0.0)}
	got = ""
	for _, v := range Gate(old, new, ts, false) {
		got += v.Name + ":" + string(v.Status) + " "
	}
	if want := "Stage/strategy=a-2:pass Stage/strategy=b-2:vanished Spike/strategy=a:missing Contention/strategy=a-4:missing Stage/strategy=b-2:missing Contention/strategy=a-2:missing Contention/strategy=b-2:missing "; got != want {
		t.Errorf("verdicts %q, want %q", got, want)
	}
	// With lines of new skipped as malformed (they may be Spike's), Spike's row is Vanished
	// too; Contention a-4, at a GOMAXPROCS new has its row at another of, stays Missing, and
	// so does the row of an ISA new did not count.
	got = ""
	for _, v := range Gate(old, new, ts, true) {
		got += v.Name + ":" + string(v.Status) + " "
	}
	if want := "Stage/strategy=a-2:pass Stage/strategy=b-2:vanished Spike/strategy=a:vanished Contention/strategy=a-4:missing Stage/strategy=b-2:missing Contention/strategy=a-2:missing Contention/strategy=b-2:missing "; got != want {
		t.Errorf("unreadable: verdicts %q, want %q", got, want)
	}
}
