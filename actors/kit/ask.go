package kit

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// DefaultAskTimeout bounds an Ask without WithTimeout.
const DefaultAskTimeout = 5 * time.Second

// AskOption tunes one Ask.
type AskOption func(*askConfig)

type askConfig struct{ timeout time.Duration }

// WithTimeout bounds how long Ask waits for the answer (d <= 0: the default).
func WithTimeout(d time.Duration) AskOption {
	return func(c *askConfig) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// Ask sends msg to the singleton behind r and waits for its answer, which
// must be a T (the actor answers with c.Respond). Errors are *AskError.
//
// Ask blocks its caller: call it from outside the actor system (REST
// handlers, wiring, tests). An actor that must wait for another uses
// c.RequestFuture and c.ReenterAfter instead, never a blocking Ask: A asks B
// while B asks A is a deadlock.
func Ask[T any](r *Ref, msg any, opts ...AskOption) (T, error) {
	return AskPID[T](r.k.root, r.pid, msg, opts...)
}

// AskPID is Ask to any PID (an entity actor found through a lookup).
func AskPID[T any](root *actor.RootContext, pid *actor.PID, msg any, opts ...AskOption) (T, error) {
	c := askConfig{timeout: DefaultAskTimeout}
	for _, o := range opts {
		o(&c)
	}
	return Await[T](root.RequestFuture(pid, msg, c.timeout), pid.Id, msg)
}

// Await waits for a request's future (made elsewhere, for instance through
// the handle lookup) and types its answer as Ask does; actor names the
// target in errors.
func Await[T any](f *actor.Future, actorName string, msg any) (T, error) {
	var zero T
	res, err := f.Result()
	fail := func(err error) (T, error) {
		return zero, &AskError{Actor: actorName, Message: typeName(msg), Err: err}
	}
	switch {
	case errors.Is(err, actor.ErrTimeout):
		return fail(ErrTimeout)
	case errors.Is(err, actor.ErrDeadLetter):
		return fail(ErrStopped)
	case err != nil:
		return fail(err)
	}
	if v, ok := res.(T); ok {
		return v, nil
	}
	if e, ok := res.(error); ok {
		return fail(e)
	}
	return fail(fmt.Errorf("%w: %s", ErrUnexpectedAnswer, typeName(res)))
}

func typeName(v any) string { return fmt.Sprintf("%T", actor.UnwrapEnvelopeMessage(v)) }
