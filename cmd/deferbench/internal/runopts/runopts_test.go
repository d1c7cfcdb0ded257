package runopts

import (
	"strings"
	"testing"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/usage"
)

// TestParseMeasure: time and instructions in any combination, cachesim implying instructions;
// anything else is a usage error naming the value.
func TestParseMeasure(t *testing.T) {
	m, err := ParseMeasure("run", "time")
	if err != nil || m.Instructions || m.NoTime {
		t.Errorf("time: %+v, %v", m, err)
	}
	m, err = ParseMeasure("run", "instructions")
	if err != nil || !m.Instructions || !m.NoTime {
		t.Errorf("instructions: %+v, %v", m, err)
	}
	m, err = ParseMeasure("run", "time,cachesim")
	if err != nil || !m.Instructions || !m.CacheSim || m.NoTime {
		t.Errorf("time,cachesim: %+v, %v", m, err)
	}
	if _, err := ParseMeasure("ab", "cycles"); !usage.Is(err) || !strings.Contains(err.Error(), `ab: -measure "cycles"`) {
		t.Errorf("cycles: %v; want a usage error naming it", err)
	}
}

// TestCheckPlansOnce: Check returns the options with the plan computed, and refuses a count,
// benchtime or procs value with a usage error naming the flag.
func TestCheckPlansOnce(t *testing.T) {
	f := Flags{Quick: true, Count: 1, Benchtime: "1x", Scenarios: "Stage", Strategies: "cmdbuffer", Procs: "1", Measure: "time", Repeats: 1,
		Set: map[string]bool{"scenarios": true, "strategies": true, "procs": true}}
	opt, _, err := f.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(opt.Cases) == 0 || opt.Benchtime.N != 1 {
		t.Errorf("options %+v: want the plan computed and benchtime 1x", opt)
	}
	for flag, bad := range map[string]Flags{
		"-count":     {Count: 0, Benchtime: "1x", Measure: "time", Repeats: 1},
		"-benchtime": {Count: 1, Benchtime: "fast", Measure: "time", Repeats: 1},
		"-procs":     {Count: 1, Benchtime: "1x", Procs: "0", Measure: "time", Repeats: 1, Set: map[string]bool{"procs": true}},
		"-repeats":   {Count: 1, Benchtime: "1x", Measure: "time", Repeats: 0},
	} {
		if _, _, err := bad.Check(nil); !usage.Is(err) || !strings.Contains(err.Error(), "run: "+flag) {
			t.Errorf("%s: %v; want a usage error naming it", flag, err)
		}
	}
}

func TestCountJobs(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int
		bad  bool
	}{{"", 0, false}, {" 3 ", 3, false}, {"1", 1, false}, {"1024", 1024, false},
		{"0", 0, true}, {"-2", 0, true}, {"1025", 0, true}, {"two", 0, true}} {
		t.Setenv(CountJobsEnv, tc.env)
		got, err := CountJobs()
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), CountJobsEnv) {
				t.Errorf("%s=%q: got %d, %v; want an error naming the variable", CountJobsEnv, tc.env, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s=%q: got %d, %v; want %d", CountJobsEnv, tc.env, got, err, tc.want)
		}
	}
}

// TestNamesIgnoreCase: -scenarios and -strategies take a name in any case ("stage" is
// Stage), repeats dropped once folded; a name no case makes valid stays a usage error.
func TestNamesIgnoreCase(t *testing.T) {
	f := Flags{Count: 1, Benchtime: "1x", Scenarios: "stage,STAGE", Strategies: "CmdBuffer", Measure: "time", Repeats: 1,
		Set: map[string]bool{"scenarios": true, "strategies": true}}
	opt, _, err := f.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(opt.Cases) == 0 {
		t.Fatal("no case planned for stage/CmdBuffer")
	}
	for _, c := range opt.Cases {
		if c.Scenario != "Stage" || c.Strategy != "cmdbuffer" {
			t.Errorf("case %s/%s, want Stage/cmdbuffer only", c.Scenario, c.Strategy)
		}
	}
	f.Scenarios = "stages"
	if _, _, err := f.Check(nil); !usage.Is(err) || !strings.Contains(err.Error(), "stages") {
		t.Errorf("-scenarios stages: %v; want a usage error naming it", err)
	}
}
