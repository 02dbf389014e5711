package handle

import (
	"context"
	"fmt"
	"time"

	"github.com/alertd/alertd/actors/kit"
	"github.com/asynkron/protoactor-go/actor"
)

// QueryTimeout bounds one ask of a handle actor from outside (REST).
const QueryTimeout = 5 * time.Second

// Memberships asks the actors of handles for their memberships, all at once,
// and returns each handle's view. An actor that was passivated starts and
// loads its state first. Call it from REST handlers, never from an actor.
func Memberships(ctx context.Context, l Lookup, handles []string) (map[string]MembershipsView, error) {
	timeout := QueryTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(dl), time.Millisecond))
	}
	futures := make([]*actor.Future, len(handles))
	for i, h := range handles {
		futures[i] = l.RequestFuture(h, KindHandle, &QueryMemberships{}, timeout)
	}
	out := make(map[string]MembershipsView, len(handles))
	for i, f := range futures {
		v, err := kit.Await[*MembershipsView](f, KindHandle+"/"+handles[i], &QueryMemberships{})
		if err != nil {
			return nil, fmt.Errorf("memberships of %s: %w", handles[i], err)
		}
		out[handles[i]] = *v
	}
	return out, nil
}
