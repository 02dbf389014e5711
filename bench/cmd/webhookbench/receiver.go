package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// receiver is the local webhook endpoint: it verifies each delivery's
// signature, drops duplicates by X-Delivery-Id and records when each
// delivery arrived.
type receiver struct {
	srv *http.Server
	url string

	mu      sync.Mutex
	secrets map[string]string // webhook id -> secret
	seen    map[string]bool   // delivery ids
	arrived []arrival
	badSig  int
	dups    int
	notify  chan struct{}
}

type arrival struct {
	tweetID string
	at      time.Time
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/hook", secrets: map[string]string{}, seen: map[string]bool{},
		notify: make(chan struct{}, 1)}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) close() { _ = r.srv.Close() }

func (r *receiver) addSecret(id int64, secret string) {
	r.mu.Lock()
	r.secrets[strconv.FormatInt(id, 10)] = secret
	r.mu.Unlock()
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	at := time.Now()
	if err != nil {
		w.WriteHeader(400)
		return
	}
	var b struct {
		Data struct {
			TweetID string `json:"tweet_id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &b)
	r.mu.Lock()
	secret := r.secrets[req.Header.Get("X-Webhook-Id")]
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	ok := hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(req.Header.Get("X-Signature")))
	id := req.Header.Get("X-Delivery-Id")
	switch {
	case !ok:
		r.badSig++
	case r.seen[id]:
		r.dups++
	default:
		r.seen[id] = true
		r.arrived = append(r.arrived, arrival{tweetID: b.Data.TweetID, at: at})
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	w.WriteHeader(204)
}

// reset forgets what arrived (between scenarios).
func (r *receiver) reset() {
	r.mu.Lock()
	r.seen, r.arrived, r.badSig, r.dups = map[string]bool{}, nil, 0, 0
	r.mu.Unlock()
}

// wait blocks until n deliveries arrived or the deadline passed; it
// returns what arrived.
func (r *receiver) wait(n int, deadline time.Time) []arrival {
	for {
		r.mu.Lock()
		got := len(r.arrived)
		r.mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			r.mu.Lock()
			defer r.mu.Unlock()
			return append([]arrival(nil), r.arrived...)
		}
		select {
		case <-r.notify:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (r *receiver) problems() (badSig, dups int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.badSig, r.dups
}
