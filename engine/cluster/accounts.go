package cluster

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// AccountsChannel is the PostgreSQL channel on which nodes announce key and
// subscription changes; the payload is the announcing node's id.
const AccountsChannel = "alertd_accounts"

// Reloader is the account registry as the feed sees it (account.Registry).
type Reloader interface {
	Reload(ctx context.Context) error
}

// AccountFeed carries key and plan changes between nodes through
// PostgreSQL LISTEN/NOTIFY: Changed announces this node's (NOTIFY), and a
// change announced by another node reloads the registry here, within a
// round trip of the database. Reconnecting after a lost connection reloads
// too (announcements may have been missed).
//
// It owns three goroutines (listen, announce, reload), each on a
// connection or channel of its own, stopped by Stop. No lock: they share
// only channels.
type AccountFeed struct {
	url    string
	self   string
	reg    Reloader
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup
	out    chan struct{} // this node changed something (coalesced)
	in     chan struct{} // another node did (coalesced)
}

// StartAccountFeed listens on AccountsChannel of the database at url. self
// tells this node's announcements apart.
func StartAccountFeed(url, self string, reg Reloader, log *slog.Logger) *AccountFeed {
	ctx, cancel := context.WithCancel(context.Background())
	f := &AccountFeed{url: url, self: self, reg: reg, log: log, cancel: cancel,
		out: make(chan struct{}, 1), in: make(chan struct{}, 1)}
	f.wg.Add(3)
	go f.listen(ctx)
	go f.announce(ctx)
	go f.reload(ctx)
	return f
}

// Changed announces a change of this node's registry; it never blocks.
func (f *AccountFeed) Changed() { signal(f.out) }

// Stop ends the goroutines and closes the connections.
func (f *AccountFeed) Stop() {
	f.cancel()
	f.wg.Wait()
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default: // one pending is enough: a reload reads everything
	}
}

// retryEvery paces reconnections to the database.
const retryEvery = time.Second

// listen holds a connection in LISTEN and signals reload for every other
// node's announcement.
func (f *AccountFeed) listen(ctx context.Context) {
	defer f.wg.Done()
	for first := true; ctx.Err() == nil; first = false {
		conn, err := pgx.Connect(ctx, f.url)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+AccountsChannel)
		}
		if err == nil {
			if !first {
				signal(f.in) // announcements may have gone by while away
			}
			for err == nil {
				var n *pgconn.Notification
				if n, err = conn.WaitForNotification(ctx); err == nil && n.Payload != f.self {
					signal(f.in)
				}
			}
		}
		if conn != nil {
			conn.Close(context.Background())
		}
		if ctx.Err() == nil {
			f.log.Warn("cluster: account change feed lost its database connection; retrying", "err", err)
			sleep(ctx, retryEvery)
		}
	}
}

// announce sends NOTIFY for this node's changes, on a connection of its own
// (the listening one waits).
func (f *AccountFeed) announce(ctx context.Context) {
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
		case <-f.out:
		}
		for ctx.Err() == nil {
			var err error
			if conn == nil {
				conn, err = pgx.Connect(ctx, f.url)
			}
			if err == nil {
				if _, err = conn.Exec(ctx, "SELECT pg_notify($1, $2)", AccountsChannel, f.self); err == nil {
					break
				}
				conn.Close(context.Background())
				conn = nil
			}
			f.log.Warn("cluster: cannot announce an account change; retrying", "err", err)
			sleep(ctx, retryEvery)
		}
	}
}

// reload reloads the registry once per burst of announcements.
func (f *AccountFeed) reload(ctx context.Context) {
	defer f.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.in:
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if err := f.reg.Reload(rctx); err != nil && ctx.Err() == nil {
			f.log.Error("cluster: keys and subscriptions not reloaded after another node changed them", "err", err)
			signal(f.in) // try again after a pause
			sleep(ctx, retryEvery)
		}
		cancel()
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
