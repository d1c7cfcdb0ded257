//go:build unix

package boundexec

import (
	"os/exec"
	"syscall"
)

// group is a command's process group: the command leads a new one, so that signals reach
// every process it starts (unless one leaves the group on purpose, as a daemon does).
type group struct{ cmd *exec.Cmd }

func (g *group) prepare() {
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// stop asks the group to stop; exec kills the leader and closes the pipes Grace later, and
// Run then kills the group.
func (g *group) stop() error {
	g.signal(syscall.SIGTERM)
	return nil
}

// kill kills every process left in the group.
func (g *group) kill() { g.signal(syscall.SIGKILL) }

func (g *group) signal(sig syscall.Signal) {
	if p := g.cmd.Process; p != nil && p.Pid > 0 {
		_ = syscall.Kill(-p.Pid, sig) // ESRCH: the group is gone
	}
}
