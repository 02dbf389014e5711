package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// receiver is the local webhook endpoint: it verifies each delivery's
// signature, drops duplicates by X-Delivery-Id and records when each
// delivery arrived. It runs on the same cores as the server under test, so
// it is a fasthttp server that allocates little per request.
type receiver struct {
	srv *fasthttp.Server
	ln  net.Listener
	url string

	mu      sync.Mutex
	secrets map[string][]byte // webhook id -> secret
	seen    map[string]bool   // delivery ids
	arrived []arrival
	badSig  int
	dups    int
	notify  chan struct{}
}

type arrival struct {
	hook    string // X-Webhook-Id
	tweetID string
	at      time.Time
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{ln: ln, url: "http://" + ln.Addr().String() + "/hook", secrets: map[string][]byte{}, seen: map[string]bool{},
		notify: make(chan struct{}, 1)}
	r.srv = &fasthttp.Server{Handler: r.serve, ReadTimeout: 10 * time.Second, Concurrency: 4096}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) close() { _ = r.srv.Shutdown() }

func (r *receiver) addSecret(id int64, secret string) {
	r.mu.Lock()
	r.secrets[strconv.FormatInt(id, 10)] = []byte(secret)
	r.mu.Unlock()
}

func (r *receiver) serve(c *fasthttp.RequestCtx) {
	at := time.Now()
	body := c.PostBody()
	hook := string(c.Request.Header.Peek("X-Webhook-Id"))
	tweetID := tweetID(body)
	var sum [sha256.Size]byte
	var hexSum [2 * sha256.Size]byte
	r.mu.Lock()
	secret := r.secrets[hook]
	r.mu.Unlock()
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	hex.Encode(hexSum[:], m.Sum(sum[:0]))
	ok := hmac.Equal(hexSum[:], c.Request.Header.Peek("X-Signature"))
	id := string(c.Request.Header.Peek("X-Delivery-Id"))
	r.mu.Lock()
	switch {
	case !ok:
		r.badSig++
	case r.seen[id]:
		r.dups++
	default:
		r.seen[id] = true
		r.arrived = append(r.arrived, arrival{hook: hook, tweetID: tweetID, at: at})
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	c.SetStatusCode(fasthttp.StatusNoContent)
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

// blackhole accepts TCP connections and never answers: the endpoint a
// fairness scenario adds. It reads nothing and holds every connection until
// closed.
type blackhole struct {
	ln    net.Listener
	url   string
	mu    sync.Mutex
	conns []net.Conn
	done  chan struct{}
}

func newBlackhole() (*blackhole, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &blackhole{ln: ln, url: "http://" + ln.Addr().String() + "/hook", done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
		}
	}()
	return b, nil
}

// accepted is the number of connections taken so far.
func (b *blackhole) accepted() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.conns)
}

func (b *blackhole) close() {
	_ = b.ln.Close()
	<-b.done
	b.mu.Lock()
	for _, c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
}

// tweetID is the body's first "tweet_id" string member (data.tweet_id of a
// Tweet Alerts delivery), found without decoding the body.
func tweetID(body []byte) string {
	const key = `"tweet_id":"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return ""
	}
	rest := body[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}
