package kit

import (
	"errors"
	"fmt"
)

// Errors of Ask, as AskError.Err; test them with errors.Is.
var (
	// ErrTimeout: no answer came within the ask's timeout. The actor may
	// still handle the message later.
	ErrTimeout = errors.New("no answer in time")
	// ErrStopped: the actor is not running (stopped, or never started): the
	// message went to protoactor's dead letters.
	ErrStopped = errors.New("actor stopped")
	// ErrUnexpectedAnswer: the actor answered with a type the caller did not
	// ask for (a programming error on one side).
	ErrUnexpectedAnswer = errors.New("unexpected answer")
)

// AskError says which ask failed and why. Err is one of the sentinels above,
// or the error an actor answered with (c.Respond(err)).
type AskError struct {
	Actor   string // the actor's name (its PID id)
	Message string // the type of the message asked, e.g. "*cw.Query"
	Err     error
}

func (e *AskError) Error() string {
	return fmt.Sprintf("ask %s %s: %v", e.Actor, e.Message, e.Err)
}

func (e *AskError) Unwrap() error { return e.Err }
