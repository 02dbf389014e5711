package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestProcessSIGKILLWebhookRecovery kills the engine (SIGKILL) while
// Tweet Alerts webhook deliveries are queued: some waiting out their backoff
// after a 503, some in flight to a receiver that hangs, some not yet
// attempted. After a restart on the same store every one of them arrives,
// with the X-Delivery-Id it had before and a valid signature.
//
// The spec's timings hold (backoff 1 s then 2 s, 5 s attempt timeout):
// receivers that hang after their first answer keep the deliveries queued
// for well over ten seconds, which is the window the kill needs.
func TestProcessSIGKILLWebhookRecovery(t *testing.T) {
	testkit.ForEachStore(t, func(t *testing.T, st testkit.Store) {
		p, args, key, handle := startTracking(t, st, "crash")
		token := p.admin                         // for the restarts
		down := newReceiver(t, func(n int) int { // a 503 per post, then nothing until the client gives up
			if n == 1 {
				return 503
			}
			return 0
		})
		stuck := newReceiver(t, func(int) int { return 0 })
		hookDown := p.data(t, "POST", "/v1/webhooks", key, map[string]any{"url": down.srv.URL}, 201)
		hookStuck := p.data(t, "POST", "/v1/webhooks", key, map[string]any{"url": stuck.srv.URL}, 201)

		const n = 6 // the stuck endpoint holds 4 in flight; 2 stay queued
		var ids []string
		for i := range n {
			id := fmt.Sprintf("19%d%03d", time.Now().UnixNano()%1e12, i)
			ids = append(ids, id)
			p.ingest(t, post(id, handle, fmt.Sprint("crash ", i)))
		}
		// Every post was stored (both webhooks' deliveries of a post are
		// written in one transaction, before the first attempt).
		before := map[string]string{} // tweet id -> delivery id at the down receiver
		for _, id := range ids {
			h := down.wait(t, id)
			before[id] = h.header.Get("X-Delivery-Id")
		}
		testkit.WaitFor(t, 20*time.Second, "4 deliveries in flight to the stuck receiver", func() (bool, string) {
			return len(stuck.got()) >= 4, fmt.Sprint(len(stuck.got()))
		})
		p.kill()

		down.answer.Store(func(int) int { return 200 })
		stuck.answer.Store(func(int) int { return 200 })
		p = startProc(t, args)
		p.admin = token
		for _, r := range []struct {
			name string
			rcv  *receiver
		}{{"down", down}, {"stuck", stuck}} {
			for _, id := range ids {
				testkit.WaitFor(t, 30*time.Second, r.name+" receiver: post "+id+" delivered after the restart", func() (bool, string) {
					for _, h := range r.rcv.byTweet(t, id) {
						if h.status == 200 {
							return true, ""
						}
					}
					return false, fmt.Sprint(len(r.rcv.byTweet(t, id)), " attempts")
				})
			}
		}
		for _, id := range ids {
			for _, h := range down.byTweet(t, id) {
				if got := h.header.Get("X-Delivery-Id"); got != before[id] {
					t.Errorf("post %s: delivery id %q after the restart, %q before", id, got, before[id])
				}
				if !signed(hookDown["secret"].(string), h) {
					t.Errorf("post %s: bad signature after the restart", id)
				}
			}
			for _, h := range stuck.byTweet(t, id) {
				if !signed(hookStuck["secret"].(string), h) {
					t.Errorf("post %s: bad signature at the stuck receiver", id)
				}
			}
		}
		// The queue is empty once all arrived: the webhooks are healthy.
		testkit.WaitFor(t, 10*time.Second, "failures reset", func() (bool, string) {
			d := p.data(t, "GET", "/v1/webhooks", key, nil, 200)
			list, _ := d["webhooks"].([]any)
			for _, x := range list {
				if w, _ := x.(map[string]any); w["consecutive_failures"] != 0.0 {
					return false, fmt.Sprint(list)
				}
			}
			return len(list) == 2, fmt.Sprint(list)
		})
	})
}

// post is a Tweet Alerts post observation of handle, created a second ago.
func post(id, handle, text string) map[string]any {
	return map[string]any{"kind": "post", "id": id, "created_at": time.Now().Add(-time.Second).UnixMilli(), "type": "post",
		"text": text, "cashtags": []string{}, "media": []any{}, "mentions": []string{},
		"author": map[string]any{"id": "9" + id[2:], "handle": handle, "name": "Crash", "avatar": "https://pbs.example.com/c.jpg",
			"description": "", "verification": map[string]any{"is_verified": false, "type": nil}, "affiliation": nil,
			"stats": map[string]any{"followers": 1, "following": 1}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": map[string]any{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  map[string]any{"likes": 0, "retweets": 0, "replies": 0, "quotes": 0, "views": "0"}}
}

// hit is one request a receiver got.
type hit struct {
	body   []byte
	header http.Header
	status int // what the receiver answered (0: it hung)
}

// receiver is a webhook endpoint on 127.0.0.1 whose answer the test
// chooses per request, from the number of the attempt at that post: a
// status, or 0 to hang until the client gives up.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	hits   []hit
	answer atomic.Value // func(attempt int) int
}

func newReceiver(t *testing.T, answer func(n int) int) *receiver {
	r := &receiver{}
	r.answer.Store(answer)
	quit := make(chan struct{})
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		id := tweetID(body)
		r.mu.Lock()
		attempt := 1
		for _, h := range r.hits {
			if tweetID(h.body) == id {
				attempt++
			}
		}
		r.hits = append(r.hits, hit{body: body, header: req.Header.Clone()})
		i := len(r.hits) - 1
		r.mu.Unlock()
		status := r.answer.Load().(func(int) int)(attempt)
		r.mu.Lock()
		r.hits[i].status = status
		r.mu.Unlock()
		if status == 0 {
			select {
			case <-req.Context().Done():
			case <-quit:
			}
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(func() { close(quit); r.srv.Close() })
	return r
}

func (r *receiver) got() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// tweetID is the post a delivery carries ("" when the body is no delivery).
func tweetID(body []byte) string {
	var b struct {
		Data struct {
			TweetID string `json:"tweet_id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &b)
	return b.Data.TweetID
}

// byTweet returns the hits that carry tweet id.
func (r *receiver) byTweet(t *testing.T, id string) []hit {
	var out []hit
	for _, h := range r.got() {
		if tweetID(h.body) == "" {
			t.Errorf("delivery without a tweet_id: %s", h.body)
		}
		if tweetID(h.body) == id {
			out = append(out, h)
		}
	}
	return out
}

// wait returns the first hit for tweet id.
func (r *receiver) wait(t *testing.T, id string) hit {
	t.Helper()
	var hits []hit
	testkit.WaitFor(t, 20*time.Second, "a delivery of post "+id, func() (bool, string) {
		hits = r.byTweet(t, id)
		return len(hits) > 0, "none"
	})
	return hits[0]
}

// signed checks spec 1's signature: lowercase hex HMAC-SHA256 of the raw
// body keyed with the secret.
func signed(secret string, h hit) bool {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(h.body)
	return hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(h.header.Get("X-Signature")))
}
