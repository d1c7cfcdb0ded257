package boundexec

import (
	"errors"
	"os/exec"
	"sync"
	"time"
)

// ErrStopped reports that a command was not started because KillAll has begun: the process
// is stopping its children before it exits, and a child started now would outlive it.
var ErrStopped = errors.New("not started: the process is stopping its children")

// live is the set of commands started through this package (Run, or Start) that have not
// been reaped yet.
//
// A command is started and registered under a read lock on mu, and KillAll takes the write
// lock: a start that began before KillAll is registered (and so killed) before KillAll
// looks at the set, and one that begins after it sees stopped and starts nothing. No
// command can be running yet unknown to KillAll.
var live struct {
	mu      sync.RWMutex // read: a start in progress; write: KillAll marking stopped
	stopped bool         // KillAll has begun; written under mu's write lock

	setMu  sync.Mutex               // guards groups; never held while waiting for mu
	groups map[*group]chan struct{} // closed when the command's caller untracks it
}

// testHookStarted, when not nil, is called in start between the command's start and its
// registration (tests only).
var testHookStarted func()

// killWait bounds how long KillAll waits for the commands it killed to be reaped.
const killWait = 2 * time.Second

// Start starts cmd, which must be set up to run in a process group of its own
// (SysProcAttr.Setpgid on Unix), and registers it so that KillAll reaches it, until the
// returned function is called, which the caller does right after cmd.Wait returns (KillAll
// waits for it). Run does this itself; Start is for callers that run a command their own
// way.
//
// Once KillAll has begun, Start starts nothing and returns ErrStopped. A Start running when
// KillAll is called finishes first, and KillAll then kills the command it started: no
// command started through Start outlives KillAll. Start is safe for concurrent use.
func Start(cmd *exec.Cmd) (untrack func(), err error) {
	return start(&group{cmd: cmd})
}

// start starts g's command and registers it (see Start).
func start(g *group) (untrack func(), err error) {
	live.mu.RLock()
	defer live.mu.RUnlock()
	if live.stopped {
		return nil, ErrStopped
	}
	if err := g.cmd.Start(); err != nil {
		return nil, err
	}
	if testHookStarted != nil {
		testHookStarted()
	}
	done := make(chan struct{})
	live.setMu.Lock()
	if live.groups == nil {
		live.groups = map[*group]chan struct{}{}
	}
	live.groups[g] = done
	live.setMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			live.setMu.Lock()
			delete(live.groups, g)
			live.setMu.Unlock()
			close(done)
		})
	}, nil
}

// KillAll kills the process group of every command started through this package that is
// still tracked (see Start), at once, and from then on refuses to start any (ErrStopped):
// a process that exits on a signal calls it first, so that no child it started outlives it
// (a child that leads its own process group is not reached by the terminal's signals).
// It waits for a Start in progress to register its command, and returns once the commands
// it killed have been reaped by their callers (or after a few seconds), so that none of
// them still writes files when the caller goes on to remove its temporary directories.
// KillAll is safe for concurrent use; there is no undoing it.
func KillAll() {
	live.mu.Lock()
	live.stopped = true
	live.setMu.Lock()
	var reaped []chan struct{}
	for g, done := range live.groups {
		g.kill()
		reaped = append(reaped, done)
	}
	live.setMu.Unlock()
	live.mu.Unlock()

	deadline := time.NewTimer(killWait)
	defer deadline.Stop()
	for _, done := range reaped {
		select {
		case <-done:
		case <-deadline.C:
			return
		}
	}
}
