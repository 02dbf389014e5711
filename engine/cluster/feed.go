package cluster

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ChangesChannel is the PostgreSQL channel on which nodes announce changes
// of their registries. A payload is "<node> <registry>[ <account>...]": the
// announcing node's id, the registry's name (RegAccounts, RegTargets, ...)
// and the accounts whose entries changed; none means all of them.
const ChangesChannel = "alertd_changes"

// Registry and event names of the feed.
const (
	// RegAccounts are the keys and subscriptions (account.Registry).
	RegAccounts = "accounts"
	// RegTargets are the B2B target lists (targets.Registry).
	RegTargets = "targets"
	// RegTweetAlerts are Tweet Alerts' tracked lists, prefs, settings and
	// webhooks (tweetalerts.Registry).
	RegTweetAlerts = "tweetalerts"
	// EventFailedLogin is a failed login (session.Blocker.Shared): the
	// address as counted, then the key's SHA-256 in hex or "-".
	EventFailedLogin = "failedlogin"
)

// maxPayload keeps a NOTIFY under PostgreSQL's 8,000-byte limit; more
// accounts go in several.
const maxPayload = 7000

// ReloadFunc reads the named accounts' entries of one registry from the
// store again (another node changed them); nil accounts means every entry.
// It must be safe to call again after a failure.
type ReloadFunc func(ctx context.Context, accounts []string) error

// Feed carries registry changes between nodes through PostgreSQL
// LISTEN/NOTIFY: Changed announces this node's (NOTIFY, after the change
// is in the store), and a change announced by another node reloads the
// accounts it names from the store here, within a round trip of the
// database and a read. Once its LISTEN holds, and again after a lost
// connection, it reloads every registry in full: announcements may have
// gone by since the registries were loaded, or while it was away.
//
// It owns three goroutines (listen, announce, reload), each on a
// connection of its own or none, stopped by Stop. mu guards the two
// pending sets; the goroutines are woken through channels.
type Feed struct {
	url     string
	self    string
	reloads map[string]ReloadFunc // fixed before Start
	log     *slog.Logger
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	events map[string]func(node string, items []string) // fixed before Start

	mu        sync.Mutex
	out       pending             // this node's changes, to announce
	in        pending             // other nodes' changes, to reload
	outEvents map[string][]string // this node's events, to announce
	nEvents   int                 // items in outEvents

	outKick   chan struct{} // cap 1: out has something
	inKick    chan struct{} // cap 1: in has something
	listening chan struct{} // closed once LISTEN first holds (tests wait for it)
}

// pending are accounts by registry; an account set of nil means all.
type pending map[string]map[string]struct{}

// add notes accounts of reg (none: all of them).
func (p pending) add(reg string, accounts ...string) {
	set, seen := p[reg]
	if seen && set == nil {
		return // all of it already
	}
	if len(accounts) == 0 {
		p[reg] = nil
		return
	}
	if set == nil {
		set = map[string]struct{}{}
		p[reg] = set
	}
	for _, a := range accounts {
		set[a] = struct{}{}
	}
}

// NewFeed returns a feed over the database at url; self tells this node's
// announcements apart. Register the registries, then Start.
func NewFeed(url, self string, log *slog.Logger) *Feed {
	return &Feed{url: url, self: self, reloads: map[string]ReloadFunc{}, events: map[string]func(string, []string){}, log: log,
		out: pending{}, in: pending{}, outEvents: map[string][]string{}, outKick: make(chan struct{}, 1), inKick: make(chan struct{}, 1),
		listening: make(chan struct{})}
}

// Register names a registry and how to reload it; before Start.
func (f *Feed) Register(reg string, reload ReloadFunc) { f.reloads[reg] = reload }

// maxEvents bounds the events waiting to be announced; more are dropped
// (a node that cannot reach the database sees them alone).
const maxEvents = 10_000

// HandleEvents names a kind of event and what hears the other nodes'
// (the node's id and the items, which have no spaces); before Start. Unlike registry changes, events are
// not coalesced: each item published once is heard once by every other
// node that listens then, in order, on the listening goroutine (h must not
// block); those published while a node's LISTEN is away are lost to it.
func (f *Feed) HandleEvents(kind string, h func(node string, items []string)) { f.events[kind] = h }

// Publish announces an event of kind to the other nodes; it never blocks.
func (f *Feed) Publish(kind, item string) {
	f.mu.Lock()
	if f.nEvents < maxEvents {
		f.outEvents[kind] = append(f.outEvents[kind], item)
		f.nEvents++
	}
	f.mu.Unlock()
	signal(f.outKick)
}

// Start listens on ChangesChannel.
func (f *Feed) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.wg.Add(3)
	go f.listen(ctx)
	go f.announce(ctx)
	go f.reload(ctx)
}

// Changed announces that this node changed (and stored) the entries of
// accounts in registry reg; none means all. It never blocks: announcements
// are coalesced until the announcing goroutine takes them.
func (f *Feed) Changed(reg string, accounts ...string) {
	f.mu.Lock()
	f.out.add(reg, accounts...)
	f.mu.Unlock()
	signal(f.outKick)
}

// Stop ends the goroutines and closes the connections.
func (f *Feed) Stop() {
	if f.cancel != nil {
		f.cancel()
	}
	f.wg.Wait()
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default: // one pending wake-up is enough: the sets hold the rest
	}
}

// retryEvery paces reconnections to the database and failed reloads.
const retryEvery = time.Second

// heard notes another node's announcement for reload.
func (f *Feed) heard(payload string) {
	fields := strings.Fields(payload)
	if len(fields) < 2 || fields[0] == f.self {
		return
	}
	if h := f.events[fields[1]]; h != nil {
		h(fields[0], fields[2:])
		return
	}
	if _, ok := f.reloads[fields[1]]; !ok {
		return // a registry this node does not keep
	}
	f.mu.Lock()
	f.in.add(fields[1], fields[2:]...)
	f.mu.Unlock()
	signal(f.inKick)
}

// reloadAll asks for every registry in full.
func (f *Feed) reloadAll() {
	f.mu.Lock()
	for reg := range f.reloads {
		f.in.add(reg)
	}
	f.mu.Unlock()
	signal(f.inKick)
}

// listen holds a connection in LISTEN and notes every other node's
// announcement.
func (f *Feed) listen(ctx context.Context) {
	defer f.wg.Done()
	listened := false
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, f.url)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+ChangesChannel)
		}
		if err == nil {
			// Announcements may have gone by before (since the registries
			// were loaded) or while away.
			f.reloadAll()
			if !listened {
				listened = true
				close(f.listening)
			}
			for err == nil {
				var n *pgconn.Notification
				if n, err = conn.WaitForNotification(ctx); err == nil {
					f.heard(n.Payload)
				}
			}
		}
		if conn != nil {
			conn.Close(context.Background())
		}
		if ctx.Err() == nil {
			f.log.Warn("cluster: change feed lost its database connection; retrying", "err", err)
			sleep(ctx, retryEvery)
		}
	}
}

// payloads are the NOTIFY payloads announcing p, sorted, then events.
func (f *Feed) payloads(p pending, events map[string][]string) []string {
	var out []string
	for _, reg := range slices.Sorted(maps.Keys(p)) {
		if set := p[reg]; set == nil {
			out = append(out, f.self+" "+reg)
		} else {
			out = f.chunk(out, reg, slices.Sorted(maps.Keys(set)))
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(events)) {
		out = f.chunk(out, kind, events[kind])
	}
	return out
}

// chunk appends the payloads carrying items of name, as few as fit.
func (f *Feed) chunk(out []string, name string, items []string) []string {
	head := f.self + " " + name
	b := strings.Builder{}
	b.WriteString(head)
	for _, a := range items {
		if b.Len()+1+len(a) > maxPayload && b.Len() > len(head) {
			out = append(out, b.String())
			b.Reset()
			b.WriteString(head)
		}
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return append(out, b.String())
}

// announce sends NOTIFY for this node's changes, on a connection of its own
// (the listening one waits).
func (f *Feed) announce(ctx context.Context) {
	defer f.wg.Done()
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.outKick:
		}
		f.mu.Lock()
		p, events := f.out, f.outEvents
		f.out, f.outEvents, f.nEvents = pending{}, map[string][]string{}, 0
		f.mu.Unlock()
		for _, payload := range f.payloads(p, events) {
			for ctx.Err() == nil {
				var err error
				if conn == nil {
					conn, err = pgx.Connect(ctx, f.url)
				}
				if err == nil {
					if _, err = conn.Exec(ctx, "SELECT pg_notify($1, $2)", ChangesChannel, payload); err == nil {
						break
					}
					conn.Close(context.Background())
					conn = nil
				}
				f.log.Warn("cluster: cannot announce a change; retrying", "err", err)
				sleep(ctx, retryEvery)
			}
		}
	}
}

// reload reloads what other nodes announced, once per burst of
// announcements and registry.
func (f *Feed) reload(ctx context.Context) {
	defer f.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.inKick:
		}
		f.mu.Lock()
		p := f.in
		f.in = pending{}
		f.mu.Unlock()
		failed := false
		for reg, set := range p {
			var accounts []string
			if set != nil {
				accounts = slices.Sorted(maps.Keys(set))
			}
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := f.reloads[reg](rctx, accounts)
			cancel()
			if err != nil && ctx.Err() == nil {
				f.log.Error("cluster: registry not reloaded after another node changed it; retrying", "registry", reg, "err", err)
				f.mu.Lock()
				f.in.add(reg, accounts...)
				f.mu.Unlock()
				failed = true
			}
		}
		if failed {
			signal(f.inKick)
			sleep(ctx, retryEvery)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
