// Package usage marks bad input on the command line: an error that names the input and the
// fix, which deferbench prints as one line and exits with status 2. The packages that check
// a command's input (its flags, files and directories) return one; the command tells it
// from other failures with errors.As or Is.
package usage

import (
	"errors"
	"fmt"
)

// Error is bad input on the command line; its message is the whole line, without the
// "deferbench: " prefix.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error with the message formatted as fmt.Sprintf does.
func Errorf(format string, args ...any) error {
	return &Error{fmt.Sprintf(format, args...)}
}

// Is reports whether err is or wraps an *Error.
func Is(err error) bool {
	var ue *Error
	return errors.As(err, &ue)
}
