// Package telegramfake is a fake Telegram Bot API server for alertd's own
// tests: it records every call, serves injected updates to getUpdates (long
// polling, offsets acknowledged as Telegram does), scripts error answers
// (429 with retry_after, 403, ...) and models forum topics, so that tests
// can delete one.
package telegramfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Token is a token of the Bot API's format that the fake accepts.
const Token = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi"

// Username is the fake bot's username.
const Username = "alertd_test_bot"

// Call is one recorded call.
type Call struct {
	Method string
	Params map[string]any
	At     time.Time
	// Answered is the HTTP status the fake answered with.
	Answered int
}

// Str returns a parameter as text ("" if absent).
func (c Call) Str(name string) string {
	switch v := c.Params[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatInt(int64(v), 10)
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// Int returns a numeric parameter (0 if absent).
func (c Call) Int(name string) int64 {
	n, _ := strconv.ParseInt(c.Str(name), 10, 64)
	return n
}

// Response is a scripted answer.
type Response struct {
	Status      int
	Description string
	RetryAfter  int
}

// Server is the fake.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change
	calls    []Call
	updates  []json.RawMessage // pending, by update_id
	nextUpd  int64
	acked    int64 // highest offset asked for
	scripts  map[string][]Response
	nextMsg  int64
	nextTop  int64
	topics   map[[2]int64]bool // (chat, thread) that exist
	closed   bool
	maxWait  time.Duration
	held     map[int64]chan struct{} // chats whose sends wait (Hold)
	holding  int                     // sends waiting now
	polls    int                     // getUpdates in progress
	maxPolls int
	Messages int64 // messages sent (sendMessage, sendPhoto, sendMediaGroup)
	// OnSend, if set before use, hears every successful send (outside the
	// fake's lock); with NoRecord sends are not kept in Calls (benchmarks).
	OnSend   func(c Call)
	NoRecord bool
}

// New starts a fake; Close it when done.
func New() *Server {
	s := &Server{changed: make(chan struct{}), nextUpd: 1, nextTop: 100, nextMsg: 1000, scripts: map[string][]Response{},
		topics: map[[2]int64]bool{}, held: map[int64]chan struct{}{}, maxWait: 2 * time.Second}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the base to give the engine (--telegram-api-url).
func (s *Server) URL() string { return s.srv.URL }

// Close stops the fake; long polls in progress end.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.notifyLocked()
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Script makes the next calls of method answer rs, in order.
func (s *Server) Script(method string, rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[method] = append(s.scripts[method], rs...)
}

// ClearScripts drops every scripted answer not yet given.
func (s *Server) ClearScripts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts = map[string][]Response{}
}

// DeleteTopic deletes a forum topic: sends to it answer 400.
func (s *Server) DeleteTopic(chat, thread int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.topics, [2]int64{chat, thread})
}

// Hold makes the sends to chat wait unanswered, as a Bot API that hangs,
// until Release. A caller that goes away meanwhile (a process killed) gets
// nothing: its call is recorded unanswered (Answered 0).
func (s *Server) Hold(chat int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[chat] == nil {
		s.held[chat] = make(chan struct{})
	}
}

// Release lets the held sends to chat, and the later ones, through.
func (s *Server) Release(chat int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch := s.held[chat]; ch != nil {
		close(ch)
		delete(s.held, chat)
	}
}

// Holding is how many sends wait in Hold now.
func (s *Server) Holding() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holding
}

// MaxPolls is the most getUpdates calls that were in progress at once
// (Telegram answers a second one 409: a bot must poll from one place).
func (s *Server) MaxPolls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxPolls
}

// Inject queues an update; update is the update without update_id (the
// fake numbers them). It returns the id.
func (s *Server) Inject(update map[string]any) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextUpd
	s.nextUpd++
	u := map[string]any{"update_id": id}
	for k, v := range update {
		u[k] = v
	}
	b, _ := json.Marshal(u)
	s.updates = append(s.updates, b)
	s.notifyLocked()
	return id
}

// Message is a message update from user in chat (private when chat ==
// user).
func Message(chat, user int64, text string) map[string]any {
	typ := "private"
	if chat < 0 {
		typ = "supergroup"
	}
	return map[string]any{"message": map[string]any{"message_id": 1, "date": time.Now().Unix(), "text": text,
		"chat": map[string]any{"id": chat, "type": typ}, "from": map[string]any{"id": user, "is_bot": false, "first_name": "T"}}}
}

// ForumMessage is a message update in a forum supergroup.
func ForumMessage(chat, user int64, text string) map[string]any {
	m := Message(chat, user, text)
	m["message"].(map[string]any)["chat"].(map[string]any)["is_forum"] = true
	return m
}

// Press is a callback-query update: user pressed a button with data under
// message msgID in chat.
func Press(chat, user, msgID int64, data string) map[string]any {
	return map[string]any{"callback_query": map[string]any{"id": "cb" + strconv.FormatInt(time.Now().UnixNano(), 36),
		"chat_instance": "ci", "data": data, "from": map[string]any{"id": user, "is_bot": false, "first_name": "T"},
		"message": map[string]any{"message_id": msgID, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"}}}}
}

// Calls returns the recorded calls of method ("" for all).
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Acked is the highest offset getUpdates was called with: every update
// below it is acknowledged.
func (s *Server) Acked() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acked
}

// Wait waits until cond holds over the recorded calls, or timeout; it
// returns the calls and whether cond held.
func (s *Server) Wait(timeout time.Duration, cond func(calls []Call) bool) ([]Call, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		calls := append([]Call(nil), s.calls...)
		ch := s.changed
		s.mu.Unlock()
		if cond(calls) {
			return calls, true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return calls, false
		}
	}
}

// Sent returns the sends (sendMessage, sendPhoto, sendMediaGroup) to chat
// that succeeded.
func Sent(calls []Call, chat int64) []Call {
	var out []Call
	for _, c := range calls {
		if (c.Method == "sendMessage" || c.Method == "sendPhoto" || c.Method == "sendMediaGroup") &&
			c.Int("chat_id") == chat && c.Answered == 200 {
			out = append(out, c)
		}
	}
	return out
}

// Text is a send's text or caption (of an album, the first photo's).
func Text(c Call) string {
	if t := c.Str("text"); t != "" {
		return t
	}
	if t := c.Str("caption"); t != "" {
		return t
	}
	if media, ok := c.Params["media"].([]any); ok && len(media) > 0 {
		if m, ok := media[0].(map[string]any); ok {
			if t, ok := m["caption"].(string); ok {
				return t
			}
		}
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+Token+"/")
	if !ok {
		writeErr(w, 401, "Unauthorized", 0)
		return
	}
	method := rest
	params := map[string]any{}
	body, _ := io.ReadAll(r.Body)
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") && len(body) > 0 {
		if err := json.Unmarshal(body, &params); err != nil {
			writeErr(w, 400, "Bad Request: can't parse JSON", 0)
			return
		}
	}
	if method == "getUpdates" {
		s.mu.Lock()
		s.polls++
		s.maxPolls = max(s.maxPolls, s.polls)
		s.mu.Unlock()
		s.getUpdates(w, r, params)
		s.mu.Lock()
		s.polls--
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	call := Call{Method: method, Params: params, At: time.Now()}
	if hold := s.held[call.Int("chat_id")]; hold != nil && method != "getMe" {
		s.holding++
		s.notifyLocked()
		s.mu.Unlock()
		select {
		case <-hold:
			s.mu.Lock()
			s.holding--
		case <-r.Context().Done():
			s.mu.Lock()
			s.holding--
			s.calls = append(s.calls, call) // Answered 0
			s.notifyLocked()
			s.mu.Unlock()
			return
		}
	}
	if rs := s.scripts[method]; len(rs) > 0 {
		s.scripts[method] = rs[1:]
		call.Answered = rs[0].Status
		s.calls = append(s.calls, call)
		s.notifyLocked()
		s.mu.Unlock()
		writeErr(w, rs[0].Status, rs[0].Description, rs[0].RetryAfter)
		return
	}
	chat := call.Int("chat_id")
	if th := call.Int("message_thread_id"); th != 0 && !s.topics[[2]int64{chat, th}] {
		call.Answered = 400
		s.calls = append(s.calls, call)
		s.notifyLocked()
		s.mu.Unlock()
		writeErr(w, 400, "Bad Request: message thread not found", 0)
		return
	}
	call.Answered = 200
	var result any = true
	switch method {
	case "getMe":
		result = map[string]any{"id": 123456, "is_bot": true, "first_name": "alertd", "username": Username}
	case "createForumTopic":
		s.nextTop++
		s.topics[[2]int64{chat, s.nextTop}] = true
		result = map[string]any{"message_thread_id": s.nextTop, "name": call.Str("name"), "icon_color": 7322096}
	case "sendMessage", "sendPhoto", "editMessageText":
		s.nextMsg++
		if method != "editMessageText" {
			s.Messages++
		}
		result = map[string]any{"message_id": s.nextMsg, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"}}
	case "sendMediaGroup":
		s.Messages++
		var ms []any
		media, _ := params["media"].([]any)
		for range media {
			s.nextMsg++
			ms = append(ms, map[string]any{"message_id": s.nextMsg, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"}})
		}
		result = ms
	}
	isSend := method == "sendMessage" || method == "sendPhoto" || method == "sendMediaGroup"
	if !(s.NoRecord && isSend) {
		s.calls = append(s.calls, call)
		s.notifyLocked()
	}
	s.mu.Unlock()
	if isSend && s.OnSend != nil {
		s.OnSend(call)
	}
	writeOK(w, result)
}

func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, params map[string]any) {
	offset, _ := params["offset"].(float64)
	timeout, _ := params["timeout"].(float64)
	wait := min(time.Duration(timeout)*time.Second, s.maxWait)
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			writeOK(w, []any{})
			return
		}
		if rs := s.scripts["getUpdates"]; len(rs) > 0 {
			s.scripts["getUpdates"] = rs[1:]
			s.mu.Unlock()
			writeErr(w, rs[0].Status, rs[0].Description, rs[0].RetryAfter)
			return
		}
		// Telegram forgets every update below the offset asked for.
		if off := int64(offset); off > s.acked {
			s.acked = off
			keep := s.updates[:0]
			for _, u := range s.updates {
				var h struct {
					ID int64 `json:"update_id"`
				}
				_ = json.Unmarshal(u, &h)
				if h.ID >= off {
					keep = append(keep, u)
				}
			}
			s.updates = keep
			s.notifyLocked()
		}
		if len(s.updates) > 0 {
			n := len(s.updates)
			if l, _ := params["limit"].(float64); l > 0 {
				n = min(n, int(l))
			}
			n = min(n, 100) // the Bot API's default and most
			out := append([]json.RawMessage(nil), s.updates[:n]...)
			s.mu.Unlock()
			writeOK(w, out)
			return
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			writeOK(w, []any{})
			return
		case <-r.Context().Done():
			return
		}
	}
}

func writeOK(w http.ResponseWriter, result any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

func writeErr(w http.ResponseWriter, status int, desc string, retryAfter int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	m := map[string]any{"ok": false, "error_code": status, "description": desc}
	if retryAfter > 0 {
		m["parameters"] = map[string]any{"retry_after": retryAfter}
	}
	_ = json.NewEncoder(w).Encode(m)
}

// String summarises the calls (for failure messages).
func String(calls []Call) string {
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "%s %d %v\n", c.Method, c.Answered, c.Params)
	}
	return b.String()
}
