package peerload

import (
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/strategies/versioned"
	"github.com/deferbench/deferbench/workload"
)

var factories = map[string]deferral.Factory{
	"cmdbuffer": cmdbuffer.Factory, "handrolled": handrolled.Factory, "hybrid": hybrid.Factory,
	"lazyguarded": lazyguarded.Factory, "versioned": versioned.Factory,
}

// TestEveryPathLeavesTheExpectedWorld runs each workload a few rounds on every path, then its
// check: every strategy on both storages and both Ark paths reach the same state.
func TestEveryPathLeavesTheExpectedWorld(t *testing.T) {
	for _, w := range Names {
		for name, mk := range factories {
			for _, s := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
				l, err := Strategy(w, mk, s)
				if err != nil {
					t.Fatal(err)
				}
				exercise(t, w+"/"+name+"/"+s.String(), l)
			}
		}
		l, err := ArkCollect(w)
		if err != nil {
			t.Fatal(err)
		}
		exercise(t, w+"/ark-collect", l)
		l, ok, err := ArkBatch(w)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (w != W1) {
			t.Errorf("%s: ArkBatch ok %v", w, ok)
		}
		if ok {
			exercise(t, w+"/ark-batch", l)
		}
	}
}

func exercise(t *testing.T, name string, l Load) {
	t.Helper()
	if l.Ops <= 0 {
		t.Errorf("%s: %d ops a round", name, l.Ops)
	}
	if err := l.Run(3 * l.Ops); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if err := l.Check(); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

// TestCheckFails: a check reports a world that differs from the expected one.
func TestCheckFails(t *testing.T) {
	if checkSets(2, 1, func(int) (v workload.Vec2, err error) { return v, nil }) == nil {
		t.Error("checkSets accepted a zero value")
	}
	if checkAdds(true, 1, func(int) (int64, uint32, bool, error) { return 0, 7, true, nil }) == nil {
		t.Error("checkAdds accepted a wrong tag")
	}
	if checkAdds(false, 1, func(int) (int64, uint32, bool, error) { return 0, 0, true, nil }) == nil {
		t.Error("checkAdds accepted components left after the removes")
	}
	if checkCreates(false, 1, 0, nil) == nil {
		t.Error("checkCreates accepted a live entity after the destroys")
	}
	if _, err := Strategy("w9", cmdbuffer.Factory, ecs.Slots); err == nil {
		t.Error("Strategy accepted an unknown workload")
	}
}
