package handle

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
)

// heard keeps every change the actors publish, in the order heard.
type heard struct {
	mu  sync.Mutex
	all []any
}

func (h *heard) Hear(c any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all = append(h.all, c)
}

// subscriptions subscribes h to every change.
func (h *heard) subscriptions() *Subscriptions {
	s := []Subscriber{h}
	return &Subscriptions{PostSeen: s, PostDeleted: s, FollowsChanged: s, FollowersAdded: s, MembershipsChanged: s,
		ProfileChanged: s, EngagementChanged: s, Trending: s, Launchpad: s, Callout: s, MarketCap: s}
}

// of returns the changes of type T heard so far.
func of[T any](h *heard) []T {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []T
	for _, c := range h.all {
		if x, ok := c.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func communities(h string, cs ...string) string {
	parts := make([]string, len(cs))
	for i, c := range cs { // "id:name:description"
		f := strings.SplitN(c+"::", ":", 4)
		parts[i] = fmt.Sprintf(`{"id":%q,"name":%q,"description":%q,"member_count":%d,"creator_screen_name":"x"}`, f[0], f[1], f[2], i+1)
	}
	return fmt.Sprintf(`{"kind":"communities","handle":%q,"communities":[%s]}`, h, strings.Join(parts, ","))
}

func ids(us []protocol.FollowUser) string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.ID
	}
	return strings.Join(out, ",")
}

// memberships renders changes as "kind:id:joinedAt" (joinedAt relative to base).
func renderChanges(cs []MembershipChange, base int64) string {
	names := map[MembershipChangeKind]string{Joined: "joined", Left: "left", CommunityRenamed: "renamed", DescriptionChanged: "description"}
	out := make([]string, len(cs))
	for i, c := range cs {
		j := c.JoinedAt
		if j != 0 {
			j -= base
		}
		out[i] = fmt.Sprintf("%s:%s:%d", names[c.Kind], c.Community.ID, j)
	}
	return strings.Join(out, " ")
}

// TestFollowsChanged: the first list is the baseline (First, no diff); the
// next is diffed against it, with the previous list's time; the list rides
// along as observed.
func TestFollowsChanged(t *testing.T) {
	h := &heard{}
	g := newLife(t, &Deps{Subs: h.subscriptions()})
	g.r.Route(decode(t, following("whale", "1", "2", "3"), 1000))
	g.r.Route(decode(t, `{"kind":"following","handle":"whale","users":[{"id":"2","handle":"u2"},{"id":"3","handle":"three"},{"id":"4","handle":"u4"}]}`, 2000))
	g.settle(t)
	fs := of[*FollowsChanged](h)
	if len(fs) != 2 {
		t.Fatalf("%d follows changes, want 2", len(fs))
	}
	if f := fs[0]; !f.First || f.Added != nil || f.Removed != nil || ids(f.Following) != "1,2,3" || f.At != 1000 || f.PrevAt != 0 {
		t.Errorf("baseline %+v", f)
	}
	if f := fs[1]; f.First || ids(f.Added) != "4" || ids(f.Removed) != "1" || ids(f.Renamed) != "3" || f.Renamed[0].Handle != "three" ||
		ids(f.Following) != "2,3,4" || f.At != 2000 || f.PrevAt != 1000 || f.Handle != "whale" {
		t.Errorf("second list %+v", f)
	}
}

// TestMembershipsChanged: the first list syncs (First, join times unknown);
// later ones give joins with their time, renames and description changes in
// list order, then leaves with the kept join time; every list is told, even
// an unchanged one.
func TestMembershipsChanged(t *testing.T) {
	h := &heard{}
	g := newLife(t, &Deps{Subs: h.subscriptions()})
	g.r.Route(decode(t, communities("whale", "a:A:d", "b:B:d"), 1000))
	g.r.Route(decode(t, communities("whale", "b:B2:d2", "c:C:d", "a:A:d", "c:dup:dup"), 2000))
	g.r.Route(decode(t, communities("whale", "c:C:d"), 3000))
	g.r.Route(decode(t, communities("whale", "c:C:d"), 4000))
	g.settle(t)
	ms := of[*MembershipsChanged](h)
	if len(ms) != 4 {
		t.Fatalf("%d membership changes, want 4", len(ms))
	}
	if m := ms[0]; !m.First || len(m.Changes) != 0 || len(m.Memberships) != 2 || m.Memberships[0].JoinedAt != 0 {
		t.Errorf("sync %+v", m)
	}
	if got := renderChanges(ms[1].Changes, 0); got != "renamed:b:0 description:b:0 joined:c:2000" {
		t.Errorf("second list: %s", got)
	}
	if ms[1].Changes[0].OldName != "B" || ms[1].Changes[1].OldDescription != "d" || ms[1].First {
		t.Errorf("second list details %+v", ms[1].Changes)
	}
	if got := renderChanges(ms[2].Changes, 0); got != "left:b:0 left:a:0" {
		t.Errorf("third list: %s (leaves in the previous list's order)", got)
	}
	if m := ms[3]; len(m.Changes) != 0 || len(m.Memberships) != 1 || m.Memberships[0].JoinedAt != 2000 {
		t.Errorf("unchanged list %+v: still told, with the kept join time", m)
	}
}

// TestOtherChanges: posts (new, then an update with its reason and first
// detection), deletions, new followers, profiles, engagement and feed
// observations are each told as their change.
func TestOtherChanges(t *testing.T) {
	h := &heard{}
	g := newLife(t, &Deps{Subs: h.subscriptions()})
	now := time.Now().UnixMilli()
	post := `{"kind":"post","id":"100","created_at":%d,"type":"post","text":%q,"author":{"id":"7","handle":"whale"}}`
	g.r.Route(decode(t, fmt.Sprintf(post, now-100, "gm"), now))
	g.r.Route(decode(t, fmt.Sprintf(post, now-100, "gm, and the rest of it"), now+50))
	g.r.Route(decode(t, deleted("whale", "100"), now+60))
	g.r.Route(decode(t, `{"kind":"followers_new","handle":"whale","users":[{"id":"9","handle":"fan"}]}`, now+70))
	g.r.Route(decode(t, `{"kind":"user","id":"7","handle":"whale","name":"W","followers":1}`, now+80))
	g.r.Route(decode(t, `{"kind":"user","id":"7","handle":"whale","name":"W2","followers":2}`, now+90))
	g.r.Route(decode(t, `{"kind":"engagement","tweet_id":"100","favorite_count":3}`, now+100))
	g.r.Route(decode(t, `{"kind":"trending","category":"crypto","tweet":{"tweet_id":"1"}}`, now+110))
	g.settle(t)

	ps := of[*PostSeen](h)
	if len(ps) != 2 || !ps[0].New || ps[0].FirstSeen != now || ps[1].New || ps[1].FirstSeen != now ||
		ps[1].Update != UpdateText || ps[1].Obs.Post.Text != "gm, and the rest of it" {
		t.Errorf("posts seen %+v", ps)
	}
	if d := of[*PostDeleted](h); len(d) != 1 || d[0].Handle != "whale" {
		t.Errorf("deletions %+v", d)
	}
	if f := of[*FollowersAdded](h); len(f) != 1 || f[0].Users[0].ID != "9" || f[0].At != now+70 {
		t.Errorf("followers %+v", f)
	}
	pc := of[*ProfileChanged](h)
	if len(pc) != 2 || pc[0].Old != nil || len(pc[0].Changes) != 0 || pc[1].Old.Name != "W" || pc[1].New.Name != "W2" ||
		len(pc[1].Changes) != 2 || pc[1].Changes[0].Field != "name" {
		t.Errorf("profiles %+v", pc)
	}
	if _, ok := pc[1].Renamed(); ok {
		t.Errorf("no rename, but Renamed says so")
	}
	if e := of[*EngagementChanged](h); len(e) != 1 || e[0].Counts.FavoriteCount != 3 || e[0].Subject() != "100" {
		t.Errorf("engagement %+v", e)
	}
	if o := of[*Observed](h); len(o) != 1 || o[0].Obs.Kind != protocol.KindTrending {
		t.Errorf("feed %+v", o)
	}
}

// TestStateSurvivesReload: the following baseline and the memberships with
// their join times come back from the store after passivation (as after a
// restart or a panic): no new baseline, no second sync, and the join time
// of a membership that began before is kept.
func TestStateSurvivesReload(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := writer.New(st, writer.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(w.Stop)
	h := &heard{}
	loader := StoreLoader{Store: st, Window: 24 * time.Hour}
	g := newLife(t, &Deps{Writer: w, Subs: h.subscriptions(), Loader: loader})
	g.r.Route(decode(t, following("whale", "1", "2"), 1000))
	g.r.Route(decode(t, communities("whale", "a:A"), 1000))
	g.r.Route(decode(t, communities("whale", "a:A", "b:B"), 2000))
	g.passivate(t, w)
	g.r.Route(decode(t, following("whale", "2", "3"), 3000))
	g.r.Route(decode(t, communities("whale", "b:B", "c:C"), 3000))
	g.settle(t)

	fs := of[*FollowsChanged](h)
	if f := fs[len(fs)-1]; f.First || ids(f.Added) != "3" || ids(f.Removed) != "1" || f.PrevAt != 1000 {
		t.Errorf("after the reload %+v: diffed against the stored baseline", f)
	}
	ms := of[*MembershipsChanged](h)
	m := ms[len(ms)-1]
	if got := renderChanges(m.Changes, 0); m.First || got != "joined:c:3000 left:a:0" {
		t.Errorf("after the reload: first %v, changes %s", m.First, got)
	}
	if len(m.Memberships) != 2 || m.Memberships[0].ID != "b" || m.Memberships[0].JoinedAt != 2000 {
		t.Errorf("memberships after the reload %+v: b keeps its join time", m.Memberships)
	}
	if err := w.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, known, err := loader.Memberships(t.Context(), "whale")
	if err != nil || !known || len(got) != 2 || got[1].ID != "c" || got[1].JoinedAt != 3000 || got[0].JoinedAt != 2000 {
		t.Errorf("stored memberships %+v %v %v", got, known, err)
	}
	v, err := Memberships(t.Context(), g.r, []string{"whale", "nobody"})
	if err != nil || len(v["whale"].Memberships) != 2 || !v["whale"].Known || v["nobody"].Known {
		t.Errorf("asked memberships %+v %v", v, err)
	}
}

// TestMembershipsDocReadsBareObservation: a communities snapshot stored as
// the bare observation (before join times were kept) loads as memberships
// of unknown join time.
func TestMembershipsDocReadsBareObservation(t *testing.T) {
	ms, err := decodeMemberships([]byte(`{"handle":"whale","communities":[{"id":"a","name":"A","description":"","member_count":3,"creator_screen_name":"x"}]}`))
	if err != nil || len(ms) != 1 || ms[0].ID != "a" || ms[0].MemberCount != 3 || ms[0].JoinedAt != 0 {
		t.Errorf("bare observation %+v %v", ms, err)
	}
	data, err := encodeMemberships("whale", []Membership{{Community: protocol.Community{ID: "a"}, JoinedAt: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if ms, err = decodeMemberships(data); err != nil || ms[0].JoinedAt != 7 {
		t.Errorf("round trip %s: %+v %v", data, ms, err)
	}
}

// TestRenameHandsStateOver: after a rename the new handle's actor diffs
// against the old handle's following list and memberships (their first
// lists under the new handle are flagged First for the stores keyed by
// handle), and a post seen under the old handle is not new again.
func TestRenameHandsStateOver(t *testing.T) {
	h := &heard{}
	g := newLife(t, &Deps{Subs: h.subscriptions()})
	now := time.Now().UnixMilli()
	post := `{"kind":"post","id":"100","created_at":%d,"type":"post","text":"gm","author":{"id":"7","handle":%q}}`
	g.r.Route(decode(t, `{"kind":"user","id":"7","handle":"whale"}`, now))
	g.r.Route(decode(t, fmt.Sprintf(post, now-10, "whale"), now))
	g.r.Route(decode(t, following("whale", "1", "2"), now))
	g.r.Route(decode(t, communities("whale", "a:A"), now))
	g.r.Route(decode(t, communities("whale", "a:A", "b:B"), now+1))
	g.settle(t)
	g.r.Route(decode(t, `{"kind":"user","id":"7","handle":"orca"}`, now+2))
	g.settle(t)
	// A round trip through the old handle's actor, then the new one's: the
	// hand-over is done before the new handle's observations.
	for _, h := range []string{"whale", "orca"} {
		if _, err := Memberships(t.Context(), g.r, []string{h}); err != nil {
			t.Fatal(err)
		}
	}
	g.r.Route(decode(t, fmt.Sprintf(post, now-10, "orca"), now+3))
	g.r.Route(decode(t, following("orca", "2", "3"), now+4))
	g.r.Route(decode(t, communities("orca", "b:B", "c:C"), now+5))
	g.settle(t)

	if pc := of[*ProfileChanged](h); len(pc) != 2 {
		t.Fatalf("%d profile changes", len(pc))
	} else if from, ok := pc[1].Renamed(); !ok || from != "whale" || pc[1].New.Handle != "orca" {
		t.Errorf("rename %+v", pc[1])
	}
	ps := of[*PostSeen](h)
	if last := ps[len(ps)-1]; last.Handle != "orca" || last.New || last.FirstSeen != now {
		t.Errorf("post under the new handle %+v: seen before the rename", last)
	}
	fs := of[*FollowsChanged](h)
	if f := fs[len(fs)-1]; f.Handle != "orca" || !f.First || ids(f.Added) != "3" || ids(f.Removed) != "1" {
		t.Errorf("following under the new handle %+v", f)
	}
	ms := of[*MembershipsChanged](h)
	if m := ms[len(ms)-1]; m.Handle != "orca" || !m.First || renderChanges(m.Changes, 0) != fmt.Sprintf("joined:c:%d left:a:0", now+5) ||
		m.Memberships[0].JoinedAt != now+1 {
		t.Errorf("memberships under the new handle %+v", m)
	}
	if got := g.traces.list(); strings.Join(got, "|") != "social.following.new 3|social.following.removed 1" {
		t.Errorf("follow events %v: the rename must not take a new baseline", got)
	}
}
