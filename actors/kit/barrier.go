package kit

import (
	"context"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Barrier returns once every singleton has handled what was in its mailbox
// when Barrier reached it: a round trip (protoactor's Touch, answered after
// the messages queued before it) through each, last spawned first. A
// singleton that feeds another is spawned after it (the fed one must exist
// first), so the feeder is passed first and what it forwarded is in the
// fed one's mailbox before the round trip reaches that one. Tests use it
// (through engine.Sync) instead of polling; ctx bounds the whole wait.
func (k *Kit) Barrier(ctx context.Context) error {
	k.mu.Lock()
	refs := slices.Clone(k.refs)
	k.mu.Unlock()
	for i := len(refs) - 1; i >= 0; i-- {
		if _, err := Ask[*actor.Touched](refs[i], &actor.Touch{}, WithTimeout(timeLeft(ctx))); err != nil {
			return err
		}
	}
	return nil
}

// timeLeft is ctx's time left (DefaultAskTimeout when ctx has no deadline).
func timeLeft(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Until(dl), time.Millisecond)
	}
	return DefaultAskTimeout
}
