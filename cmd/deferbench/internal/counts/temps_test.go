package counts

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
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

// TestRemoveTempsWaitsForRemoveTemp: once RemoveTemps returns, no directory MakeTemp made
// exists, even one whose RemoveTemp was running in another goroutine at that moment (a run
// cleaning up its cross-built children while SIGTERM's handler removes every directory and
// exits).
func TestRemoveTempsWaitsForRemoveTemp(t *testing.T) {
	t.Cleanup(resetTemps)
	parent := t.TempDir()
	for round := range 20 {
		resetTemps()
		dir, err := MakeTemp(parent, "busy-")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 200 {
			if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan struct{})
		go func() { RemoveTemp(dir); close(done) }()
		runtime.Gosched()
		RemoveTemps()
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("round %d: RemoveTemps returned while RemoveTemp of %s was running, which left it (stat: %v)", round, dir, err)
		}
		<-done
	}
}

// TestPlaceTemp: a temporary placed whole (a rename into place) is no temporary any more: a
// later RemoveTemps leaves what now sits at its old name alone; a RemoveTemps that comes
// while place runs waits for it, so the stop finds the move done, never half done; after
// RemoveTemps, PlaceTemp runs nothing.
func TestPlaceTemp(t *testing.T) {
	t.Cleanup(resetTemps)
	parent := t.TempDir()
	tmp, err := MakeTemp(parent, "new-")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmp, "chart.svg"), []byte("x"), 0o644)
	dst := filepath.Join(parent, "plots")
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- PlaceTemp(tmp, func() error {
			close(started)
			<-release // a stop arrives now
			return os.Rename(tmp, dst)
		})
	}()
	<-started
	removed := make(chan struct{})
	go func() { RemoveTemps(); close(removed) }()
	select {
	case <-removed:
		t.Fatal("RemoveTemps returned while PlaceTemp's place was running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-removed
	if _, err := os.Stat(filepath.Join(dst, "chart.svg")); err != nil {
		t.Errorf("the placed directory lost its file to RemoveTemps: %v", err)
	}
	os.Mkdir(tmp, 0o755) // something new at the old name is not the temporary
	RemoveTemps()
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("RemoveTemps removed a directory at a placed temporary's old name: %v", err)
	}
	ran := false
	if err := PlaceTemp(tmp, func() error { ran = true; return nil }); !errors.Is(err, ErrTempsRemoved) || ran {
		t.Errorf("PlaceTemp after RemoveTemps: %v, ran %v; want ErrTempsRemoved and nothing run", err, ran)
	}
}
