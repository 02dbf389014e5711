package handle

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

// storedPostLoader loads one post as the store would have it.
type storedPostLoader struct{ post *protocol.Tweet }

func (l storedPostLoader) LoadHandle(_ context.Context, _ string, into *State) error {
	st := statePost(l.post, l.post.CreatedAt)
	st.loaded = true
	into.posts[l.post.ID] = st
	return nil
}

// A post the store had (loaded at activation) comes again: as a live
// re-observation it is not new; replayed from the ingest log after a crash
// it is told to the products as New and Replayed, once (a second replay of
// it, now seen by this process, is not new).
func TestReplayedStoredPostRedrivesProducts(t *testing.T) {
	now := time.Now().UnixMilli()
	line := fmt.Sprintf(`{"kind":"post","id":"42","created_at":%d,"type":"post","text":"gm","author":{"id":"7","handle":"whale"}}`, now)
	for _, tc := range []struct {
		name     string
		replayed bool
		want     string
	}{
		{"live re-observation", false, "[new=false replayed=false new=false replayed=false]"},
		{"replayed", true, "[new=true replayed=true new=false replayed=false]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			subs := &Subscriptions{PostSeen: []Subscriber{hearFunc(func(c any) {
				p := c.(*PostSeen)
				mu.Lock()
				got = append(got, fmt.Sprintf("new=%v replayed=%v", p.New, p.Replayed))
				mu.Unlock()
			})}}
			stored := decode(t, line, now).Post
			g := newLife(t, &Deps{Subs: subs, Loader: storedPostLoader{post: stored}})
			for range 2 {
				o := decode(t, line, now)
				o.Replayed = tc.replayed
				g.r.Route(o)
			}
			g.settle(t)
			mu.Lock()
			defer mu.Unlock()
			if fmt.Sprint(got) != tc.want {
				t.Fatalf("products heard %v, want %s", got, tc.want)
			}
		})
	}
}
