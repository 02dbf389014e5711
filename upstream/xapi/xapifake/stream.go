package xapifake

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// serveStream is GET /2/tweets/search/stream: one connection at a time (a
// second gets the documented TooManyConnections problem), a keep-alive
// "\r\n" every KeepAlive, posts as they are published.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	if !s.begin(w, r, EpStream) {
		return
	}
	st := &stream{lines: make(chan []byte, 4096), drop: make(chan struct{})}
	s.mu.Lock()
	if len(s.streams) > 0 {
		for i := len(s.calls) - 1; i >= 0; i-- { // this request's log entry
			if s.calls[i].Endpoint == EpStream {
				s.calls[i].Status = http.StatusTooManyRequests
				break
			}
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"title": "ConnectionException",
			"detail": "This stream is currently at the maximum allowed connection limit.", "connection_issue": "TooManyConnections",
			"type": "https://api.twitter.com/2/problems/streaming-connection"})
		return
	}
	s.streams[st] = struct{}{}
	s.streamsChangedLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, st)
		s.streamsChangedLocked()
		s.mu.Unlock()
	}()
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if fl != nil {
		fl.Flush()
	}
	var tick <-chan time.Time
	if s.opts.KeepAlive > 0 {
		t := time.NewTicker(s.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-st.drop:
			return
		case <-tick:
			if _, err := w.Write([]byte("\r\n")); err != nil {
				return
			}
		case l := <-st.lines:
			if _, err := w.Write(append(l, '\r', '\n')); err != nil {
				return
			}
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// Drop closes every open stream (a server restart, a network cut).
func (s *Server) Drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.streams {
		st.once.Do(func() { close(st.drop) })
	}
}

// PushRaw writes line (without its newline) to every open stream, as is:
// a keep-alive, a problem, garbage. It reports how many streams took it.
func (s *Server) PushRaw(line []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for st := range s.streams {
		select {
		case st.lines <- slices.Clone(line):
			n++
		default: // a client too slow: the API would disconnect it
		}
	}
	return n
}

// Publish stores p and, when one of the rules matches its author (from:),
// streams it with the includes the connector's expansions ask for: the
// author, referenced posts and their authors, the replied-to user, mentioned
// users and media. It returns the line and whether a rule matched.
func (s *Server) Publish(p Post) ([]byte, bool) {
	s.mu.Lock()
	cp := p
	s.posts[p.ID] = &cp
	line := s.lineLocked(&cp)
	s.mu.Unlock()
	if len(line.MatchingRules) == 0 {
		return nil, false
	}
	b, _ := json.Marshal(line)
	s.PushRaw(b)
	return b, true
}

// Line builds the stream line of p without publishing it.
func (s *Server) Line(p Post) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lineLocked(&p)
	b, _ := json.Marshal(l)
	return b
}

func (s *Server) lineLocked(p *Post) StreamLine {
	inc := &Includes{}
	users := map[string]bool{}
	addUser := func(id string) {
		if u := s.users[id]; u != nil && !users[id] {
			users[id] = true
			inc.Users = append(inc.Users, *u)
		}
	}
	addMedia := func(a *Attachments) {
		if a == nil {
			return
		}
		for _, k := range a.MediaKeys {
			if m, ok := s.media[k]; ok && !slices.ContainsFunc(inc.Media, func(x Media) bool { return x.MediaKey == k }) {
				inc.Media = append(inc.Media, m)
			}
		}
	}
	addUser(p.AuthorID)
	addUser(p.InReplyToUserID)
	addMedia(p.Attachments)
	if p.Entities != nil {
		for _, m := range p.Entities.Mentions {
			addUser(s.byName[strings.ToLower(m.Username)])
		}
	}
	for _, r := range p.ReferencedTweets {
		if rp := s.posts[r.ID]; rp != nil {
			inc.Tweets = append(inc.Tweets, *rp)
			addUser(rp.AuthorID)
			addMedia(rp.Attachments)
		}
	}
	line := StreamLine{Data: p, Includes: inc}
	if u := s.users[p.AuthorID]; u != nil {
		term := "from:" + strings.ToLower(u.Username)
		for _, r := range s.rules {
			if slices.Contains(strings.Split(r.Value, " OR "), term) {
				line.MatchingRules = append(line.MatchingRules, MatchingRule{ID: r.ID, Tag: r.Tag})
			}
		}
	}
	return line
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
