package deferral

import (
	"fmt"

	"github.com/deferbench/deferbench/ecs"
)

// Verb is the kind of a staged ECS command.
type Verb uint8

// The five verbs of the ECS command set, and the closure tier.
const (
	VerbNone    Verb = iota // the zero Command; applying it is an error
	VerbCreate              // create an entity with Command.Bundle; Command.Entity is its placeholder
	VerbDestroy             // destroy Command.Entity
	VerbAdd                 // add (or overwrite) the components in Command.Bundle
	VerbRemove              // remove component Command.Component
	VerbSet                 // overwrite the components in Command.Bundle; the entity must have them
	VerbFunc                // a closure; strategies store closures beside the records
	VerbTyped               // a typed record of a generic (non-ECS) command set
)

var verbNames = [...]string{"none", "create", "destroy", "add", "remove", "set", "func", "typed"}

// String returns the verb's lower-case name.
func (v Verb) String() string {
	if int(v) < len(verbNames) {
		return verbNames[v]
	}
	return fmt.Sprintf("verb(%d)", uint8(v))
}

// Command is one typed ECS command record: 72 bytes, pointer-free, passed and stored by value,
// so staging one through an interface does not allocate.
type Command struct {
	Verb      Verb
	Component ecs.ComponentID // VerbRemove: the component to remove
	Entity    ecs.Entity      // the target entity, a placeholder, or (VerbCreate) the placeholder minted
	Bundle    ecs.Bundle      // VerbCreate, VerbAdd, VerbSet: the component values
}

// componentName names the component a command is about, for error messages.
func (c *Command) componentName() string {
	switch {
	case c.Verb == VerbRemove:
		return ecs.ComponentName(c.Component)
	case c.Bundle.Len() > 0:
		s := ecs.ComponentName(c.Bundle.ID(0))
		for i := 1; i < c.Bundle.Len(); i++ {
			s += "+" + ecs.ComponentName(c.Bundle.ID(i))
		}
		return s
	}
	return ""
}

// Wrap returns err as a *CommandError naming at, unless it already is one naming at (the ECS
// Core's errors are). A *CommandError for another position — a nested commit's, returned by a
// closure — is wrapped like any other error, so the outer error names the outer command.
// Generic strategies use Wrap for the errors of typed apply functions, verb VerbTyped, and of
// closures, verb VerbFunc.
func Wrap(at Pos, verb Verb, err error) error {
	if err == nil {
		return nil
	}
	if ce, ok := err.(*CommandError); ok && ce.Pos == at {
		return err
	}
	return &CommandError{Pos: at, Verb: verb, Err: err}
}

// Pos names a staged command: the index of the recorder that staged it (recorders are
// numbered from 0 in the order the strategy minted them) and its index in that recorder's
// FIFO, counted from the last commit that drained it.
type Pos struct {
	Recorder int
	Index    int
}

// Stager is the generic recorder shape: stage a typed command C by value, or a closure over
// the target T, each with the sort key in force (strategies without sort keys ignore it).
// Strategies that defer to any T (cmdbuffer, handrolled, lazyguarded) expose recorders of
// this shape. Its methods are called from the recorder's goroutine only.
type Stager[T, C any] interface {
	StageKeyed(key uint64, c C)
	StageFuncKeyed(key uint64, fn func(t *T) error)
}

// Sink is what a Recorder stages into: a strategy's per-recorder storage for ECS commands.
type Sink = Stager[ecs.World, Command]
