package boundexec

import (
	"os/exec"
	"sync"
)

// live is the set of commands started through this package (Run, or Track) that have not
// been reaped yet.
var live struct {
	sync.Mutex
	groups map[*group]struct{}
}

// Track registers cmd, already started in its own process group (SysProcAttr.Setpgid on
// Unix), so that KillAll reaches it, until the returned function is called (after cmd.Wait).
// Run tracks its commands itself; Track is for callers that start a command their own way.
func Track(cmd *exec.Cmd) (untrack func()) {
	return track(&group{cmd: cmd})
}

func track(g *group) (untrack func()) {
	live.Lock()
	if live.groups == nil {
		live.groups = map[*group]struct{}{}
	}
	live.groups[g] = struct{}{}
	live.Unlock()
	return func() {
		live.Lock()
		delete(live.groups, g)
		live.Unlock()
	}
}

// KillAll kills the process group of every command still tracked (see Track), at once: a
// process that exits on a signal calls it first, so that no child it started outlives it
// (a child that leads its own process group is not reached by the terminal's signals).
// It is safe for concurrent use.
func KillAll() {
	live.Lock()
	defer live.Unlock()
	for g := range live.groups {
		g.kill()
	}
}
