package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/alertd/alertd/protocol"
)

// SignatureKind is how deliveries prove they come from alertd.
type SignatureKind int

const (
	// SignNone sends no proof.
	SignNone SignatureKind = iota
	// SignHMAC sends the lowercase hex HMAC-SHA256 of the raw body, keyed
	// with the endpoint secret (Tweet Alerts, Community Watch, Convergence
	// Tracker: X-Signature).
	SignHMAC
	// SignSecret sends the stored secret unchanged (Engagement Tracker:
	// X-Webhook-Secret).
	SignSecret
)

// Signature names the scheme and the header that carries it.
type Signature struct {
	Kind   SignatureKind
	Header string
}

// Policy is how one product delivers its webhooks.
type Policy struct {
	// Attempts per delivery, the first included (at least 1).
	Attempts int
	// Backoff[i] is the wait before attempt i+2; the last value repeats.
	// Empty: retry at once.
	Backoff []time.Duration
	// Timeout bounds one attempt, connection and response together.
	Timeout time.Duration
	// Signature of every delivery.
	Signature Signature
	// Headers are sent with every delivery (Content-Type is always
	// application/json).
	Headers map[string]string
	// EndpointIDHeader, when set, carries the endpoint's id (X-Webhook-Id).
	EndpointIDHeader string
	// DeliveryIDHeader, when set, carries the delivery's stable id, the same
	// on every attempt and after a restart, so receivers can drop duplicates.
	DeliveryIDHeader string
	// DisableAfter consecutive failed deliveries disable the endpoint for
	// good; 0 never disables.
	DisableAfter int
	// PerEndpoint is how many deliveries of one endpoint may be in flight at
	// once (default 4).
	PerEndpoint int
}

// Backoff before the attempt that follows `done` attempts (done >= 1).
func (p *Policy) backoff(done int) time.Duration {
	if len(p.Backoff) == 0 || done < 1 {
		return 0
	}
	return p.Backoff[min(done-1, len(p.Backoff)-1)]
}

func (p *Policy) resolve() {
	if p.Attempts < 1 {
		p.Attempts = 1
	}
	if p.Timeout <= 0 {
		p.Timeout = 5 * time.Second
	}
	if p.PerEndpoint <= 0 {
		p.PerEndpoint = 4
	}
}

// TweetAlertsPolicy is spec 1's delivery policy: X-Signature, X-Webhook-Id
// and X-Delivery-Id; as many attempts as the backoff list allows plus one (3
// with the spec's 1 s, 2 s); 10 consecutive failures disable.
func TweetAlertsPolicy(t protocol.Timings) Policy {
	return Policy{
		Attempts:         1 + len(t.WebhookBackoff),
		Backoff:          t.WebhookBackoff,
		Timeout:          t.WebhookTimeout,
		Signature:        Signature{Kind: SignHMAC, Header: "X-Signature"},
		EndpointIDHeader: "X-Webhook-Id",
		DeliveryIDHeader: "X-Delivery-Id",
		DisableAfter:     10,
	}
}

// Sign returns the lowercase hex HMAC-SHA256 of body keyed with secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports, in constant time, whether sig is the signature of body.
func Verify(secret string, body []byte, sig string) bool {
	want := Sign(secret, body)
	return hmac.Equal([]byte(want), []byte(sig))
}
