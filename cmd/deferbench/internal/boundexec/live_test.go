//go:build unix

package boundexec

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestKillAll: KillAll ends the process groups of running commands, those of Run and those
// registered with Track, grandchildren included, so that a deferbench exiting on a signal
// leaves none behind (valgrind children of a count run outlived it before).
func TestKillAll(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Options{Timeout: time.Minute}, "sh", "-c", "sleep 60 & sleep 60")
		done <- err
	}()
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	untrack := Track(cmd)
	defer untrack()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
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
