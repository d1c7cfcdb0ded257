package harness

import (
	"errors"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/conformance/bench"
)

func TestFindCase(t *testing.T) {
	for _, name := range []string{
		"Stage/strategy=cmdbuffer/cmd=typed",
		"Frame/strategy=cmdbuffer/entities=1000",
		"Spike/strategy=cmdbuffer/spike=65536/frames=40", // a quick size
		"Peer/strategy=ark/op=add-remove/storage=archetypes",
	} {
		c, err := FindCase(name)
		if err != nil {
			t.Errorf("FindCase(%q): %v", name, err)
			continue
		}
		if c.FullName() != name || c.Procs != 1 {
			t.Errorf("FindCase(%q) = %s at GOMAXPROCS %d", name, c.FullName(), c.Procs)
		}
	}
	if _, err := FindCase("Stage/strategy=nope/cmd=typed"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown name: %v, want an error naming it", err)
	}
}

// TestCountable: every case of the single-goroutine scenarios is counted at GOMAXPROCS=1,
// no case of the scenarios whose work depends on scheduling is, nor Frame above 1.
func TestCountable(t *testing.T) {
	counted := map[string]bool{}
	for _, c := range Plan(Scenarios, Strategies, true, []int{1, 2}) {
		err := Countable(c)
		single := map[string]bool{"Stage": true, "StageApply": true, "Structural": true, "Frame": true, "Spike": true, "Peer": true}[c.Scenario]
		switch {
		case single && c.Procs == 1 && err != nil:
			t.Errorf("%s: %v, want it counted", c.FullName(), err)
		case (!single || c.Procs != 1) && !errors.Is(err, ErrNotCounted):
			t.Errorf("%s: %v, want ErrNotCounted", c.FullName(), err)
		case err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.FullName())):
			t.Errorf("%s: reason %q: want one line naming the case", c.FullName(), err)
		}
		if err == nil {
			counted[c.Scenario] = true
		}
	}
	if len(counted) != 6 {
		t.Errorf("scenarios counted: %v, want Stage, StageApply, Structural, Frame, Spike, Peer", counted)
	}
}

// TestRunFixed runs a case at exactly the iteration count asked, and every counted scenario's
// iteration counts hold whole batches.
func TestRunFixed(t *testing.T) {
	c, err := FindCase("Stage/strategy=cmdbuffer/cmd=typed")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3000} {
		res, err := RunFixed(c, n)
		if err != nil {
			t.Fatal(err)
		}
		if res.Iters != n {
			t.Errorf("RunFixed(%d): %d iterations", n, res.Iters)
		}
	}
	if _, err := RunFixed(c, 0); err == nil {
		t.Error("RunFixed at 0 iterations: no error")
	}
	for _, c := range Plan(Scenarios, Strategies, false, []int{1}) {
		if Countable(c) != nil {
			continue
		}
		it := ItersFor(c)
		if it.Low < 1 || it.High <= it.Low {
			t.Errorf("%s: iteration counts %+v", c.FullName(), it)
		}
		batch := map[string]int{"Stage": stageBatch, "StageApply": 25600, "Structural": 4096, "Peer": peerBatch}[c.Scenario]
		if batch > 0 && ((it.High-it.Low)%batch != 0 || 25600%bench.ApplyBatch != 0 || 25600%bench.AddRemoveRound != 0) {
			t.Errorf("%s: iteration counts %+v are not whole batches of %d", c.FullName(), it, batch)
		}
		if c.Scenario == "Frame" && (it.High > frameSegment || it.MaxHigh > frameSegment) {
			t.Errorf("%s: %+v frames cross a rebuild every %d", c.FullName(), it, frameSegment)
		}
	}
}
