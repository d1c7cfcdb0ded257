package counts

import (
	"errors"
	"os"
	"testing"
)

// resetTemps undoes RemoveTemps, for the tests that call it: a process that called
// RemoveTemps exits, a test binary goes on to the next test.
func resetTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.removed = false
}

// TestMakeTempAfterRemoveTemps: RemoveTemps removes the directories MakeTemp made, and once
// it has run MakeTemp makes none. A deferbench exiting on a signal calls RemoveTemps while
// its run goes on in other goroutines until the exit; a directory made then would outlive
// the exit.
func TestMakeTempAfterRemoveTemps(t *testing.T) {
	t.Cleanup(resetTemps)
	parent := t.TempDir()
	before, err := MakeTemp(parent, "before-")
	if err != nil {
		t.Fatal(err)
	}
	RemoveTemps()
	if _, err := os.Stat(before); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("RemoveTemps left %s (stat: %v)", before, err)
	}
	after, err := MakeTemp(parent, "after-")
	if !errors.Is(err, ErrTempsRemoved) {
		t.Errorf("MakeTemp after RemoveTemps = %q, %v; want ErrTempsRemoved", after, err)
	}
	if left, _ := os.ReadDir(parent); len(left) > 0 {
		t.Errorf("after RemoveTemps, %s holds %v", parent, left)
	}
}
