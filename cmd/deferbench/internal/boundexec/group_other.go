//go:build !unix

package boundexec

import "os/exec"

// group is the command alone where there are no process groups: its children are not
// reached, but Grace still bounds the wait for its output.
type group struct{ cmd *exec.Cmd }

func (g *group) prepare() {}

func (g *group) stop() error { g.kill(); return nil }

func (g *group) kill() {
	if p := g.cmd.Process; p != nil {
		_ = p.Kill()
	}
}
