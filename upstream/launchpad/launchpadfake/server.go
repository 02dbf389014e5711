// Package launchpadfake is a local Solana JSON-RPC endpoint for the
// launchpad connector's tests, `alertd connector-demo launchpad` and the
// bench. One URL serves both halves, as RPC providers do: WebSocket
// (logsSubscribe with mentions, logsUnsubscribe, logsNotification) and HTTP
// (getSignaturesForAddress, getTransaction), in the shapes of
// solana.com/docs/rpc. Every transaction sent is kept in a ledger so a
// backfill can read it back.
//
// Server state (sockets, subscriptions, ledger) is guarded by Server.mu,
// never held while writing to a socket; each socket has its own write lock
// (taken before Server.mu when both are held).
package launchpadfake

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"
	"github.com/gorilla/websocket"
)

// Tx is one transaction of the ledger.
type Tx struct {
	Signature string
	Slot      uint64
	BlockTime int64
	Failed    bool
	Logs      []string
}

type sock struct {
	conn *websocket.Conn
	wmu  sync.Mutex
	subs map[uint64]string // subscription id -> mentioned address
}

func (s *sock) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.conn.WriteMessage(websocket.TextMessage, b)
}

// Server is the fake RPC.
type Server struct {
	ts       *httptest.Server
	upgrader websocket.Upgrader

	mu         sync.Mutex
	socks      map[*sock]struct{}
	nextSub    uint64
	subscribes int
	changed    chan struct{} // closed and replaced when subscriptions change
	ledger     []Tx          // oldest first
	slot       uint64
	paused     bool // refuse new sockets (a provider outage)
}

// New returns a server; Start serves it.
func New() *Server {
	return &Server{socks: map[*sock]struct{}{}, nextSub: 24040, changed: make(chan struct{}), slot: 300_000_000}
}

// Start serves on a loopback port and returns the ws:// URL (the same
// address with http:// is the HTTP half).
func (s *Server) Start() string {
	s.ts = httptest.NewServer(s)
	return "ws" + strings.TrimPrefix(s.ts.URL, "http")
}

// Close drops every socket and stops the listener.
func (s *Server) Close() {
	s.Drop()
	if s.ts != nil {
		s.ts.Close()
	}
}

// ServeHTTP upgrades WebSocket requests and answers JSON-RPC posts.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		s.mu.Lock()
		paused := s.paused
		s.mu.Unlock()
		if paused {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		s.serveSocket(w, r)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "Used HTTP Method is not allowed. POST or OPTIONS is required", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req request
	w.Header().Set("Content-Type", "application/json")
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, response{JSONRPC: "2.0", Error: &rpcErr{Code: -32700, Message: "Parse error"}})
		return
	}
	res, rerr := s.method(req)
	writeJSON(w, response{JSONRPC: "2.0", ID: req.ID, Result: res, Error: rerr})
}

type request struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcErr         `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	_, _ = w.Write(b)
}

var invalidParams = &rpcErr{Code: -32602, Message: "Invalid params"}

// method answers the HTTP methods the connector's backfill uses.
func (s *Server) method(req request) (any, *rpcErr) {
	switch req.Method {
	case "getSignaturesForAddress":
		var addr string
		var opts struct {
			Until string `json:"until"`
			Limit int    `json:"limit"`
		}
		if len(req.Params) < 1 || json.Unmarshal(req.Params[0], &addr) != nil {
			return nil, invalidParams
		}
		if len(req.Params) > 1 {
			_ = json.Unmarshal(req.Params[1], &opts)
		}
		if opts.Limit <= 0 || opts.Limit > 1000 {
			opts.Limit = 1000
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		out := []map[string]any{}
		for i := len(s.ledger) - 1; i >= 0 && len(out) < opts.Limit; i-- {
			tx := s.ledger[i]
			if tx.Signature == opts.Until {
				break
			}
			var txErr any
			if tx.Failed {
				txErr = map[string]any{"InstructionError": []any{2, map[string]any{"Custom": 6002}}}
			}
			out = append(out, map[string]any{"signature": tx.Signature, "slot": tx.Slot, "err": txErr, "memo": nil,
				"blockTime": tx.BlockTime, "confirmationStatus": "confirmed"})
		}
		return out, nil
	case "getTransaction":
		var sig string
		if len(req.Params) < 1 || json.Unmarshal(req.Params[0], &sig) != nil {
			return nil, invalidParams
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		i := slices.IndexFunc(s.ledger, func(t Tx) bool { return t.Signature == sig })
		if i < 0 {
			return json.RawMessage("null"), nil
		}
		tx := s.ledger[i]
		var txErr any
		if tx.Failed {
			txErr = map[string]any{"InstructionError": []any{2, map[string]any{"Custom": 6002}}}
		}
		return map[string]any{"slot": tx.Slot, "blockTime": tx.BlockTime, "version": 0,
			"meta":        map[string]any{"err": txErr, "fee": 5000, "logMessages": tx.Logs, "preBalances": []int{}, "postBalances": []int{}},
			"transaction": map[string]any{"signatures": []string{tx.Signature}}}, nil
	}
	return nil, &rpcErr{Code: -32601, Message: "Method not found"}
}

func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	so := &sock{conn: conn, subs: map[uint64]string{}}
	s.mu.Lock()
	s.socks[so] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.socks, so)
		s.changedLocked()
		s.mu.Unlock()
		conn.Close()
	}()
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			return
		}
		var req request
		if json.Unmarshal(msg, &req) != nil {
			_ = so.write(response{JSONRPC: "2.0", Error: &rpcErr{Code: -32700, Message: "Parse error"}, ID: json.RawMessage("null")})
			continue
		}
		switch req.Method {
		case "logsSubscribe":
			var filter struct {
				Mentions []string `json:"mentions"`
			}
			if len(req.Params) < 1 || json.Unmarshal(req.Params[0], &filter) != nil || len(filter.Mentions) != 1 {
				_ = so.write(response{JSONRPC: "2.0", Error: invalidParams, ID: req.ID})
				continue
			}
			// The answer goes out before any notification of the new
			// subscription can: the socket's write lock is held across both.
			so.wmu.Lock()
			s.mu.Lock()
			s.nextSub++
			id := s.nextSub
			so.subs[id] = filter.Mentions[0]
			s.subscribes++
			s.changedLocked()
			s.mu.Unlock()
			b, _ := json.Marshal(response{JSONRPC: "2.0", Result: id, ID: req.ID})
			_ = so.conn.WriteMessage(websocket.TextMessage, b)
			so.wmu.Unlock()
		case "logsUnsubscribe":
			var id uint64
			ok := len(req.Params) == 1 && json.Unmarshal(req.Params[0], &id) == nil
			s.mu.Lock()
			_, had := so.subs[id]
			delete(so.subs, id)
			s.changedLocked()
			s.mu.Unlock()
			_ = so.write(response{JSONRPC: "2.0", Result: ok && had, ID: req.ID})
		default:
			_ = so.write(response{JSONRPC: "2.0", Error: &rpcErr{Code: -32601, Message: "Method not found"}, ID: req.ID})
		}
	}
}

func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Record adds a transaction to the ledger without notifying anyone (it
// happened while the connector was away).
func (s *Server) Record(sig string, logs []string) Tx {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slot += 3
	tx := Tx{Signature: sig, Slot: s.slot, BlockTime: time.Now().Unix(), Logs: logs}
	s.ledger = append(s.ledger, tx)
	return tx
}

// Send records a transaction and notifies every subscription that
// mentions an address its logs name (a program's id appears in its invoke
// lines). failed marks a transaction that errored. It returns how many
// subscriptions were notified.
func (s *Server) Send(sig string, logs []string, failed bool) int {
	tx := s.Record(sig, logs)
	var txErr any
	if failed {
		txErr = map[string]any{"InstructionError": []any{2, map[string]any{"Custom": 6002}}}
		s.mu.Lock()
		s.ledger[len(s.ledger)-1].Failed = true
		s.mu.Unlock()
	}
	type target struct {
		so *sock
		id uint64
	}
	var to []target
	s.mu.Lock()
	for so := range s.socks {
		for id, addr := range so.subs {
			if slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, addr) }) {
				to = append(to, target{so, id})
			}
		}
	}
	s.mu.Unlock()
	n := 0
	for _, t := range to {
		if t.so.write(notification(sig, txErr, logs, tx.Slot, t.id)) == nil {
			n++
		}
	}
	return n
}

func notification(sig string, txErr any, logs []string, slot, sub uint64) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "method": "logsNotification", "params": map[string]any{
		"result": map[string]any{"context": map[string]any{"slot": slot},
			"value": map[string]any{"signature": sig, "err": txErr, "logs": logs}},
		"subscription": sub}}
}

// NotificationJSON is the logsNotification message of a successful
// transaction on subscription sub, as Send writes it.
func NotificationJSON(sig string, logs []string, sub uint64) []byte {
	b, _ := json.Marshal(notification(sig, nil, logs, 300_000_003, sub))
	return b
}

// SendRaw writes msg as is to every socket (garbage, unknown messages).
func (s *Server) SendRaw(msg []byte) {
	s.mu.Lock()
	socks := make([]*sock, 0, len(s.socks))
	for so := range s.socks {
		socks = append(socks, so)
	}
	s.mu.Unlock()
	for _, so := range socks {
		so.wmu.Lock()
		_ = so.conn.WriteMessage(websocket.TextMessage, msg)
		so.wmu.Unlock()
	}
}

// Drop closes every socket, as a provider restart would.
func (s *Server) Drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for so := range s.socks {
		so.conn.Close()
	}
}

// Pause refuses new sockets with 503 until Resume; open ones stay.
func (s *Server) Pause() { s.setPaused(true) }

// Resume accepts sockets again.
func (s *Server) Resume() { s.setPaused(false) }

func (s *Server) setPaused(p bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = p
}

// Subscribes is how many logsSubscribe requests were taken in all.
func (s *Server) Subscribes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscribes
}

// WaitSubscribed blocks until n subscriptions are live or ctx ends.
func (s *Server) WaitSubscribed(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		live := 0
		for so := range s.socks {
			live += len(so.subs)
		}
		ch := s.changed
		s.mu.Unlock()
		if live == n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
