package launchpad

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
	json "github.com/goccy/go-json"
	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"
)

// Config configures a Connector; zero fields take the defaults.
type Config struct {
	WSURL   string // a Solana JSON-RPC WebSocket endpoint (--solana-rpc-ws-url)
	Program string // DefaultProgram when empty (--launchpad-program)
	// HTTPURL is the same provider's JSON-RPC over HTTP, for the backfill;
	// by default WSURL with ws:// or wss:// turned into http:// or https://,
	// which is how RPC providers lay their endpoints out.
	HTTPURL string
	// Backfill reads what the program logged while the socket was down
	// (getSignaturesForAddress, then getTransaction) after a reconnect.
	Backfill bool
	// Commitment of the subscription and the backfill ("confirmed").
	Commitment string
	// StallAfter closes a socket that received nothing, not even a pong,
	// for this long (60 s); a ping goes out every third of it.
	StallAfter time.Duration

	Dialer *websocket.Dialer
	HTTP   *http.Client
	Clock  clockwork.Clock
	Logger *slog.Logger
}

// Connector is the launchpad source: an upstream.Source that subscribes to
// the program's logs and turns its CreateEvent and CompleteEvent into
// `launchpad` observations.
type Connector struct {
	cfg      Config
	stats    Stats
	seen     *recent
	launches *launches
	last     string // the newest signature handed over: where a backfill stops
}

// New returns a connector; Run starts it.
func New(cfg Config) (*Connector, error) {
	if cfg.WSURL == "" {
		return nil, errors.New("launchpad: a WebSocket URL is required")
	}
	if cfg.Program == "" {
		cfg.Program = DefaultProgram
	}
	if cfg.HTTPURL == "" {
		cfg.HTTPURL = httpURL(cfg.WSURL)
	}
	if cfg.Commitment == "" {
		cfg.Commitment = "confirmed"
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = time.Minute
	}
	if cfg.Dialer == nil {
		cfg.Dialer = &websocket.Dialer{HandshakeTimeout: 15 * time.Second}
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Clock == nil {
		cfg.Clock = clockwork.NewRealClock()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Logger = cfg.Logger.With("connector", "launchpad")
	return &Connector{cfg: cfg, seen: newRecent(4096), launches: newLaunches(20_000)}, nil
}

func httpURL(ws string) string {
	switch {
	case strings.HasPrefix(ws, "wss://"):
		return "https://" + ws[len("wss://"):]
	case strings.HasPrefix(ws, "ws://"):
		return "http://" + ws[len("ws://"):]
	}
	return ws
}

// Stats returns the live counters.
func (c *Connector) Stats() Snapshot { return c.stats.Snapshot() }

// Run subscribes, and subscribes again after every disconnect, until ctx
// ends; it then returns nil. It is the sink's only caller. After a
// connection that had subscribed drops, the next attempt is immediate; then
// waits double from 1 s up to 30 s.
func (c *Connector) Run(ctx context.Context, sink upstream.Sink) error {
	log := c.cfg.Logger
	log.Info("launchpad connector starting", "program", c.cfg.Program, "backfill", c.cfg.Backfill)
	wait := time.Duration(0)
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			c.stats.Reconnects.Add(1)
		}
		subscribed, err := c.session(ctx, sink, attempt > 0)
		if ctx.Err() != nil {
			log.Info("launchpad connector stopped")
			return nil
		}
		switch {
		case subscribed:
			wait = 0
		case wait == 0:
			wait = time.Second
		default:
			wait = min(2*wait, 30*time.Second)
		}
		log.Warn("launchpad socket closed", "err", err, "retry_in", wait.String())
		if wait > 0 {
			t := c.cfg.Clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				log.Info("launchpad connector stopped")
				return nil
			case <-t.Chan():
			}
		}
	}
}

// session is one connection: subscribe, then read notifications until the
// socket fails; after a reconnect a backfill of the gap runs beside the
// live reading. subscribed says the provider took the subscription. The
// session's goroutines (reader, pinger, backfill) end before it returns;
// only this one calls the sink.
func (c *Connector) session(ctx context.Context, sink upstream.Sink, reconnect bool) (subscribed bool, err error) {
	conn, resp, err := c.cfg.Dialer.DialContext(ctx, c.cfg.WSURL, nil)
	if err != nil {
		if resp != nil {
			err = fmt.Errorf("%w (HTTP %d)", err, resp.StatusCode)
		}
		return false, err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer conn.Close()
	stop := context.AfterFunc(sctx, func() { conn.Close() }) // unblocks the read
	defer stop()
	wg.Add(1)
	go func() { defer wg.Done(); c.ping(conn, sctx.Done()) }()

	stall := c.cfg.StallAfter
	_ = conn.SetReadDeadline(time.Now().Add(stall)) // network deadlines are wall-clock
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(stall)) })
	sub := rpcRequest{JSONRPC: "2.0", ID: 1, Method: "logsSubscribe",
		Params: []any{map[string]any{"mentions": []string{c.cfg.Program}}, map[string]any{"commitment": c.cfg.Commitment}}}
	if err := conn.WriteJSON(sub); err != nil {
		return false, err
	}
	msgs := make(chan readResult, 256)
	wg.Add(1)
	go func() { defer wg.Done(); read(sctx, conn, stall, msgs) }()
	var backfilled <-chan txLogs
	for {
		var r readResult
		select {
		case <-ctx.Done():
			return subscribed, ctx.Err()
		case tx, ok := <-backfilled:
			if !ok {
				backfilled = nil
				continue
			}
			if !c.deliver(ctx, sink, tx.sig, tx.logs) {
				return subscribed, ctx.Err()
			}
			continue
		case r = <-msgs:
		}
		if r.err != nil {
			return subscribed, r.err
		}
		var m rpcMessage
		if err := json.Unmarshal(r.msg, &m); err != nil {
			c.stats.Malformed.Add(1)
			c.cfg.Logger.Warn("launchpad: malformed message skipped", "err", err, "bytes", len(r.msg))
			continue
		}
		switch {
		case m.ID != nil && *m.ID == 1 && !subscribed:
			if m.Error != nil {
				return false, fmt.Errorf("logsSubscribe: %w", m.Error)
			}
			subscribed = true
			c.cfg.Logger.Info("launchpad subscribed", "subscription", string(m.Result))
			if reconnect && c.cfg.Backfill && c.last != "" {
				ch := make(chan txLogs, 64)
				backfilled = ch
				until := c.last
				wg.Add(1)
				go func() { defer wg.Done(); defer close(ch); c.backfill(sctx, until, ch) }()
			}
		case m.Method == "logsNotification" && m.Params != nil:
			c.stats.Notifications.Add(1)
			v := &m.Params.Result.Value
			c.last = v.Signature // where the next backfill stops
			if failed(v.Err) {
				c.stats.Skipped.Add(1) // a failed transaction launched nothing
				continue
			}
			if !c.deliver(ctx, sink, v.Signature, v.Logs) {
				return subscribed, ctx.Err()
			}
		}
	}
}

// readResult is one socket message, or how reading ended.
type readResult struct {
	msg []byte
	err error
}

// read passes the socket's messages on, in order, then the error that ended
// them.
func read(ctx context.Context, conn *websocket.Conn, stall time.Duration, out chan<- readResult) {
	for {
		_, msg, err := conn.ReadMessage()
		if err == nil {
			_ = conn.SetReadDeadline(time.Now().Add(stall))
		}
		select {
		case out <- readResult{msg, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// ping keeps the socket (and the provider's idle timer) alive. Like the
// read deadline it runs on wall-clock time: it is about the network.
func (c *Connector) ping(conn *websocket.Conn, done <-chan struct{}) {
	t := time.NewTicker(c.cfg.StallAfter / 3)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second)); err != nil {
				return
			}
		}
	}
}

// deliver decodes the program's events of one transaction and hands them
// to the sink. False when ctx ended first.
func (c *Connector) deliver(ctx context.Context, sink upstream.Sink, sig string, logs []string) bool {
	if !c.seen.add(sig) {
		return true
	}
	evs, skipped, malformed := DecodeLogs(c.cfg.Program, logs)
	c.stats.Skipped.Add(int64(skipped))
	if malformed > 0 {
		c.stats.Malformed.Add(int64(malformed))
		c.cfg.Logger.Warn("launchpad: malformed event data skipped", "signature", sig, "lines", malformed)
	}
	var lines [][]byte
	var events []Event
	for _, ev := range evs {
		c.nameToken(&ev)
		line, err := Observation(ev, sig)
		if err != nil {
			c.stats.Malformed.Add(1)
			continue
		}
		lines = append(lines, line)
		events = append(events, ev)
	}
	if len(lines) == 0 {
		return true
	}
	err := upstream.Deliver(ctx, sink, lines, c.cfg.Clock, func(err error, wait time.Duration) {
		c.stats.SinkErrors.Add(1)
		c.cfg.Logger.Warn("ingest busy; retrying", "retry_in", wait.String(), "err", err)
	})
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		c.stats.SinkErrors.Add(1)
		c.cfg.Logger.Error("ingest refused launchpad events; dropped", "signature", sig, "err", err)
		return true
	}
	now := c.cfg.Clock.Now().UnixMilli()
	for _, ev := range events {
		if ev.Type == protocol.LaunchGraduated {
			c.stats.Graduations.Add(1)
		} else {
			c.stats.Launches.Add(1)
		}
		if ev.Timestamp > 0 {
			c.stats.lag(now - ev.Timestamp*1000)
		}
	}
	return true
}

// nameToken remembers a launch's token, and names a graduating one from
// what its launch said (a CompleteEvent carries only addresses).
func (c *Connector) nameToken(ev *Event) {
	if ev.Type == protocol.LaunchTokenLaunched {
		c.launches.put(ev.Mint, tokenInfo{name: ev.Name, symbol: ev.Symbol, uri: ev.URI, creator: ev.Creator})
		return
	}
	if t, ok := c.launches.get(ev.Mint); ok {
		ev.Name, ev.Symbol, ev.URI, ev.Creator = t.name, t.symbol, t.uri, t.creator
	}
}
