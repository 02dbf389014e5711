package session

import (
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Every socket kind re-checks what it was opened with the same way: every
// Timings.HeartbeatInterval and when the subscription's known end passes,
// it reads its key again (a dashboard session opened with a key: that key,
// known by its hash; one opened through Telegram: its account's
// subscription). A key revoked, regenerated or deactivated and a
// subscription expired close the socket; a changed plan narrows it or
// closes it (each kind says how). The realtime socket also re-checks on
// each client heartbeat.

// check reads a socket's credential again: the key (of product p) when it
// has one, else the key known by hash (which must still be acct's),
// otherwise acct's subscription to p.
func (d *Deps) check(key string, hash *account.KeyHash, acct string, p protocol.Product) (account.Principal, account.Reason) {
	if key != "" {
		return d.Registry.Authenticate(key, p)
	}
	if hash != nil {
		pr, reason := d.Registry.AuthenticateHash(*hash, p)
		if reason == account.OK && pr.AccountID != acct {
			return account.Principal{}, account.Unknown
		}
		return pr, reason
	}
	sub, ok := d.Registry.Subscription(acct, p)
	if !ok {
		return account.Principal{}, account.Unknown
	}
	pr := account.Principal{AccountID: acct, Product: p, Sub: sub}
	if sub.Expired(d.Now()) {
		return pr, account.Expired
	}
	return pr, account.OK
}

// keyWatch holds a socket's re-check timers; they run on the transport's
// loop, like the session's other callbacks.
type keyWatch struct {
	tick   Timer      // every heartbeat interval (the realtime socket's login timer before that)
	end    Timer      // at endsAt
	endsAt *time.Time // the subscription's end as last read
}

// every arms the tick: f runs every d until it returns false or stop.
func (w *keyWatch) every(c Conn, d time.Duration, f func() bool) {
	w.tick = c.AfterFunc(d, func() {
		if f() {
			w.tick.Reset(d)
		}
	})
}

// follow (re)arms the end timer when the subscription's end moved: f runs
// when it passes. A subscription without an end has no timer.
func (w *keyWatch) follow(c Conn, sub *persistence.Subscription, now time.Time, f func()) {
	if w.end != nil && sameTime(sub.ExpiresAt, w.endsAt) {
		return
	}
	w.endsAt = sub.ExpiresAt
	if w.end != nil {
		w.end.Stop()
		w.end = nil
	}
	if w.endsAt == nil {
		return
	}
	// At least a few ms, so a timer that fires a hair early re-arms instead
	// of spinning.
	w.end = c.AfterFunc(max(w.endsAt.Sub(now), minExpiryWait), func() {
		w.end = nil
		f()
	})
}

const minExpiryWait = 5 * time.Millisecond

// check is the re-check of every socket kind that authenticates before the
// upgrade: it reads the credential again (key, key hash, or acct's
// subscription to p)
// and, when it no longer stands, closes the socket with 1008 and the
// refusal's code as reason; otherwise it follows the subscription's end
// (again is the session's re-check, for the end timer).
func (w *keyWatch) check(d *Deps, c Conn, e *ending, key string, hash *account.KeyHash, acct string, p protocol.Product, again func()) (account.Principal, bool) {
	pr, reason := d.check(key, hash, acct, p)
	if reason != account.OK {
		r, code := refusal(reason)
		e.because(r)
		c.Close(ClosePolicy, code)
		return pr, false
	}
	w.follow(c, pr.Sub, d.Now(), again)
	return pr, true
}

func (w *keyWatch) stop() {
	for _, t := range []Timer{w.tick, w.end} {
		if t != nil {
			t.Stop()
		}
	}
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// refusal is how a socket whose credential no longer stands ends: the
// reason it counts and the code its client sees (a DISCONNECT code on the
// realtime socket, the close frame's reason on the others).
func refusal(r account.Reason) (CloseReason, string) {
	if r == account.Expired {
		return ReasonSubscriptionExpired, protocol.CodeSubscriptionExpired
	}
	code := r.B2BCode()
	return reasonForCode(code), code
}

// refusalMessage says why a key was refused, for DISCONNECT messages and
// close frames.
func refusalMessage(r account.Reason, p *account.Principal) string {
	switch r {
	case account.Expired:
		if p.Sub != nil && p.Sub.ExpiresAt != nil {
			return "subscription expired on " + p.Sub.ExpiresAt.UTC().Format(time.RFC3339)
		}
		return "subscription expired"
	case account.Deactivated:
		return "API key deactivated"
	case account.Malformed:
		return "API key malformed or not a dt_ key"
	}
	return "API key unknown, revoked or regenerated"
}
