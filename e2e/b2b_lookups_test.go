package e2e

// Helpers of the lookups end-to-end tests: the B2B per-handle endpoints,
// the dt webhook setting, trace records and the /social lookups.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestB2BLookups runs the lookups suite against one server per store.
func TestB2BLookups(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		for _, c := range []struct {
			name string
			f    func(*testing.T, *server)
		}{
			{"Auth", testLookupsAuth},
			{"PendingTarget", testLookupsPending},
			{"ProfileAndHistory", testLookupsProfile},
			{"Tweets", testLookupsTweets},
			{"FollowsAndDiff", testLookupsFollows},
			{"Communities", testLookupsCommunities},
			{"Webhook", testLookupsWebhook},
			{"TweetTrace", testLookupsTweetTrace},
			{"EventTrace", testLookupsEventTrace},
			{"SocialTweet", testLookupsSocialTweet},
			{"Blacklist", testLookupsBlacklist},
		} {
			t.Run(c.name, func(t *testing.T) { c.f(t, s) })
		}
	})
}

// lkAccount is a dt account with its key.
type lkAccount struct{ account, key string }

// lkDT issues a dt key with exactly modules (none: the tier's).
func (s *server) lkDT(t *testing.T, plan string, modules ...string) lkAccount {
	t.Helper()
	body := map[string]any{"product": "dt", "plan": plan, "max_handles": 50}
	if modules != nil {
		body["modules"] = modules
	}
	is := s.issue(t, body)
	return lkAccount{account: is.account, key: is.key}
}

func (s *server) lkGet(t *testing.T, key, path string) resp {
	t.Helper()
	return s.do(t, "GET", path, bearer(key), nil)
}

// lkSend ingests observations as one JSON array; all must be accepted.
func (s *server) lkSend(t *testing.T, obs ...map[string]any) {
	t.Helper()
	b, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	wantIngest(t, s.ingest(t, "application/json", b), len(obs))
}

// lkTarget adds handle to the key's target list (201).
func (s *server) lkTarget(t *testing.T, key, handle string) obj {
	t.Helper()
	h := bearer(key)
	h["Content-Type"] = "application/json"
	return s.do(t, "POST", "/v1/dt/targets", h, `{"handle":"`+handle+`"}`).wantOK(t, 201)
}

var lkSeq atomic.Int64

// lkHandle is a fresh lowercase handle.
func lkHandle(prefix string) string {
	return fmt.Sprintf("%s_%s%d", prefix, testkit.RandomHex(3), lkSeq.Add(1))
}

// lkID is a fresh numeric platform id.
func lkID() string {
	return fmt.Sprintf("9%d%05d", time.Now().UnixNano()%1e12, lkSeq.Add(1)%100000)
}

func lkUser(id, handle string, followers, following int64) map[string]any {
	return map[string]any{"kind": "user", "id": id, "handle": handle, "name": "Name of " + handle,
		"bio": "bio of " + handle, "avatar": "https://pbs.example.com/" + handle + ".jpg", "banner_url": nil,
		"location": "Lisbon", "website": "https://" + handle + ".example", "followers": followers, "following": following,
		"verified": true, "verification_type": "blue", "pinned_post": []string{}, "categories": []string{}, "suspended": false}
}

// lkPost is a post observation by authorID/handle, created at createdMs.
func lkPost(id, authorID, handle, typ, text string, createdMs int64) map[string]any {
	p := map[string]any{"kind": "post", "id": id, "created_at": createdMs, "type": typ, "text": text,
		"cashtags": []string{}, "media": []any{}, "mentions": []string{},
		"author": map[string]any{"id": authorID, "handle": handle, "name": "Author " + handle,
			"avatar": "https://pbs.example.com/a.jpg", "description": "", "verification": map[string]any{"is_verified": false, "type": nil},
			"affiliation": nil, "stats": map[string]any{"followers": 5, "following": 6}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": map[string]any{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  map[string]any{"likes": nil, "retweets": nil, "replies": nil, "quotes": nil, "views": nil}}
	return p
}

func lkFollowing(handle string, users ...[2]string) map[string]any {
	list := []map[string]any{}
	for _, u := range users {
		list = append(list, map[string]any{"id": u[0], "handle": u[1], "name": "N " + u[1], "bio": nil,
			"followers": nil, "following": nil, "protected": false})
	}
	return map[string]any{"kind": "following", "handle": handle, "users": list}
}

func lkFollowersNew(handle string, users ...[2]string) map[string]any {
	list := []map[string]any{}
	for _, u := range users {
		list = append(list, map[string]any{"id": u[0], "handle": u[1], "name": nil})
	}
	return map[string]any{"kind": "followers_new", "handle": handle, "users": list}
}

// lkResolved makes a resolved target of a fresh user on acc's list and
// returns its handle and user id.
func (s *server) lkResolved(t *testing.T, acc lkAccount, prefix string) (string, string) {
	t.Helper()
	h, id := lkHandle(prefix), lkID()
	s.lkSend(t, lkUser(id, h, 100, 10))
	s.lkWaitUser(t, acc.key, h)
	d := s.lkTarget(t, acc.key, h)
	if d.isNull("social_user_id") || d.str(t, "social_user_id") != id {
		t.Fatalf("target of a known user: social_user_id %s, want %s", d["social_user_id"], id)
	}
	return h, id
}

// lkWaitUser asserts that the directory knows handle once the engine has
// handled what it accepted.
func (s *server) lkWaitUser(t *testing.T, key, handle string) {
	t.Helper()
	s.userNow(t, key, handle)
}

// lkNow GETs path once the engine has handled what it accepted (Sync): it
// must answer 200 with data for which ok holds.
func (s *server) lkNow(t *testing.T, key, path, what string, ok func(d obj) bool) obj {
	t.Helper()
	s.sync(t)
	r := s.lkGet(t, key, path)
	d := r.wantOK(t, 200)
	if !ok(d) {
		t.Fatalf("%s: not so after Sync: %s", what, r)
	}
	return d
}

// lkObjects decodes an array member of objects.
func lkObjects(t *testing.T, d obj, name string) []obj {
	t.Helper()
	var out []obj
	for _, raw := range d.array(t, name) {
		out = append(out, decodeObj(t, raw, name+" item"))
	}
	return out
}

// lkTime parses an RFC 3339 member.
func lkTime(t *testing.T, o obj, name string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, o.str(t, name))
	if err != nil {
		t.Fatalf("member %s = %s is not RFC 3339: %v", name, o[name], err)
	}
	return v
}

// lkWantStatusCode asserts an error envelope with retry_after and Retry-After.
func lkWantRetry(t *testing.T, r resp, status int, code string, secs float64) {
	t.Helper()
	e := r.wantErr(t, status, code)
	if got := e.num(t, "retry_after"); got != secs {
		t.Errorf("%s: retry_after %v, want %v", r, got, secs)
	}
	if got := r.header.Get("Retry-After"); got != fmt.Sprint(secs) {
		t.Errorf("%s: Retry-After header %q, want %v", r, got, secs)
	}
}

var lkHex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)
