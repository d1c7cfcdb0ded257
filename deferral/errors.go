package deferral

import (
	"errors"
	"fmt"
)

// Sentinel errors of the contract; match with errors.Is.
var (
	// ErrPending: an operation that needs no pending commands (TakeReport, a new frame) was
	// called while commands are pending. Commit or Discard first.
	ErrPending = errors.New("commands are pending: commit or discard them first")
	// ErrPendingAtClose: Close was called with pending commands; they would be lost. Commit or
	// Discard them, then Close again.
	ErrPendingAtClose = errors.New("close with pending commands would lose them: commit or discard first")
	// ErrClosed: the strategy was closed.
	ErrClosed = errors.New("strategy is closed")
	// ErrNotPlaceholder: Resolve was given a handle that is not a placeholder.
	ErrNotPlaceholder = errors.New("not a placeholder")
	// ErrForeignPlaceholder: the placeholder was minted by another strategy instance.
	ErrForeignPlaceholder = errors.New("placeholder from another strategy")
	// ErrUnresolved: the placeholder's create has not been applied in the current commit (it is
	// still pending, or it belongs to an earlier commit whose answers have expired).
	ErrUnresolved = errors.New("placeholder not resolved: its create was not applied in the last commit")
	// ErrCulled: the placeholder's create was culled (a validator rejected its values).
	ErrCulled = errors.New("placeholder's create was culled")
	// ErrInvalidCommand: a zero or malformed command record.
	ErrInvalidCommand = errors.New("invalid command")
	// ErrReentry: a commit, frame or discard called from inside a frame's decisions or from a
	// closure command while a commit runs.
	ErrReentry = errors.New("reentry refused: called from inside decisions or a running commit")
)

// CommandError is the error of a commit that stopped at one command. The command named by Pos
// and every command after it stay pending; the ones before it stay applied.
type CommandError struct {
	Pos       Pos
	Verb      Verb
	Component string // component name(s), "" when the verb has none
	Err       error  // the strict error, e.g. ecs.ErrMissingComponent, or the closure's error
}

// Error returns "commit: recorder R command I (verb component): cause".
func (e *CommandError) Error() string {
	what := e.Verb.String()
	if e.Component != "" {
		what += " " + e.Component
	}
	return fmt.Sprintf("commit: recorder %d command %d (%s): %v", e.Pos.Recorder, e.Pos.Index, what, e.Err)
}

// Unwrap returns the cause.
func (e *CommandError) Unwrap() error { return e.Err }
