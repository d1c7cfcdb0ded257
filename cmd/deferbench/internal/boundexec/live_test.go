//go:build unix

package boundexec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillAll: KillAll ends the process groups of running commands, those of Run and those
// started with Start, grandchildren included, so that a deferbench exiting on a signal
// leaves none behind (valgrind children of a count run outlived it before).
func TestKillAll(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Cleanup(resetKillAll)
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Options{Timeout: time.Minute}, "sh", "-c", "sleep 60 & sleep 60")
		done <- err
	}()
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	untrack, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		untrack()
		waited <- err
	}()
	time.Sleep(300 * time.Millisecond) // let both shells start their children
	start := time.Now()
	KillAll()
	for _, c := range []chan error{done, waited} {
		select {
		case err := <-c:
			if err == nil {
				t.Errorf("a killed command reported success")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a command still runs 20 s after KillAll")
		}
	}
	// The killed grandchild is reaped by init, not by us: give it a moment.
	for i := 0; syscall.Kill(-cmd.Process.Pid, 0) == nil; i++ {
		if i == 100 {
			t.Fatal("the tracked command's group still has a process 5 s after KillAll")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("both ended %v after KillAll", time.Since(start).Round(time.Millisecond))
}

// resetKillAll undoes KillAll, for the tests that call it: a process that called KillAll
// exits, a test binary goes on to the next test.
func resetKillAll() {
	live.mu.Lock()
	defer live.mu.Unlock()
	live.stopped = false
}

// TestKillAllRefusesLaterStarts: once KillAll has begun, Run and Start start nothing. A
// deferbench exiting on a signal calls KillAll while its run goes on in other goroutines
// until the exit (a cross build of the count children about to start, say); a command
// started then would be killed by no one, outlive the exit and write into the temporary
// directories removed after KillAll.
func TestKillAllRefusesLaterStarts(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Cleanup(resetKillAll)
	KillAll()
	ran := filepath.Join(t.TempDir(), "ran")
	t.Setenv("RAN", ran)
	script := `echo $$ >>"$RAN"; sleep 1`

	start := time.Now()
	_, err := Run(context.Background(), Options{Timeout: 10 * time.Second}, "sh", "-c", script)
	if !errors.Is(err, ErrStopped) {
		t.Errorf("Run after KillAll: error %v after %v, want ErrStopped", err, time.Since(start).Round(time.Millisecond))
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	untrack, err := Start(cmd)
	if err == nil {
		untrack()
		cmd.Process.Kill()
		cmd.Wait()
	}
	if !errors.Is(err, ErrStopped) || cmd.Process != nil {
		t.Errorf("Start after KillAll: error %v, process %v; want ErrStopped and none", err, cmd.Process)
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("processes %q ran after KillAll", strings.Fields(string(b)))
		wantGone(t, ran)
	}
}

// TestKillAllDuringStart: KillAll called while a command is being started, after the
// process exists and before it is registered, kills it: a process that had started when
// KillAll looked at the registered commands, and was registered only after, survived
// KillAll (a cross build started as SIGTERM arrived wrote its output into the temporary
// directory removed after KillAll, recreating it).
func TestKillAllDuringStart(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Cleanup(resetKillAll)
	killed := make(chan struct{})
	testHookStarted = func() {
		testHookStarted = nil // the first start only
		go func() {
			KillAll()
			close(killed)
		}()
		// Let KillAll run now, before the registration: it waits for it if the start
		// holds it off, and misses the command if not.
		time.Sleep(200 * time.Millisecond)
	}
	t.Cleanup(func() { testHookStarted = nil })
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("PIDS", pids)

	start := time.Now()
	_, err := Run(context.Background(), Options{Timeout: 5 * time.Second, Grace: grace}, "sh", "-c", `sleep 30 & echo $! >>"$PIDS"; wait`)
	took := time.Since(start)
	t.Logf("Run returned in %v: %v", took.Round(time.Millisecond), err)
	if err == nil || errors.Is(err, ErrTimeout) || took > 4*time.Second {
		t.Errorf("Run of a command started as KillAll ran: error %v after %v, want it killed at once", err, took)
	}
	select {
	case <-killed:
	case <-time.After(10 * time.Second):
		t.Fatal("KillAll still runs 10 s after it was called")
	}
	wantGone(t, pids)
}
