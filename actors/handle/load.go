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
type State struct {
	// posts remembers published posts of this handle, so a re-observation
	// keeps the first detected_at and is judged for social.post.update.
	posts map[string]postState
	// following is the last complete following list (nil before the first),
	// detected at followingAt (epoch ms).
	following   map[string]protocol.FollowUser
	followOrder []string
	followingAt int64
	// memberships is the last complete community membership, with join
	// times; membershipsKnown is false before the first.
	memberships      []Membership
	membershipsKnown bool
	// followingAdopted and membershipsAdopted mark a baseline taken from the
	// previous handle of a renamed user (rename.go): the next list is still
	// the first under this handle. Not persisted: an actor that passivates
	// before that list forgets the adopted baseline.
	followingAdopted, membershipsAdopted bool
}

func newState() State { return State{posts: map[string]postState{}} }

// setFollowing makes cur, detected at at, the following baseline.
func (s *State) setFollowing(cur []protocol.FollowUser, at int64) {
	s.followingAt = at
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
// last following list (the baseline; the `following` snapshot), the
// memberships with their join times (the `communities` snapshot, see
// membershipsDoc) and the posts seen within Window.
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
		for i := range f.Users { // the stored line as sent: spelled as the platform did, maybe with '@'
			f.Users[i].Handle = protocol.HandleSpelling(f.Users[i].Handle)
		}
		into.setFollowing(f.Users, snap.ObservedAt.UnixMilli())
	case !errors.Is(err, persistence.ErrNotFound):
		return fmt.Errorf("following baseline: %w", err)
	}
	ms, known, err := l.Memberships(ctx, handle)
	if err != nil {
		return err
	}
	into.memberships, into.membershipsKnown = ms, known
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
		st := statePost(&t, p.DetectedAt.UnixMilli())
		st.loaded = true
		into.posts[p.ID] = st
	}
	return nil
}

// Memberships reads the memberships of handle as its actor last persisted
// them; known is false when none were. Products that index memberships
// (ct) reload theirs with it when they start.
func (l StoreLoader) Memberships(ctx context.Context, handle string) (ms []Membership, known bool, err error) {
	snap, err := l.Store.GetSnapshot(ctx, handle, protocol.KindCommunities)
	switch {
	case errors.Is(err, persistence.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("memberships: %w", err)
	}
	if ms, err = decodeMemberships(snap.Data); err != nil {
		return nil, false, fmt.Errorf("memberships: %w", err)
	}
	return ms, true, nil
}
