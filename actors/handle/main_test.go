package handle

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// protoactor's dead-letter log throttle runs a goroutine of its own for
	// one second after a dead letter; it ends by itself.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}
