package xapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// lookupBatch is the most usernames or ids one users lookup takes.
const lookupBatch = 100

// lookups turns the monitored handles into `user` and `following`
// observations within the per-endpoint budgets: the users loop resolves new
// handles through /2/users/by (a pending target fills in) and re-reads every
// monitored profile by id in batches of 100 each ProfileEvery (a rename
// shows as a new username); the following loop reads the following list of
// the handle that waited longest, one at a time, so a small budget is shared
// fairly. Each loop is one goroutine; mu guards ids, which both read.
type lookups struct {
	c              *client
	handles        HandleSet
	usersChanged   <-chan struct{}
	followChanged  <-chan struct{}
	clock          clockwork.Clock
	profileEvery   time.Duration
	followingEvery time.Duration
	emit           *emitter
	stats          *Stats
	log            *slog.Logger

	resolved chan struct{} // the users loop learnt an id: the following loop may have work

	mu  sync.Mutex
	ids map[string]string // monitored handle -> user id
}

func (l *lookups) init() {
	l.ids = map[string]string{}
	l.resolved = make(chan struct{}, 1)
}

func (l *lookups) idOf(h string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ids[h]
}

// runUsers resolves new handles at once and re-reads profiles on schedule.
func (l *lookups) runUsers(ctx context.Context) {
	notFound := map[string]time.Time{} // handle -> when to ask again
	nextProfile := l.clock.Now().Add(l.profileEvery)
	retry := time.Duration(0) // after failed lookups: 2 s, doubling to 1 min
	for {
		mon := l.handles.Monitored()
		now := l.clock.Now()
		var pending []string
		l.mu.Lock()
		keep := make(map[string]string, len(mon))
		for _, m := range mon {
			if id := l.ids[m.Handle]; id != "" {
				keep[m.Handle] = id
			} else if now.After(notFound[m.Handle]) {
				pending = append(pending, m.Handle)
			}
		}
		l.ids = keep // handles no longer monitored are forgotten
		l.mu.Unlock()
		failed := false
		for len(pending) > 0 && ctx.Err() == nil {
			n := min(len(pending), lookupBatch)
			if l.resolve(ctx, pending[:n], notFound) != nil {
				failed = true
			}
			pending = pending[n:]
		}
		if !l.clock.Now().Before(nextProfile) {
			l.refresh(ctx)
			nextProfile = l.clock.Now().Add(l.profileEvery)
		}
		wake := nextProfile
		if failed { // ask again soon; after a 429 the limiter holds the call until the reset
			retry = min(max(2*retry, 2*time.Second), time.Minute)
			if soon := l.clock.Now().Add(retry); soon.Before(wake) {
				wake = soon
			}
		} else {
			retry = 0
		}
		for _, t := range notFound {
			if t.After(now) && t.Before(wake) {
				wake = t
			}
		}
		t := l.clock.NewTimer(max(wake.Sub(l.clock.Now()), time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-l.usersChanged:
		case <-t.Chan():
		}
		t.Stop()
	}
}

// resolve looks handles up by username and emits what it finds; a handle
// the API does not know is asked again after ProfileEvery.
func (l *lookups) resolve(ctx context.Context, handles []string, notFound map[string]time.Time) error {
	var r usersResponse
	path := "/2/users/by?usernames=" + url.QueryEscape(strings.Join(handles, ",")) + "&" + userFields
	if err := l.c.call(ctx, epUsersBy, http.MethodGet, path, nil, &r); err != nil {
		if ctx.Err() == nil {
			l.log.Warn("x users lookup failed", "handles", len(handles), "err", err)
		}
		return err
	}
	found := l.emitUsers(ctx, r.Data)
	retry := l.clock.Now().Add(l.profileEvery)
	for _, h := range handles {
		if !found[h] {
			notFound[h] = retry
		} else {
			delete(notFound, h)
		}
	}
	for _, p := range r.Errors {
		l.log.Info("x users lookup: not available", "value", p.Value, "title", p.Title, "detail", p.Detail)
	}
	if len(found) > 0 {
		select {
		case l.resolved <- struct{}{}:
		default:
		}
	}
	return nil
}

// refresh re-reads every resolved profile by id.
func (l *lookups) refresh(ctx context.Context) {
	l.mu.Lock()
	ids := make([]string, 0, len(l.ids))
	for _, id := range l.ids {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	slices.Sort(ids)
	for len(ids) > 0 && ctx.Err() == nil {
		n := min(len(ids), lookupBatch)
		var r usersResponse
		path := "/2/users?ids=" + strings.Join(ids[:n], ",") + "&" + userFields
		if err := l.c.call(ctx, epUsers, http.MethodGet, path, nil, &r); err != nil {
			if ctx.Err() == nil {
				l.log.Warn("x profile refresh failed", "users", n, "err", err)
			}
		} else {
			l.emitUsers(ctx, r.Data)
		}
		ids = ids[n:]
	}
}

// emitUsers queues one `user` line per user and records their ids; it
// returns the handles it saw.
func (l *lookups) emitUsers(ctx context.Context, users []apiUser) map[string]bool {
	seen := make(map[string]bool, len(users))
	for i := range users {
		u := &users[i]
		line, err := encodeUser(u)
		if err != nil {
			l.stats.Malformed.Add(1)
			l.log.Warn("x users: user skipped", "err", err)
			continue
		}
		h := strings.ToLower(u.Username)
		seen[h] = true
		l.mu.Lock()
		for old, id := range l.ids { // a rename: the id moves to the new handle
			if id == u.ID && old != h {
				delete(l.ids, old)
			}
		}
		l.ids[h] = u.ID
		l.mu.Unlock()
		if !l.emit.put(ctx, item{line: line, kind: 'u'}) {
			return seen
		}
	}
	return seen
}

// runFollowing reads following lists, longest-waiting handle first.
func (l *lookups) runFollowing(ctx context.Context) {
	lastRead := map[string]time.Time{}
	for {
		h, id, due := l.nextFollowing(lastRead)
		if h != "" {
			switch err := l.readFollowing(ctx, h, id); {
			case ctx.Err() != nil:
				return
			case err == nil:
				lastRead[h] = l.clock.Now()
			case classify(err) == failRate:
				// asked again at once: the limiter holds the call until the reset
			default:
				lastRead[h] = l.clock.Now().Add(time.Minute - l.followingEvery) // again in a minute
			}
			continue
		}
		var tc <-chan time.Time
		var t clockwork.Timer
		if !due.IsZero() {
			t = l.clock.NewTimer(max(due.Sub(l.clock.Now()), time.Millisecond))
			tc = t.Chan()
		}
		select {
		case <-ctx.Done():
		case <-l.followChanged:
		case <-l.resolved:
		case <-tc:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// nextFollowing picks the resolved handle whose list is due and waited
// longest; with none due it returns when the next one will be.
func (l *lookups) nextFollowing(lastRead map[string]time.Time) (handle, id string, next time.Time) {
	now := l.clock.Now()
	var best time.Time
	for _, m := range l.handles.Monitored() {
		if !m.Following {
			continue
		}
		uid := l.idOf(m.Handle)
		if uid == "" {
			continue
		}
		last, seen := lastRead[m.Handle]
		due := last.Add(l.followingEvery)
		if seen && due.After(now) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		if handle == "" || last.Before(best) {
			handle, id, best = m.Handle, uid, last
		}
	}
	return handle, id, next
}

// readFollowing reads all pages of one list and emits it whole (a partial
// list would read as unfollows).
func (l *lookups) readFollowing(ctx context.Context, handle, id string) error {
	var all []apiUser
	token := ""
	for {
		path := "/2/users/" + id + "/following?max_results=1000&" + userFields
		if token != "" {
			path += "&pagination_token=" + url.QueryEscape(token)
		}
		var r usersResponse
		if err := l.c.call(ctx, epFollowing, http.MethodGet, path, nil, &r); err != nil {
			if ctx.Err() == nil {
				l.log.Warn("x following read failed", "handle", handle, "err", err)
			}
			return err
		}
		all = append(all, r.Data...)
		if token = r.Meta.NextToken; token == "" {
			break
		}
	}
	line, err := encodeFollowing(handle, all)
	if err != nil {
		l.log.Warn("x following: list skipped", "handle", handle, "err", err)
		return nil
	}
	l.emit.put(ctx, item{line: line, kind: 'f'})
	return nil
}
