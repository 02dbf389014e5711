package handle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// State is what a handle actor keeps in memory. A new instance starts empty
// and a Loader fills it from what is persisted: on the handle's first
// message, after passivation and after a restart, so none of them loses it.
// State that moves into the handle actor later goes here, with its loading
// in the Loader.
type State struct {
	// posts remembers published posts of this handle, so a re-observation
	// keeps the first detected_at and is judged for social.post.update.
	posts map[string]postState
	// following is the last complete following list (nil before the first).
	following   map[string]protocol.FollowUser
	followOrder []string
}

func newState() State { return State{posts: map[string]postState{}} }

// setFollowing makes cur the following baseline.
func (s *State) setFollowing(cur []protocol.FollowUser) {
	s.following = make(map[string]protocol.FollowUser, len(cur))
	s.followOrder = s.followOrder[:0]
	for _, u := range cur {
		if _, dup := s.following[u.ID]; !dup {
			s.followOrder = append(s.followOrder, u.ID)
		}
		s.following[u.ID] = u
	}
}

// Loader fills a handle actor's State from the store. It runs on the
// actor's goroutine when the actor starts, before its first message; it
// must be safe for concurrent use (actors of different handles load at the
// same time).
type Loader interface {
	LoadHandle(ctx context.Context, handle string, into *State) error
}

// LoadTimeout bounds one LoadHandle. A load that fails or times out is
// logged and the actor goes on with what was loaded: a store outage slows
// a handle's first message, it never stalls ingest.
const LoadTimeout = 5 * time.Second

// HandleStore is what StoreLoader reads.
type HandleStore interface {
	GetSnapshot(ctx context.Context, handle, kind string) (persistence.Snapshot, error)
	RecentPosts(ctx context.Context, handle string, limit int) ([]persistence.Post, error)
}

// StoreLoader loads what the handle actor wrote through the writer: the
// last following list (the baseline) and the posts seen within Window.
//
// What was still queued in the writer is not seen: passivation waits far
// longer than the writer's flush interval, but a restart after a panic may
// forget the last few milliseconds of posts (re-observed, they are new).
type StoreLoader struct {
	Store HandleStore
	// Window: posts created longer ago are not loaded. No event is ever
	// derived from them (protocol.Timings.LateMaxAge), seen or not.
	Window time.Duration
	Now    func() time.Time // default time.Now
}

// LoadHandle implements Loader.
func (l StoreLoader) LoadHandle(ctx context.Context, handle string, into *State) error {
	snap, err := l.Store.GetSnapshot(ctx, handle, protocol.KindFollowing)
	switch {
	case err == nil:
		var f protocol.FollowingObs
		if err := json.Unmarshal(snap.Data, &f); err != nil {
			return fmt.Errorf("following baseline: %w", err)
		}
		into.setFollowing(f.Users)
	case !errors.Is(err, persistence.ErrNotFound):
		return fmt.Errorf("following baseline: %w", err)
	}
	posts, err := l.Store.RecentPosts(ctx, handle, maxPosts)
	if err != nil {
		return fmt.Errorf("posts seen: %w", err)
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	horizon := now().Add(-l.Window)
	for _, p := range posts { // newest first
		if p.CreatedAt.Before(horizon) {
			break
		}
		var t protocol.Tweet
		if err := json.Unmarshal(p.Data, &t); err != nil {
			return fmt.Errorf("posts seen: %s: %w", p.ID, err)
		}
		into.posts[p.ID] = statePost(&t, p.DetectedAt.UnixMilli())
	}
	return nil
}
